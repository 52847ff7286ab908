"""The review workflow: draft → in_review → approved | changes_requested (→ draft) → archived."""

from __future__ import annotations

import pytest

from evaluations import services
from evaluations.decisions.services import evaluation_decide
from evaluations.errors import EditConflict, InvalidInput, InvalidTransition, NotAllowed
from evaluations.models import Evaluation, State
from evaluations.review.models import Review
from evaluations.review.services import evaluation_archive, evaluation_review, evaluation_submit
from evaluations.steps.services import (
    evaluation_candidate_add,
    evaluation_step_save,
    profile_missing,
)
from tests.evaluations.factories import (
    MIXED_PROFILE,
    fill_steps,
    make_cast,
    make_evaluation,
    small_catalog,
    submitted,
)

pytestmark = pytest.mark.django_db


@pytest.fixture
def cast(db):
    small_catalog()
    return make_cast()


def test_a_new_evaluation_is_a_draft_with_no_step_done(cast):
    evaluation = make_evaluation(cast)

    assert evaluation.state == State.DRAFT
    assert evaluation.steps_done == 0
    assert evaluation.created_by == cast.bob


def test_a_complete_profile_marks_step_one_done(cast):
    evaluation = make_evaluation(cast)

    evaluation_step_save(evaluation=evaluation, actor=cast.bob, step="profile", data=MIXED_PROFILE)

    evaluation.refresh_from_db()
    assert evaluation.profile_done
    assert evaluation.profile["p99_target_ms"] == 200


def test_a_partial_profile_saves_but_stays_undone(cast):
    evaluation = make_evaluation(cast)

    evaluation_step_save(
        evaluation=evaluation, actor=cast.bob, step="profile", data={"tenancy": "multi"}
    )

    evaluation.refresh_from_db()
    assert evaluation.profile["tenancy"] == "multi"
    assert not evaluation.profile_done
    assert "workload_types" in profile_missing(evaluation.profile)


def test_an_invalid_profile_is_refused_with_the_field_named(cast):
    evaluation = make_evaluation(cast)

    with pytest.raises(InvalidInput) as refused:
        evaluation_step_save(
            evaluation=evaluation, actor=cast.bob, step="profile", data={"isolation": "total"}
        )

    assert "isolation" in refused.value.errors


def test_a_p99_objective_without_a_target_is_not_done(cast):
    evaluation = make_evaluation(cast)
    profile = {**MIXED_PROFILE, "p99_target_ms": None}

    evaluation_step_save(evaluation=evaluation, actor=cast.bob, step="profile", data=profile)

    evaluation.refresh_from_db()
    assert not evaluation.profile_done
    assert profile_missing(evaluation.profile) == ["p99_target_ms"]


def test_candidates_are_prefilled_with_the_catalog_enforcement_points(cast):
    evaluation = make_evaluation(cast)

    evaluation_step_save(
        evaluation=evaluation,
        actor=cast.bob,
        step="candidates",
        data={"candidates": [{"row": "volcano/scheduler"}]},
    )

    candidate = evaluation.candidates.get()
    assert sorted(p.key for p in candidate.enforcement_points.all()) == ["admission", "scheduler"]
    assert not candidate.points_confirmed


def test_an_unknown_candidate_row_is_refused(cast):
    evaluation = make_evaluation(cast)

    with pytest.raises(InvalidInput, match="no-such/row"):
        evaluation_step_save(
            evaluation=evaluation,
            actor=cast.bob,
            step="candidates",
            data={"candidates": [{"row": "no-such/row"}]},
        )


def test_boundaries_are_prefilled_from_the_catalog_and_stored_only_when_edited(cast):
    evaluation = fill_steps(make_evaluation(cast), cast.bob)
    hami = evaluation.candidates.get(row__project__slug="hami")

    assert hami.promise == ""
    assert hami.boundary_non_promise == "Does not decide who may use GPUs."

    evaluation_step_save(
        evaluation=evaluation,
        actor=cast.bob,
        step="boundaries",
        data={
            "boundaries": [
                {"row": "hami/device-plugin", "promise": hami.row.promise, "non_promise": "Nope."}
            ]
        },
    )
    hami.refresh_from_db()
    assert hami.promise == ""
    assert hami.non_promise == "Nope."


def test_a_complete_evaluation_can_be_submitted_for_review(cast):
    evaluation = submitted(cast)

    assert evaluation.state == State.IN_REVIEW


def test_an_incomplete_evaluation_cannot_be_submitted(cast):
    evaluation = make_evaluation(cast)

    with pytest.raises(InvalidInput, match="Finish these"):
        evaluation_submit(evaluation=evaluation, actor=cast.bob)

    evaluation.refresh_from_db()
    assert evaluation.state == State.DRAFT


def test_a_reviewer_approves_an_evaluation_in_review(cast):
    evaluation = submitted(cast)

    evaluation_review(evaluation=evaluation, actor=cast.carol, verdict="approve")

    evaluation.refresh_from_db()
    assert evaluation.state == State.APPROVED
    assert Review.objects.get(evaluation=evaluation).revision == evaluation.revision


def test_requested_changes_carry_comments_per_step(cast):
    evaluation = submitted(cast)

    evaluation_review(
        evaluation=evaluation,
        actor=cast.carol,
        verdict="request_changes",
        step_comments={"units": "Consider MIG slices too.", "bogus": "ignored"},
    )

    evaluation.refresh_from_db()
    assert evaluation.state == State.CHANGES_REQUESTED
    assert Review.objects.get().step_comments == {"units": "Consider MIG slices too."}


def test_requesting_changes_needs_a_comment(cast):
    evaluation = submitted(cast)

    with pytest.raises(InvalidInput):
        evaluation_review(evaluation=evaluation, actor=cast.carol, verdict="request_changes")


def test_editing_after_changes_were_requested_returns_the_evaluation_to_draft(cast):
    evaluation = submitted(cast)
    evaluation_review(
        evaluation=evaluation, actor=cast.carol, verdict="request_changes", comment="MIG?"
    )

    evaluation_step_save(
        evaluation=evaluation,
        actor=cast.bob,
        step="units",
        data={"units": ["memory_compute_quota", "mig_slice"]},
    )

    evaluation.refresh_from_db()
    assert evaluation.state == State.DRAFT
    evaluation_submit(evaluation=evaluation, actor=cast.bob)
    evaluation.refresh_from_db()
    assert evaluation.state == State.IN_REVIEW


def test_editing_an_approved_evaluation_needs_approval_again(cast):
    evaluation = submitted(cast)
    evaluation_review(evaluation=evaluation, actor=cast.carol, verdict="approve")

    evaluation_decide(
        evaluation=evaluation,
        actor=cast.bob,
        rows=["hami/device-plugin", "volcano/scheduler"],
        rationale="A better reason.",
    )

    evaluation.refresh_from_db()
    assert evaluation.state == State.DRAFT
    entry = evaluation.audit.first()
    assert (entry.state_from, entry.state_to) == ("approved", "draft")
    assert "approval" in entry.changes


def test_an_evaluation_in_review_cannot_be_edited(cast):
    evaluation = submitted(cast)

    with pytest.raises(InvalidTransition):
        evaluation_step_save(
            evaluation=evaluation, actor=cast.bob, step="units", data={"units": ["whole_gpu"]}
        )


def test_a_draft_cannot_be_approved(cast):
    evaluation = fill_steps(make_evaluation(cast), cast.bob)

    with pytest.raises(InvalidTransition):
        evaluation_review(evaluation=evaluation, actor=cast.carol, verdict="approve")


def test_an_author_cannot_approve_their_own_evaluation_even_as_admin(cast):
    evaluation = services.evaluation_create(actor=cast.alice, team=cast.team, title="Mine")
    evaluation = fill_steps(evaluation, cast.alice)
    evaluation_submit(evaluation=evaluation, actor=cast.alice)

    with pytest.raises(NotAllowed, match="own evaluation"):
        evaluation_review(evaluation=evaluation, actor=cast.alice, verdict="approve")


def test_an_admin_archives_an_approved_evaluation_and_it_is_frozen(cast):
    evaluation = submitted(cast)
    evaluation_review(evaluation=evaluation, actor=cast.carol, verdict="approve")

    evaluation_archive(evaluation=evaluation, actor=cast.alice)

    evaluation.refresh_from_db()
    assert evaluation.state == State.ARCHIVED
    with pytest.raises(InvalidTransition):
        evaluation_step_save(
            evaluation=evaluation, actor=cast.bob, step="units", data={"units": ["whole_gpu"]}
        )


def test_an_editor_cannot_archive(cast):
    evaluation = make_evaluation(cast)

    with pytest.raises(NotAllowed):
        evaluation_archive(evaluation=evaluation, actor=cast.bob)


def test_a_decision_with_a_pool_naming_a_row_outside_the_stack_is_refused(cast):
    evaluation = make_evaluation(cast)

    with pytest.raises(InvalidInput):
        evaluation_decide(
            evaluation=evaluation,
            actor=cast.bob,
            rows=["hami/device-plugin"],
            pools={"shared": ["volcano/scheduler"]},
        )


def test_a_save_that_changes_nothing_keeps_the_revision(cast):
    evaluation = make_evaluation(cast)
    evaluation_step_save(evaluation=evaluation, actor=cast.bob, step="profile", data=MIXED_PROFILE)
    revision = Evaluation.objects.get(pk=evaluation.pk).revision

    evaluation_step_save(evaluation=evaluation, actor=cast.bob, step="profile", data=MIXED_PROFILE)

    assert Evaluation.objects.get(pk=evaluation.pk).revision == revision


def test_a_reviewer_who_edited_a_step_cannot_approve_it(cast):
    evaluation = fill_steps(make_evaluation(cast), cast.bob)
    # alice (admin, so also a reviewer) writes part of the content: the decision.
    evaluation_decide(
        evaluation=evaluation, actor=cast.alice, rows=["hami/device-plugin"], rationale="mine"
    )
    evaluation_submit(evaluation=evaluation, actor=cast.bob)

    with pytest.raises(NotAllowed, match="You edited this evaluation"):
        evaluation_review(evaluation=evaluation, actor=cast.alice, verdict="approve")
    approved = evaluation_review(evaluation=evaluation, actor=cast.carol, verdict="approve")
    assert approved.state == "approved"


def test_an_editor_who_reviews_may_still_ask_for_changes(cast):
    evaluation = fill_steps(make_evaluation(cast), cast.bob)
    evaluation_decide(
        evaluation=evaluation, actor=cast.alice, rows=["hami/device-plugin"], rationale="mine"
    )
    evaluation_submit(evaluation=evaluation, actor=cast.bob)

    changed = evaluation_review(
        evaluation=evaluation, actor=cast.alice, verdict="request_changes", comment="pools?"
    )
    assert changed.state == "changes_requested"


def test_a_save_made_on_an_older_revision_is_a_conflict_not_an_overwrite(cast):
    evaluation = make_evaluation(cast)
    loaded = Evaluation.objects.get(pk=evaluation.pk).revision
    evaluation_step_save(
        evaluation=evaluation, actor=cast.bob, step="profile", data={"tenancy": "multi"},
        revision=loaded,
    )  # fmt: skip

    with pytest.raises(EditConflict, match="bob-editor saved this evaluation") as conflict:
        evaluation_step_save(
            evaluation=evaluation, actor=cast.alice, step="profile",
            data={"isolation": "hard"}, revision=loaded,
        )  # fmt: skip

    assert conflict.value.status == 409
    assert conflict.value.current_revision == loaded + 1
    assert Evaluation.objects.get(pk=evaluation.pk).profile.get("isolation") is None


def test_two_editors_adding_candidates_both_keep_theirs(cast):
    evaluation = make_evaluation(cast)
    stale = Evaluation.objects.get(pk=evaluation.pk)

    evaluation_candidate_add(evaluation=evaluation, actor=cast.bob, row="hami/device-plugin")
    evaluation_candidate_add(evaluation=stale, actor=cast.alice, row="volcano/scheduler")

    refs = sorted(c.row.ref for c in Evaluation.objects.get(pk=evaluation.pk).candidates.all())
    assert refs == ["hami/device-plugin", "volcano/scheduler"]


def test_ones_own_newer_saves_are_no_conflict(cast):
    evaluation = make_evaluation(cast)
    loaded = Evaluation.objects.get(pk=evaluation.pk).revision
    evaluation_step_save(  # an autosave that lands first
        evaluation=evaluation, actor=cast.bob, step="profile", data={"tenancy": "multi"},
        revision=loaded,
    )  # fmt: skip

    evaluation_step_save(  # the button press made on the page before the autosave
        evaluation=evaluation, actor=cast.bob, step="profile",
        data={"tenancy": "multi", "isolation": "hard"}, revision=loaded,
    )  # fmt: skip

    assert Evaluation.objects.get(pk=evaluation.pk).profile["isolation"] == "hard"
