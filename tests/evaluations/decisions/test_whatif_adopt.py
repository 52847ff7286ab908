"""Adopting a what-if swap keeps the decision's pools and per-pool tenant sharing and drops the
replaced row's risks from the decision, its page, the PDF report, the ADR and the share view
(issue 38, item 6)."""

from __future__ import annotations

import re

import pytest
from django.template.loader import render_to_string
from django.test import Client
from django.urls import reverse
from rest_framework.test import APIClient

from evaluations import selectors
from evaluations.decisions.services import evaluation_decide
from evaluations.decisions.whatif import evaluation_whatif_adopt
from evaluations.models import Evaluation
from evaluations.reports.content import TEMPLATE, report_context
from evaluations.sharing.services import share_link_create
from tests.evaluations.factories import make_cast, make_evaluation

pytestmark = pytest.mark.django_db

# Three tenants who never share GPUs with each other: each MIG pool runs once per tenant.
PROFILE = {
    "workload_types": ["online_inference", "training", "interactive"],
    "primary_objective": "p99_latency",
    "p99_target_ms": 300,
    "jitter_tolerance": "medium",
    "isolation": "hard",
    "failure_semantics": "incident",
    "tenancy": "multi",
    "tenant_count": 3,
    "cross_tenant_sharing": "never",
    "gpu_model": "H100 80GB",
    "priorities": ["isolation", "observability", "cost", "compatibility"],
}
EXPORTER = "dcgm-exporter/exporter"
WHOLE_GPU = "nvidia-device-plugin/whole-gpu"
MIG = "nvidia-device-plugin/mig-mixed"
MIG_MANAGER = "nvidia-mig/mig-manager"
OLD_GOVERNOR = "kai-scheduler/scheduler"
NEW_GOVERNOR = "volcano/scheduler"
POOLS = {
    "training": [EXPORTER, WHOLE_GPU],
    "inference": [EXPORTER, MIG, MIG_MANAGER],
    "interactive": [EXPORTER, MIG, MIG_MANAGER],
}
SHARING = {"training": "none", "inference": "within_tenant", "interactive": "within_tenant"}
OWN_RISK = "Our on-call rota does not cover the MIG re-partitioning window."


@pytest.fixture
def cast(builtin_catalog):
    return make_cast()


@pytest.fixture
def adopted(cast) -> Evaluation:
    """A decided stack with its governor's failure modes among the risks, then the governor
    swapped for another through What if → Adopt."""
    evaluation = make_evaluation(cast, profile=PROFILE)
    rows = [EXPORTER, MIG, WHOLE_GPU, MIG_MANAGER, OLD_GOVERNOR]
    evaluation_decide(
        evaluation=evaluation,
        actor=cast.bob,
        rows=rows,
        pools=POOLS,
        pool_tenant_sharing=SHARING,
        rationale="Whole GPUs for training, MIG for the rest.",
        risks="\n".join([*selectors.failure_modes_of(rows), OWN_RISK]),
    )
    evaluation = Evaluation.objects.get(pk=evaluation.pk)
    return evaluation_whatif_adopt(
        evaluation=evaluation,
        actor=cast.bob,
        old=OLD_GOVERNOR,
        new=NEW_GOVERNOR,
        revision=evaluation.revision,
    )


def old_governor_risks() -> list[str]:
    risks = selectors.failure_modes_of([OLD_GOVERNOR])
    assert risks  # the catalog states the governor's failure modes: the test needs them
    return [risk.split(": ", 1)[1] for risk in risks]


def test_adopting_a_swap_keeps_the_pools_and_their_tenant_sharing(adopted):
    decision = adopted.decision

    assert NEW_GOVERNOR in decision.rows and OLD_GOVERNOR not in decision.rows
    assert decision.pools == POOLS
    assert decision.pool_tenant_sharing == SHARING


def test_after_adopting_a_swap_the_pools_still_run_once_per_tenant(adopted):
    report = selectors.decision_report(adopted)

    assert not [f.message for f in report.fit if f.blocking and f.aspect == "tenancy"]


def test_adopting_a_swap_drops_the_replaced_rows_risks_and_keeps_the_teams_own(adopted):
    risks = adopted.decision.risks

    assert OLD_GOVERNOR not in risks
    assert OWN_RISK in risks
    assert f"{EXPORTER}: " in risks  # the rows that stay keep theirs


def test_adopting_a_swap_adds_the_replacements_risks(adopted):
    for risk in selectors.failure_modes_of([NEW_GOVERNOR]):
        assert risk in adopted.decision.risks


def test_the_decision_page_no_longer_shows_the_replaced_rows_risks(adopted, cast, client):
    client.force_login(cast.bob)
    page = client.get(reverse("evaluations:decision", args=[adopted.pk])).content.decode()

    risks = re.search(r'<textarea name="risks"[^>]*>(.*?)</textarea>', page, re.S).group(1)
    assert OWN_RISK in risks
    for mode in old_governor_risks():
        assert mode not in risks


def test_the_pdf_report_no_longer_lists_the_replaced_rows_risks(adopted):
    html = render_to_string(TEMPLATE, report_context(evaluation=adopted, with_map=False))

    risks = re.search(r'<ul class="items">(.*?)</ul>', html, re.S).group(1)
    assert OWN_RISK in risks
    assert OLD_GOVERNOR not in risks


def test_the_adr_no_longer_lists_the_replaced_rows_risks(adopted, cast):
    client = APIClient()
    client.force_authenticate(cast.bob)

    markdown = client.get(f"/api/v1/evaluations/{adopted.pk}/adr.md").content.decode()

    assert OWN_RISK in markdown
    for mode in old_governor_risks():
        assert mode not in markdown


def test_the_share_view_no_longer_lists_the_replaced_rows_risks(adopted, cast):
    _link, key = share_link_create(evaluation=adopted, actor=cast.bob, label="Auditor", days=7)

    page = Client().get(f"/shared/{key}/").content.decode()

    assert OWN_RISK in page
    for mode in old_governor_risks():
        assert mode not in page


def test_a_swap_in_one_pool_keeps_the_row_and_its_risks_where_it_still_runs(cast):
    evaluation = make_evaluation(cast, profile=PROFILE)
    rows = ["hami/device-plugin", "hami/scheduler-extender", "kueue/controller"]
    pools = {"shared": ["hami/device-plugin"], "isolated": ["hami/device-plugin"]}
    evaluation_decide(
        evaluation=evaluation,
        actor=cast.bob,
        rows=rows,
        pools=pools,
        pool_tenant_sharing={"shared": "across_tenants", "isolated": "within_tenant"},
        risks="\n".join(selectors.failure_modes_of(rows)),
    )
    evaluation = Evaluation.objects.get(pk=evaluation.pk)

    adopted = evaluation_whatif_adopt(
        evaluation=evaluation,
        actor=cast.bob,
        old="hami/device-plugin",
        new=MIG,
        pool="isolated",
        revision=evaluation.revision,
    )

    decision = adopted.decision
    assert decision.pools["shared"] == ["hami/device-plugin"]
    assert (
        MIG in decision.pools["isolated"] and "hami/device-plugin" not in decision.pools["isolated"]
    )
    assert decision.pool_tenant_sharing == {"shared": "across_tenants", "isolated": "within_tenant"}
    assert "hami/device-plugin: " in decision.risks  # it still runs in the shared pool
