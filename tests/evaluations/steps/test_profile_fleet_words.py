"""Node groups, named tenants and installed components are said wherever a profile is shown
as text: the evaluation's summary, the diffs, the report and the decision record, in English
and in Chinese."""

from __future__ import annotations

import pytest
from django.urls import reverse
from django.utils import translation

from evaluations.decisions.adr import adr_build
from evaluations.models import Evaluation
from evaluations.reports.content import profile_rows
from evaluations.review.diffs.selectors import evaluation_diff
from evaluations.review.diffs.words import diff_in_words
from evaluations.steps.services import evaluation_step_save
from tests.evaluations.factories import make_cast, make_evaluation
from tests.evaluations.steps.test_profile_fleet_step import GROUPS, INSTALLED, TENANTS

pytestmark = pytest.mark.django_db

HOSPITAL = {"isolation": "hard", "node_groups": GROUPS, "tenants": TENANTS, "installed": INSTALLED}


@pytest.fixture
def cast(db):
    return make_cast()


@pytest.fixture
def hospital(cast):
    evaluation = make_evaluation(cast)
    return evaluation_step_save(
        evaluation=evaluation, actor=cast.bob, step="profile", data=HOSPITAL
    )


def test_the_report_lists_groups_tenants_with_demand_and_installed(hospital):
    rows = dict(profile_rows(hospital.profile))

    assert rows["Node groups"] == "a100: 6 nodes × 4 A100 40GB · l4: 4 nodes × 2 L4"
    students = "students (Interactive development; demand: Interactive development: 30 replicas"
    assert f"{students} of MIG 1g.10gb, always)" in rows["Named tenants"]
    assert (
        "research (Training; demand: Training: 16 GPUs, in a time window)" in rows["Named tenants"]
    )
    assert rows["Installed in the cluster now"] == "kueue 0.10.1"


def test_the_report_says_them_in_chinese(hospital):
    with translation.override("zh-hans"):
        rows = dict(profile_rows(hospital.profile))

    assert "a100：6 个节点 × 4 A100 40GB" in rows["节点组"]
    assert "在时间窗口内" in rows["具名租户"]


def test_the_evaluation_summary_shows_them(client, cast, hospital):
    client.force_login(cast.bob)

    content = client.get(reverse("evaluations:detail", args=[hospital.pk])).content.decode()

    assert "Node groups: a100: 6 nodes × 4 A100 40GB" in content
    assert "kueue 0.10.1" in content


def test_the_decision_record_names_them_among_the_drivers(hospital):
    markdown = adr_build(hospital, base_url="https://ecomap.example").markdown

    assert "* Node groups: a100: 6 nodes × 4 A100 40GB · l4: 4 nodes × 2 L4" in markdown
    assert "clinical (Online inference" in markdown
    assert "* Installed in the cluster now: kueue 0.10.1" in markdown


def test_a_diff_says_a_tenant_added_in_words(cast, hospital, settings):
    settings.REVISION_COALESCE_SECONDS = 0  # each save keeps its own revision
    before = hospital.revision
    grown = [*TENANTS, {"name": "radiology", "workloads": ["online_inference"], "demand": []}]
    evaluation_step_save(
        evaluation=hospital, actor=cast.bob, step="profile", data={**HOSPITAL, "tenants": grown}
    )
    after = Evaluation.objects.get(pk=hospital.pk)

    compared = evaluation_diff(evaluation=after, old=before, new=after.revision)
    words = diff_in_words(compared.diff, {})

    (change,) = words["sections"][0]["changes"]
    assert change["label"] == "Named tenants"
    assert change["added"] == ["radiology (Online inference)"]
