"""The diff of two revisions lists exactly the changed fields, by section, with who changed
what between them."""

from __future__ import annotations

import pytest

from evaluations.decisions.services import evaluation_decide
from evaluations.models import Evaluation
from evaluations.review.diffs.engine import content_diff
from evaluations.review.diffs.selectors import DiffRefused, default_pair, evaluation_diff
from evaluations.review.services import evaluation_review, evaluation_submit
from evaluations.steps.services import evaluation_step_save
from tests.evaluations.factories import (
    MIXED_PROFILE,
    fill_steps,
    make_cast,
    make_evaluation,
    small_catalog,
)

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _every_save_a_revision(settings):
    """These tests compare revisions one save apart: each save keeps its own revision here
    (one editor's saves within a minute are coalesced; tests/evaluations/review/
    test_revision_coalescing.py covers that)."""
    settings.REVISION_COALESCE_SECONDS = 0


@pytest.fixture
def cast(db):
    small_catalog()
    return make_cast()


@pytest.fixture
def filled(cast):
    return fill_steps(make_evaluation(cast), cast.bob)


def _fields(diff) -> list[tuple[str, str, str, str]]:
    return [(c.section, c.kind, c.field, c.item) for c in diff.changes]


def test_changing_two_fields_across_revisions_lists_exactly_those_two(cast, filled):
    start = filled.revision
    evaluation_step_save(
        evaluation=filled,
        actor=cast.bob,
        step="profile",
        data={**MIXED_PROFILE, "jitter_tolerance": "medium"},
    )
    evaluation_decide(
        evaluation=filled,
        actor=cast.alice,
        rows=["hami/device-plugin", "volcano/scheduler"],
        rationale="HAMi shares memory; Volcano queues the training jobs.",
    )
    filled = Evaluation.objects.get(pk=filled.pk)

    diff = evaluation_diff(evaluation=filled, old=start, new=filled.revision).diff

    assert _fields(diff) == [
        ("profile", "changed", "jitter_tolerance", ""),
        ("decision", "changed", "rationale", ""),
    ]
    jitter, rationale = diff.changes
    assert (jitter.old, jitter.new) == ("low", "medium")
    assert rationale.old == "HAMi shares, Volcano governs."
    assert rationale.new == "HAMi shares memory; Volcano queues the training jobs."


def test_who_changed_what_is_attached_to_the_sections_touched(cast, filled):
    start = filled.revision
    evaluation_step_save(
        evaluation=filled,
        actor=cast.bob,
        step="profile",
        data={**MIXED_PROFILE, "jitter_tolerance": "medium"},
    )
    evaluation_decide(
        evaluation=filled,
        actor=cast.alice,
        rows=["hami/device-plugin", "volcano/scheduler"],
        rationale="Another reason.",
    )
    filled = Evaluation.objects.get(pk=filled.pk)

    diff = evaluation_diff(evaluation=filled, old=start, new=filled.revision).diff

    sections = {section.key: section for section in diff.sections}
    assert [(t.actor, t.action, t.step) for t in sections["profile"].touches] == [
        ("bob-editor", "step_saved", "profile")
    ]
    assert [(t.actor, t.action) for t in sections["decision"].touches] == [
        ("alice-admin", "decided")
    ]
    assert sections["units"].touches == [] and sections["units"].changes == []


def test_candidates_added_and_removed_are_listed_as_such(cast, filled):
    start = filled.revision
    evaluation_step_save(
        evaluation=filled,
        actor=cast.bob,
        step="candidates",
        data={
            "candidates": [
                {"row": "hami/device-plugin", "points_confirmed": True},
                {"row": "gpustack/platform", "points_confirmed": True},
            ]
        },
    )
    filled = Evaluation.objects.get(pk=filled.pk)

    diff = evaluation_diff(evaluation=filled, old=start, new=filled.revision).diff

    candidates = [c for c in diff.changes if c.section == "candidates"]
    assert [(c.kind, c.item) for c in candidates] == [
        ("removed", "volcano/scheduler"),
        ("added", "gpustack/platform"),
    ]


def test_a_candidates_changed_points_and_boundary_are_field_changes():
    old = {
        "candidates": [
            {
                "row": "hami/device-plugin",
                "enforcement_points": ["runtime_interception"],
                "points_confirmed": False,
                "alternative_group": "",
                "promise": "Shares GPUs.",
                "non_promise": "No quota.",
            }
        ]
    }
    new = {
        "candidates": [
            {
                **old["candidates"][0],
                "enforcement_points": ["runtime_interception", "scheduler"],
                "non_promise": "No quota, no fairness.",
            }
        ]
    }

    diff = content_diff(old, new)

    points, boundary = diff.changes
    assert (points.section, points.field, points.added, points.removed) == (
        "candidates",
        "enforcement_points",
        ["scheduler"],
        [],
    )
    assert (boundary.section, boundary.field, boundary.old, boundary.new) == (
        "boundaries",
        "non_promise",
        "No quota.",
        "No quota, no fairness.",
    )


def test_findings_that_appear_and_resolve_are_listed():
    gap = {"kind": "gap", "key": "gap|a/b|api:x|", "severity": "error"}
    fit = {"kind": "fit", "key": "fit|isolation|ok|fine", "severity": "ok"}

    diff = content_diff({"findings": [gap]}, {"findings": [fit]})

    assert [(c.kind, c.item) for c in diff.changes] == [
        ("resolved", gap["key"]),
        ("appeared", fit["key"]),
    ]


def test_an_unanswered_field_stays_unanswered_whatever_empty_value_it_holds():
    diff = content_diff(
        {"profile": {"gpu_model": None, "workload_types": []}},
        {"profile": {"gpu_model": "", "workload_types": None}},
    )

    assert diff.empty


def test_a_first_decision_lists_only_the_fields_it_filled():
    new = {"decision": {"rows": ["a/b"], "pools": {}, "rationale": "why", "risks": ""}}

    diff = content_diff({"decision": None}, new)

    assert [(c.field, c.added) for c in diff.changes] == [("rows", ["a/b"]), ("rationale", [])]


def test_comparing_a_later_revision_with_an_earlier_one_is_refused(filled):
    with pytest.raises(DiffRefused, match="comes after"):
        evaluation_diff(evaluation=filled, old=filled.revision, new=1)


def test_a_revision_that_does_not_exist_is_refused(filled):
    with pytest.raises(DiffRefused, match="no revision 99"):
        evaluation_diff(evaluation=filled, old=1, new=99)


def test_the_default_pair_starts_at_the_last_approval(cast, filled):
    evaluation_submit(evaluation=filled, actor=cast.bob)
    evaluation_review(evaluation=filled, actor=cast.carol, verdict="approve")
    approved = filled.revision
    evaluation_decide(
        evaluation=filled,
        actor=cast.bob,
        rows=["hami/device-plugin", "volcano/scheduler"],
        rationale="Changed after approval.",
    )
    filled = Evaluation.objects.get(pk=filled.pk)

    assert default_pair(filled) == (approved, approved + 1)
