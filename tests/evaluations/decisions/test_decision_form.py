"""The decision form edits what the API takes (issue 38, item 6): pools × rows, the rows that
run cluster-wide and each pool's tenant sharing, saved through the same service."""

from __future__ import annotations

from html.parser import HTMLParser

import pytest
from django.urls import reverse
from rest_framework.test import APIClient

from evaluations.decisions.models import Decision
from evaluations.models import Evaluation
from evaluations.steps.services import evaluation_step_save
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


@pytest.fixture
def with_candidates(cast, evaluation):
    evaluation_step_save(
        evaluation=evaluation,
        actor=cast.bob,
        step="candidates",
        data={"candidates": [{"row": ref} for ref in ROWS]},
    )
    return Evaluation.objects.get(pk=evaluation.pk)


def decision_page(client, cast, evaluation):
    client.force_login(cast.bob)
    return reverse("evaluations:decision", args=[evaluation.pk])


def test_a_new_multi_pool_decision_is_filed_through_the_form(client, cast, with_candidates):
    url = decision_page(client, cast, with_candidates)
    posted = as_rendered(client.get(url).content.decode())
    posted |= {
        "pool-0-name": ["training"],
        "pool-0-tenant_sharing": ["none"],
        "pool-0-rows": [EXPORTER, WHOLE_GPU],
    }
    # A second pool: "Add a pool" shows one more blank pool, and saves nothing yet.
    more = client.post(url, {**posted, "add_pool": "1"})
    assert more.status_code == 200
    assert not Decision.objects.filter(evaluation=with_candidates).exists()
    posted = as_rendered(more.content.decode())
    assert posted["pool-0-name"] == ["training"]  # what was typed is still there
    posted |= {
        "pool-1-name": ["interactive"],
        "pool-1-tenant_sharing": ["within_tenant"],
        "pool-1-rows": [EXPORTER, MIG, MIG_MANAGER],
        "cluster_wide": [GOVERNOR, OPERATOR],
    }

    saved = client.post(url, posted)

    assert saved.status_code == 302, saved.context["form"].errors
    decision = Evaluation.objects.get(pk=with_candidates.pk).decision
    assert set(decision.rows) == {EXPORTER, WHOLE_GPU, MIG, MIG_MANAGER, GOVERNOR, OPERATOR}
    assert decision.pools == {
        "training": [EXPORTER, WHOLE_GPU],
        "interactive": [EXPORTER, MIG, MIG_MANAGER],
    }
    assert decision.pool_tenant_sharing == {"training": "none", "interactive": "within_tenant"}


def test_a_pool_removed_in_the_form_leaves_the_decision(client, cast, evaluation):
    api_decide(cast, evaluation, rows=ROWS, pools=POOLS, pool_tenant_sharing=SHARING)
    url = decision_page(client, cast, evaluation)
    posted = as_rendered(client.get(url).content.decode())
    assert posted["pool-1-name"] == ["inference"]

    saved = client.post(url, {**posted, "pool-1-DELETE": "on"})

    assert saved.status_code == 302, saved.context["form"].errors
    decision = Evaluation.objects.get(pk=evaluation.pk).decision
    assert list(decision.pools) == ["training", "interactive"]
    assert decision.pool_tenant_sharing == {"training": "none", "interactive": "within_tenant"}


def test_a_named_pool_without_rows_is_an_error_next_to_it_and_keeps_the_input(
    client, cast, with_candidates
):
    url = decision_page(client, cast, with_candidates)
    posted = as_rendered(client.get(url).content.decode())
    posted |= {
        "pool-0-name": ["notebooks"],
        "pool-0-tenant_sharing": ["within_tenant"],
        "cluster_wide": [GOVERNOR],
        "rationale": ["Typed before the mistake."],
    }

    response = client.post(url, posted)

    assert response.status_code == 400
    assert not Decision.objects.filter(evaluation=with_candidates).exists()
    page = response.content.decode()
    pool_row = page.split('data-pool="1"', 1)[1].split("</fieldset>", 1)[0]
    assert "Tick the rows that run in this pool, or remove it." in pool_row
    again = as_rendered(page)
    assert again["pool-0-name"] == ["notebooks"]
    assert again["pool-0-tenant_sharing"] == ["within_tenant"]
    assert again["cluster_wide"] == [GOVERNOR]
    assert again["rationale"] == ["Typed before the mistake."]


def test_a_row_ticked_cluster_wide_and_in_a_pool_is_an_error_naming_it(
    client, cast, with_candidates
):
    url = decision_page(client, cast, with_candidates)
    posted = as_rendered(client.get(url).content.decode())
    posted |= {"pool-0-name": ["training"], "pool-0-rows": [WHOLE_GPU, GOVERNOR]}
    posted |= {"cluster_wide": [GOVERNOR]}

    response = client.post(url, posted)

    assert response.status_code == 400
    errors = response.content.decode().split('data-errors-for="cluster_wide"', 1)[1]
    assert f"{GOVERNOR}: ticked cluster-wide and in pool training" in errors.split("</ul>")[0]
    assert as_rendered(response.content.decode())["pool-0-rows"] == [WHOLE_GPU, GOVERNOR]


def test_two_pools_of_one_name_are_an_error_next_to_the_second(client, cast, evaluation):
    api_decide(cast, evaluation, rows=ROWS, pools=POOLS, pool_tenant_sharing=SHARING)
    url = decision_page(client, cast, evaluation)
    posted = as_rendered(client.get(url).content.decode())

    response = client.post(url, {**posted, "pool-2-name": "inference"})

    assert response.status_code == 400
    third = response.content.decode().split('data-pool="3"', 1)[1].split("</fieldset>", 1)[0]
    assert "Another pool has this name." in third
    assert Evaluation.objects.get(pk=evaluation.pk).decision.pools == POOLS


def test_a_stack_with_no_row_ticked_is_refused_in_the_services_words_keeping_the_input(
    client, cast, with_candidates
):
    url = decision_page(client, cast, with_candidates)
    posted = as_rendered(client.get(url).content.decode())
    posted |= {"pool-0-tenant_sharing": ["none"], "rationale": ["Still here."]}

    response = client.post(url, posted)

    assert response.status_code == 400
    assert "Choose at least one row for the stack." in response.content.decode()
    assert as_rendered(response.content.decode())["rationale"] == ["Still here."]
