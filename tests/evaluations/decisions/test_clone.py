"""Cloning: a new draft that starts from another evaluation's placement work, without its
decision, reviews, comments or history."""

from __future__ import annotations

import pytest
from rest_framework.test import APIClient

from evaluations.audit.models import AuditEntry
from evaluations.audit.selectors import evaluation_editors
from evaluations.decisions.cloning import evaluation_clone
from evaluations.decisions.services import evaluation_decide
from evaluations.errors import NotAllowed
from evaluations.inbox.selectors import waiting_for_review
from evaluations.models import Evaluation, State, Step
from evaluations.notifications.services import recipients_for
from evaluations.review.models import Comment
from evaluations.review.services import evaluation_review, evaluation_submit
from evaluations.steps.services import evaluation_step_save
from evaluations.teams.choices import Role
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


# Review independence across clones (issue 28, M1): whoever wrote the source wrote the copy.


def _clone_decided_and_submitted(cast, source, *, actor=None, team=None):
    actor = actor or cast.bob
    copy = evaluation_clone(evaluation=source, actor=actor, team=team)
    evaluation_decide(
        evaluation=copy,
        actor=actor,
        rows=["hami/device-plugin", "volcano/scheduler"],
        rationale="HAMi shares, Volcano governs.",
    )
    return evaluation_submit(evaluation=Evaluation.objects.get(pk=copy.pk), actor=actor)


@pytest.fixture
def written_by_carol(cast):
    """Steps 1–4 written by carol, a reviewer of the team."""
    source = Evaluation.objects.create(title="Carol's work", team=cast.team, created_by=cast.carol)
    return fill_steps(source, cast.carol)


def test_a_reviewer_who_wrote_the_source_cannot_approve_its_clone(cast, written_by_carol):
    copy = _clone_decided_and_submitted(cast, written_by_carol)

    with pytest.raises(NotAllowed):
        evaluation_review(evaluation=copy, actor=cast.carol, verdict="approve")

    assert Evaluation.objects.get(pk=copy.pk).state == State.IN_REVIEW
    assert copy.cloned_from_id == written_by_carol.pk
    assert cast.carol.pk in evaluation_editors(copy)


def test_the_review_api_refuses_the_sources_author_with_403(cast, written_by_carol):
    copy = _clone_decided_and_submitted(cast, written_by_carol)
    client = APIClient()
    client.force_authenticate(cast.carol)

    response = client.post(f"/api/v1/evaluations/{copy.pk}/review/", {"verdict": "approve"})

    assert response.status_code == 403
    assert Evaluation.objects.get(pk=copy.pk).state == State.IN_REVIEW


def test_the_sources_author_is_offered_no_review_and_no_inbox_item(client, cast, written_by_carol):
    copy = _clone_decided_and_submitted(cast, written_by_carol)
    client.force_login(cast.carol)

    page = client.get(f"/evaluations/{copy.pk}/").content.decode()

    assert f'action="/evaluations/{copy.pk}/review/"' not in page
    assert copy not in waiting_for_review(user=cast.carol)
    assert copy in waiting_for_review(user=cast.alice)


def test_a_reviewer_who_wrote_none_of_it_still_approves_the_clone(cast, written_by_carol):
    copy = _clone_decided_and_submitted(cast, written_by_carol)

    approved = evaluation_review(evaluation=copy, actor=cast.alice, verdict="approve")

    assert approved.state == State.APPROVED


def test_a_clone_of_a_clone_carries_every_earlier_author(cast, written_by_carol):
    first = evaluation_clone(evaluation=written_by_carol, actor=cast.bob)
    copy = _clone_decided_and_submitted(cast, first, actor=cast.bob)

    assert {cast.carol.pk, cast.bob.pk} <= evaluation_editors(copy)
    with pytest.raises(NotAllowed):
        evaluation_review(evaluation=copy, actor=cast.carol, verdict="approve")


def test_a_copy_into_another_team_carries_the_authors_too(cast, written_by_carol):
    membership_set(team=cast.other_team, user=cast.bob, role=Role.EDITOR)
    membership_set(team=cast.other_team, user=cast.carol, role=Role.REVIEWER)
    copy = _clone_decided_and_submitted(cast, written_by_carol, team=cast.other_team)

    with pytest.raises(NotAllowed):
        evaluation_review(evaluation=copy, actor=cast.carol, verdict="approve")


def test_the_authors_stay_on_the_clone_when_the_source_is_gone(cast, written_by_carol):
    copy = _clone_decided_and_submitted(cast, written_by_carol)
    Evaluation.objects.filter(pk=written_by_carol.pk).delete()

    copy = Evaluation.objects.get(pk=copy.pk)
    assert copy.cloned_from_id is None
    with pytest.raises(NotAllowed):
        evaluation_review(evaluation=copy, actor=cast.carol, verdict="approve")


def test_the_sources_authors_are_not_told_about_the_clones_verdict(cast, written_by_carol):
    copy = _clone_decided_and_submitted(cast, written_by_carol)

    told = recipients_for(evaluation=copy, actor=cast.alice, event="approved")

    assert told == {cast.bob.pk}
