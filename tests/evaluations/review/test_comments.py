"""Review comments anchored to a step or the decision, and which action each page offers whom."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from evaluations import services
from evaluations.errors import InvalidInput
from evaluations.review import comments
from evaluations.review.models import Comment
from evaluations.review.services import evaluation_archive, evaluation_review
from evaluations.teams.services import membership_set
from tests.evaluations.factories import make_cast, make_evaluation, small_catalog, submitted

pytestmark = pytest.mark.django_db


@pytest.fixture
def cast(db):
    small_catalog()
    return make_cast()


def step_page(client, user, evaluation, number: int) -> str:
    client.force_login(user)
    response = client.get(reverse("evaluations:step", args=[evaluation.pk, number]))
    assert response.status_code == 200
    return response.content.decode()


def post_comment(client, user, evaluation, anchor: str, body: str):
    client.force_login(user)
    return client.post(
        reverse("evaluations:comment-add", args=[evaluation.pk]), {"anchor": anchor, "body": body}
    )


def changes_requested(cast, **step_comments):
    evaluation = submitted(cast)
    return evaluation_review(
        evaluation=evaluation,
        actor=cast.carol,
        verdict="request_changes",
        comment="See the steps.",
        step_comments=step_comments,
    )


# ---- adding -------------------------------------------------------------------------------------


def test_a_reviewer_comments_on_a_step_and_it_shows_there(client, cast):
    evaluation = submitted(cast)

    response = post_comment(client, cast.carol, evaluation, "units", "Why not MIG slices?")

    assert response.status_code == 302
    assert response["Location"] == (
        reverse("evaluations:step", args=[evaluation.pk, 2]) + "#comments"
    )
    content = step_page(client, cast.bob, evaluation, 2)
    assert "Why not MIG slices?" in content
    assert "carol-reviewer" in content
    assert f"revision {evaluation.revision}" in content
    assert "Why not MIG slices?" not in step_page(client, cast.bob, evaluation, 1)


def test_a_comment_remembers_the_revision_it_was_made_on(cast):
    evaluation = make_evaluation(cast)

    comment = comments.comment_add(
        evaluation=evaluation, actor=cast.alice, anchor="profile", body="Name the SLO."
    )

    assert (comment.revision, comment.author, comment.resolved_at) == (
        evaluation.revision,
        cast.alice,
        None,
    )


def test_a_viewer_cannot_comment_and_is_not_offered_the_form(client, cast):
    evaluation = submitted(cast)

    response = post_comment(client, cast.dave, evaluation, "units", "Looks fine.")

    assert response.status_code == 403
    assert Comment.objects.count() == 0
    assert 'name="body"' not in step_page(client, cast.dave, evaluation, 2)


def test_another_teams_member_cannot_comment(client, cast):
    evaluation = submitted(cast)

    response = post_comment(client, cast.charlie, evaluation, "units", "Hello")

    assert response.status_code == 404
    assert Comment.objects.count() == 0


def test_an_empty_comment_is_refused_with_a_message(client, cast):
    evaluation = submitted(cast)

    response = post_comment(client, cast.carol, evaluation, "units", "   ")
    page = client.get(response["Location"]).content.decode()

    assert Comment.objects.count() == 0
    assert "Write the comment first." in page


def test_an_unknown_anchor_is_refused(cast):
    evaluation = submitted(cast)

    with pytest.raises(comments.InvalidInput):
        comments.comment_add(evaluation=evaluation, actor=cast.carol, anchor="nowhere", body="x")


def test_an_archived_evaluation_takes_no_more_comments(client, cast):
    evaluation = make_evaluation(cast)
    evaluation_archive(evaluation=evaluation, actor=cast.alice)

    response = post_comment(client, cast.bob, evaluation, "profile", "Too late")

    assert response.status_code == 400
    assert 'name="body"' not in step_page(client, cast.bob, evaluation, 1)


def test_the_decision_page_shows_the_decisions_comments(client, cast):
    evaluation = submitted(cast)
    comments.comment_add(
        evaluation=evaluation, actor=cast.carol, anchor="decision", body="Pin Volcano 1.10."
    )
    client.force_login(cast.bob)

    content = client.get(reverse("evaluations:decision", args=[evaluation.pk])).content.decode()

    assert "Pin Volcano 1.10." in content
    assert 'value="decision"' in content


# ---- a review's comments per step ---------------------------------------------------------------


def test_a_reviews_comment_per_step_is_anchored_to_its_step(client, cast):
    evaluation = changes_requested(cast, units="Why not MIG?", decision="Pin versions.")

    assert set(evaluation.comments.values_list("anchor", "body")) == {
        ("units", "Why not MIG?"),
        ("decision", "Pin versions."),
    }
    assert "Why not MIG?" in step_page(client, cast.bob, evaluation, 2)


def test_the_review_form_turns_its_step_fields_into_comments(client, cast):
    evaluation = submitted(cast)
    client.force_login(cast.carol)

    client.post(
        reverse("evaluations:review", args=[evaluation.pk]),
        {"verdict": "request_changes", "comment_boundaries": "Say who drains the node."},
    )

    comment = Comment.objects.get()
    assert (comment.anchor, comment.author) == ("boundaries", cast.carol)


def test_the_overview_lists_open_comments_per_step(client, cast):
    evaluation = changes_requested(cast, units="Why not MIG?", decision="Pin versions.")
    client.force_login(cast.bob)

    content = client.get(reverse("evaluations:detail", args=[evaluation.pk])).content.decode()

    assert "Open review comments:" in content
    assert reverse("evaluations:step", args=[evaluation.pk, 2]) + "#comments" in content


# ---- resolving ----------------------------------------------------------------------------------


def resolve(client, user, comment):
    client.force_login(user)
    return client.post(
        reverse("evaluations:comment-resolve", args=[comment.evaluation_id, comment.pk])
    )


def test_an_editor_resolves_a_comment_and_it_folds_away(client, cast):
    evaluation = changes_requested(cast, units="Why not MIG?")
    comment = Comment.objects.get()

    response = resolve(client, cast.bob, comment)

    assert response.status_code == 302
    comment.refresh_from_db()
    assert comment.resolved_by == cast.bob and comment.resolved_at is not None
    content = step_page(client, cast.bob, evaluation, 2)
    assert "1 resolved comment" in content
    assert "resolved by bob-editor" in content
    assert 'data-open-count="0"' in content


def test_a_viewer_cannot_resolve_someone_elses_comment(client, cast):
    changes_requested(cast, units="Why not MIG?")
    comment = Comment.objects.get()

    response = resolve(client, cast.dave, comment)

    assert response.status_code == 403
    comment.refresh_from_db()
    assert comment.resolved_at is None


def test_the_author_of_a_comment_may_resolve_it_whatever_their_role_now(client, cast):
    changes_requested(cast, units="Why not MIG?")
    membership_set(team=cast.team, user=cast.carol, role="viewer")
    comment = Comment.objects.get()

    resolve(client, cast.carol, comment)

    comment.refresh_from_db()
    assert comment.resolved_by == cast.carol


def test_resolving_twice_keeps_the_first_resolution(cast):
    changes_requested(cast, units="Why not MIG?")
    comment = Comment.objects.get()

    comments.comment_resolve(comment=comment, actor=cast.bob)
    comments.comment_resolve(comment=comment, actor=cast.alice)

    comment.refresh_from_db()
    assert comment.resolved_by == cast.bob


def test_a_comment_of_another_evaluation_answers_404(client, cast):
    changes_requested(cast, units="Why not MIG?")
    other = make_evaluation(cast, title="Another")
    comment = Comment.objects.get()
    client.force_login(cast.bob)

    response = client.post(reverse("evaluations:comment-resolve", args=[other.pk, comment.pk]))

    assert response.status_code == 404


def test_open_comments_come_first_and_the_resolved_stay_folded(client, cast):
    evaluation = changes_requested(cast, units="First, later resolved")
    comments.comment_add(evaluation=evaluation, actor=cast.carol, anchor="units", body="Second")
    comments.comment_resolve(
        comment=Comment.objects.get(body="First, later resolved"), actor=cast.bob
    )

    content = step_page(client, cast.bob, evaluation, 2)

    assert content.index("Second") < content.index('<details class="comments-resolved">')
    assert content.index('<details class="comments-resolved">') < content.index(
        "First, later resolved"
    )


def test_the_step_page_reads_comments_in_a_fixed_number_of_queries(client, cast):
    evaluation = submitted(cast)
    comments.comment_add(evaluation=evaluation, actor=cast.carol, anchor="units", body="One")
    client.force_login(cast.bob)
    url = reverse("evaluations:step", args=[evaluation.pk, 2])
    with CaptureQueriesContext(connection) as one:
        client.get(url)
    for number in range(10):
        comment = comments.comment_add(
            evaluation=evaluation, actor=cast.alice, anchor="units", body=f"More {number}"
        )
        if number % 2:
            comments.comment_resolve(comment=comment, actor=cast.bob)

    with CaptureQueriesContext(connection) as eleven:
        client.get(url)

    assert len(eleven) == len(one)


def test_the_api_lists_an_evaluations_comments(client, cast):
    changes_requested(cast, units="Why not MIG?")
    client.force_login(cast.bob)
    evaluation = Comment.objects.get().evaluation

    data = client.get(f"/api/v1/evaluations/{evaluation.pk}/").json()

    (comment,) = data["comments"]
    assert comment["anchor"] == "units" and comment["body"] == "Why not MIG?"
    assert comment["author"] == "carol-reviewer" and comment["resolved_at"] is None


# ---- who is offered which button --------------------------------------------------------------


def overview(client, user, evaluation) -> str:
    client.force_login(user)
    return client.get(reverse("evaluations:detail", args=[evaluation.pk])).content.decode()


def offers(content: str, name: str, evaluation) -> bool:
    return f'action="{reverse(name, args=[evaluation.pk])}"' in content


def test_after_requesting_changes_the_reviewer_is_not_offered_submit(client, cast):
    evaluation = changes_requested(cast, units="Why not MIG?")

    content = overview(client, cast.carol, evaluation)

    assert not offers(content, "evaluations:submit", evaluation)
    assert "editors revise it and submit it again" in content
    assert "See the steps." in content  # their review


def test_after_requesting_changes_the_author_is_offered_submit(client, cast):
    evaluation = changes_requested(cast, units="Why not MIG?")

    assert offers(overview(client, cast.bob, evaluation), "evaluations:submit", evaluation)


def test_a_plain_editor_of_the_team_may_submit_a_colleagues_draft(client, cast):
    evaluation = services.evaluation_create(actor=cast.alice, team=cast.team, title="Alice's")

    assert offers(overview(client, cast.bob, evaluation), "evaluations:submit", evaluation)


def test_a_reviewer_who_edited_an_evaluation_may_submit_it(client, cast):
    evaluation = services.evaluation_create(actor=cast.carol, team=cast.team, title="Carol's")

    assert offers(overview(client, cast.carol, evaluation), "evaluations:submit", evaluation)


def test_a_viewer_is_offered_no_action(client, cast):
    evaluation = changes_requested(cast, units="Why not MIG?")

    content = overview(client, cast.dave, evaluation)

    for name in ("submit", "review", "archive"):
        assert not offers(content, f"evaluations:{name}", evaluation)
    assert "Before it can be submitted" not in content


def test_only_an_admin_is_offered_archive(client, cast):
    evaluation = changes_requested(cast, units="Why not MIG?")

    assert offers(overview(client, cast.alice, evaluation), "evaluations:archive", evaluation)
    assert not offers(overview(client, cast.bob, evaluation), "evaluations:archive", evaluation)


def test_in_review_only_a_reviewer_who_did_not_write_it_gets_the_review_form(client, cast):
    evaluation = submitted(cast)

    assert offers(overview(client, cast.carol, evaluation), "evaluations:review", evaluation)
    assert not offers(overview(client, cast.bob, evaluation), "evaluations:review", evaluation)
    assert not offers(overview(client, cast.dave, evaluation), "evaluations:review", evaluation)
    assert not offers(overview(client, cast.carol, evaluation), "evaluations:submit", evaluation)


# ---- requesting changes with comments left on the pages ----------------------------------------


def test_an_open_comment_left_on_a_step_is_enough_to_request_changes(cast):
    evaluation = submitted(cast)
    comments.comment_add(
        evaluation=evaluation, actor=cast.carol, anchor="profile", body="Is 2000 ms right?"
    )

    reviewed = evaluation_review(evaluation=evaluation, actor=cast.carol, verdict="request_changes")

    assert reviewed.state == "changes_requested"


def test_without_any_comment_a_request_for_changes_is_refused(cast):
    evaluation = submitted(cast)
    # Someone else's open comment does not say what this reviewer wants changed.
    comments.comment_add(evaluation=evaluation, actor=cast.bob, anchor="profile", body="FYI")

    with pytest.raises(InvalidInput) as refused:
        evaluation_review(evaluation=evaluation, actor=cast.carol, verdict="request_changes")

    assert "comment" in refused.value.errors
    evaluation.refresh_from_db()
    assert evaluation.state == "in_review"
