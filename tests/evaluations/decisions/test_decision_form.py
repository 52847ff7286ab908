"""The decision form edits what the API takes (issue 38, item 6): pools × rows, the rows that
run cluster-wide and each pool's tenant sharing, saved through the same service."""

from __future__ import annotations

from html.parser import HTMLParser

import pytest
from django.urls import reverse
from rest_framework.test import APIClient

from evaluations.models import Evaluation
from tests.evaluations.factories import make_cast, make_evaluation

pytestmark = pytest.mark.django_db

# Mixed work on H100s for three tenants: a training pool of whole GPUs, MIG pools for inference
# and for notebooks (one per tenant), the governor and the operators cluster-wide.
PROFILE = {
    "workload_types": ["online_inference", "training", "interactive"],
    "primary_objective": "p99_latency",
    "p99_target_ms": 300,
    "jitter_tolerance": "medium",
    "isolation": "hard",
    "failure_semantics": "incident",
    "tenancy": "multi",
    "tenant_count": 3,
    "gpu_model": "H100 80GB",
    "priorities": ["isolation", "observability", "cost", "compatibility"],
}
EXPORTER = "dcgm-exporter/exporter"
WHOLE_GPU = "nvidia-device-plugin/whole-gpu"
MIG = "nvidia-device-plugin/mig-mixed"
MIG_MANAGER = "nvidia-mig/mig-manager"
GOVERNOR = "kai-scheduler/scheduler"
OPERATOR = "nvidia-gpu-operator/clusterpolicy"
ROWS = [EXPORTER, MIG, WHOLE_GPU, MIG_MANAGER, GOVERNOR, OPERATOR]
# The exporter runs in every pool and the MIG rows in two: one row, several pools.
POOLS = {
    "training": [EXPORTER, WHOLE_GPU],
    "inference": [EXPORTER, MIG, MIG_MANAGER],
    "interactive": [EXPORTER, MIG, MIG_MANAGER],
}
SHARING = {"training": "none", "inference": "across_tenants", "interactive": "within_tenant"}


@pytest.fixture
def cast(builtin_catalog):
    return make_cast()


@pytest.fixture
def evaluation(cast):
    return make_evaluation(cast, profile=PROFILE)


def api_decide(cast, evaluation, **body):
    client = APIClient()
    client.force_authenticate(cast.bob)
    evaluation.refresh_from_db()
    return client.put(
        f"/api/v1/evaluations/{evaluation.pk}/decision/",
        {"revision": evaluation.revision, **body},
        format="json",
    )


class _FormFields(HTMLParser):
    """What a browser posts for the decision form as rendered (no JavaScript): text and hidden
    inputs, ticked boxes, selected options, textareas."""

    def __init__(self) -> None:
        super().__init__()
        self.data: list[tuple[str, str]] = []
        self._in_form = False
        self._select: str | None = None
        self._select_value: str | None = None
        self._textarea: str | None = None
        self._text = ""

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "form":
            self._in_form = "step-form" in (attrs.get("class") or "")
        if not self._in_form or "name" not in attrs and tag != "option":
            return
        kind = (attrs.get("type") or "text").lower()
        if tag == "input" and kind not in ("submit", "button", "image", "reset"):
            if kind not in ("checkbox", "radio"):
                self.data.append((attrs["name"], attrs.get("value") or ""))
            elif "checked" in attrs:
                self.data.append((attrs["name"], attrs.get("value", "on")))
        elif tag == "select":
            self._select, self._select_value = attrs["name"], None
        elif tag == "option" and self._select is not None:
            if self._select_value is None or "selected" in attrs:
                self._select_value = attrs.get("value", "")
        elif tag == "textarea":
            self._textarea, self._text = attrs["name"], ""

    def handle_data(self, data):
        if self._textarea is not None:
            self._text += data

    def handle_endtag(self, tag):
        if tag == "form":
            self._in_form = False
        elif tag == "select" and self._select is not None:
            self.data.append((self._select, self._select_value or ""))
            self._select = None
        elif tag == "textarea" and self._textarea is not None:
            # A browser drops the one newline that follows <textarea>.
            self.data.append((self._textarea, self._text.removeprefix("\n")))
            self._textarea = None


def as_rendered(html: str) -> dict[str, list[str]]:
    parser = _FormFields()
    parser.feed(html)
    posted: dict[str, list[str]] = {}
    for name, value in parser.data:
        posted.setdefault(name, []).append(value)
    return posted


def test_a_multi_pool_decision_saved_through_the_api_saves_unchanged_through_the_form(
    client, cast, evaluation
):
    response = api_decide(cast, evaluation, rows=ROWS, pools=POOLS, pool_tenant_sharing=SHARING)
    assert response.status_code == 200, response.json()
    client.force_login(cast.bob)
    url = reverse("evaluations:decision", args=[evaluation.pk])

    saved = client.post(url, as_rendered(client.get(url).content.decode()))

    assert saved.status_code == 302, saved.context["form"].errors
    decision = Evaluation.objects.get(pk=evaluation.pk).decision
    assert decision.rows == ROWS
    assert decision.pools == POOLS
    assert decision.pool_tenant_sharing == SHARING


def test_a_pool_named_in_words_saves_through_the_form(client, cast, evaluation):
    pools = {"A100 training": [WHOLE_GPU], "笔记本": [MIG, MIG_MANAGER]}
    sharing = {"A100 training": "none", "笔记本": "within_tenant"}
    rows = [WHOLE_GPU, MIG, MIG_MANAGER, GOVERNOR]
    assert (
        api_decide(
            cast, evaluation, rows=rows, pools=pools, pool_tenant_sharing=sharing
        ).status_code
        == 200
    )
    client.force_login(cast.bob)
    url = reverse("evaluations:decision", args=[evaluation.pk])

    saved = client.post(url, as_rendered(client.get(url).content.decode()))

    assert saved.status_code == 302, saved.context["form"].errors
    decision = Evaluation.objects.get(pk=evaluation.pk).decision
    assert decision.pools == pools
    assert decision.pool_tenant_sharing == sharing
