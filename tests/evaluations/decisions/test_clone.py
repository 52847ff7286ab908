"""Cloning: a new draft that starts from another evaluation's placement work, without its
decision, reviews, comments or history."""

from __future__ import annotations

import pytest

from evaluations.decisions.cloning import evaluation_clone
from evaluations.errors import NotAllowed
from evaluations.models import AuditEntry, Comment, Evaluation, Role, State, Step
from evaluations.review.services import evaluation_review, evaluation_submit
from evaluations.steps.services import evaluation_step_save
from evaluations.teams.services import membership_set
from tests.evaluations.factories import (
    MIXED_PROFILE,
    fill_steps,
    make_cast,
    make_evaluation,
    small_catalog,
)

pytestmark = pytest.mark.django_db


@pytest.fixture
def cast():
    small_catalog()
    return make_cast()


@pytest.fixture
def approved(cast):
    evaluation = fill_steps(make_evaluation(cast, title="Shared inference"), cast.bob)
    evaluation_step_save(
        evaluation=evaluation,
        actor=cast.bob,
        step="candidates",
        data={
            "candidates": [
                {"row": "hami/device-plugin", "points_confirmed": True,
                 "alternative_group": "sharing", "enforcement_points": ["runtime_interception"]},
                {"row": "time-slicer/plugin", "points_confirmed": True,
                 "alternative_group": "sharing"},
                {"row": "volcano/scheduler", "points_confirmed": True},
            ]
        },
    )  # fmt: skip
    evaluation = Evaluation.objects.get(pk=evaluation.pk)
    evaluation_step_save(
        evaluation=evaluation,
        actor=cast.bob,
        step="boundaries",
        data={
            "boundaries": [
                {"row": c.row.ref, "promise": c.boundary_promise,
                 "non_promise": c.boundary_non_promise or "Nothing else."}
                for c in evaluation.candidates.select_related("row__project")
            ]
            + [{"row": "hami/device-plugin", "promise": "Our own words.", "non_promise": "No."}]
        },
    )  # fmt: skip
    evaluation_submit(evaluation=evaluation, actor=cast.bob)
    evaluation = evaluation_review(evaluation=evaluation, actor=cast.carol, verdict="approve")
    Comment.objects.create(
        evaluation=evaluation, author=cast.carol, anchor=Step.UNITS, body="Why MIG?", revision=1
    )
    return evaluation


def _candidates(evaluation):
    return [
        (
            c.row.ref,
            sorted(p.key for p in c.enforcement_points.all()),
            c.points_confirmed,
            c.alternative_group,
            c.promise,
            c.non_promise,
        )
        for c in evaluation.candidates.select_related("row__project").prefetch_related(
            "enforcement_points"
        )
    ]


def test_the_copy_is_a_new_draft_with_the_placement_work(cast, approved):
    copy = evaluation_clone(evaluation=approved, actor=cast.bob)
    assert copy.pk != approved.pk
    assert copy.state == State.DRAFT
    assert copy.title == "Copy of Shared inference"
    assert copy.team == cast.team
    assert copy.created_by == cast.bob
    assert copy.revision == 1
    assert copy.profile == approved.profile == {**approved.profile, **MIXED_PROFILE}
    assert [(u.unit.key, u.note) for u in copy.units.select_related("unit")] == [
        (u.unit.key, u.note) for u in approved.units.select_related("unit")
    ]
    assert _candidates(copy) == _candidates(approved)
    assert ("hami/device-plugin", ["runtime_interception"], True, "sharing",
            "Our own words.", "No.") in _candidates(copy)  # fmt: skip
    assert copy.steps_done == approved.steps_done == 4


def test_the_copy_leaves_decision_reviews_comments_and_history_behind(cast, approved):
    copy = evaluation_clone(evaluation=approved, actor=cast.bob)
    assert not hasattr(Evaluation.objects.get(pk=copy.pk), "decision")
    assert copy.reviews.count() == 0
    assert copy.comments.count() == 0
    assert approved.comments.count() == 1
    assert list(copy.audit.values_list("action", flat=True)) == ["cloned"]


def test_the_audit_says_where_the_copy_came_from(cast, approved):
    copy = evaluation_clone(evaluation=approved, actor=cast.bob)
    entry = AuditEntry.objects.get(evaluation=copy)
    assert entry.actor == cast.bob
    assert entry.changes["cloned_from"]["id"] == approved.pk
    assert entry.changes["cloned_from"]["revision"] == approved.revision


def test_the_source_is_unchanged(cast, approved):
    before = (approved.revision, approved.state, _candidates(approved))
    evaluation_clone(evaluation=approved, actor=cast.bob)
    approved = Evaluation.objects.get(pk=approved.pk)
    assert (approved.revision, approved.state, _candidates(approved)) == before


def test_an_editor_of_two_teams_can_copy_into_the_other(cast, approved):
    membership_set(team=cast.other_team, user=cast.bob, role=Role.EDITOR)
    copy = evaluation_clone(evaluation=approved, actor=cast.bob, team=cast.other_team)
    assert copy.team == cast.other_team
    assert _candidates(copy) == _candidates(approved)


def test_a_viewer_cannot_clone(cast, approved):
    with pytest.raises(NotAllowed):
        evaluation_clone(evaluation=approved, actor=cast.dave)


def test_nobody_copies_into_a_team_where_they_are_not_an_editor(cast, approved):
    membership_set(team=cast.other_team, user=cast.bob, role=Role.VIEWER)
    with pytest.raises(NotAllowed):
        evaluation_clone(evaluation=approved, actor=cast.bob, team=cast.other_team)


def test_an_outsider_cannot_copy_an_evaluation_they_cannot_read(cast, approved):
    with pytest.raises(NotAllowed):
        evaluation_clone(evaluation=approved, actor=cast.charlie, team=cast.other_team)


def test_the_clone_button_makes_the_copy_and_opens_it(client, cast, approved):
    client.force_login(cast.bob)
    page = client.get(f"/evaluations/{approved.pk}/").content.decode()
    assert f'action="/evaluations/{approved.pk}/clone/"' in page
    response = client.post(f"/evaluations/{approved.pk}/clone/", {"team": cast.team.pk})
    copy = Evaluation.objects.exclude(pk=approved.pk).get()
    assert response.status_code == 302
    assert response["Location"] == f"/evaluations/{copy.pk}/"


def test_a_viewer_sees_no_clone_button_and_is_refused(client, cast, approved):
    client.force_login(cast.dave)
    page = client.get(f"/evaluations/{approved.pk}/").content.decode()
    assert "/clone/" not in page
    assert client.post(f"/evaluations/{approved.pk}/clone/").status_code == 403
    assert Evaluation.objects.count() == 1


def test_posting_another_teams_id_is_refused(client, cast, approved):
    client.force_login(cast.bob)
    response = client.post(f"/evaluations/{approved.pk}/clone/", {"team": cast.other_team.pk})
    assert response.status_code == 403
    assert Evaluation.objects.count() == 1


def test_an_outsider_gets_not_found(client, cast, approved):
    client.force_login(cast.charlie)
    assert client.post(f"/evaluations/{approved.pk}/clone/").status_code == 404
