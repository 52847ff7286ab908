"""Every review event reaches the author and the reviewers asked (issue 42 item 2): each
approval (also one of several), a change request, a comment, a review request, each as an inbox
item, an e-mail and a webhook delivery; the reviewers asked are those of the current round."""

from __future__ import annotations

import pytest
from django.core import mail
from django.urls import reverse

from evaluations.approvals.services import (
    approval_policy_set,
    review_request_create,
    review_requests_for,
)
from evaluations.models import Evaluation
from evaluations.notifications.models import Notification, WebhookDelivery
from evaluations.review import comments
from evaluations.review.services import evaluation_review, evaluation_submit
from evaluations.teams.choices import Role
from evaluations.teams.services import membership_set
from tests.evaluations.factories import make_cast, small_catalog, submitted
from tests.factories import make_user

pytestmark = pytest.mark.django_db


@pytest.fixture
def cast(db):
    small_catalog()
    cast = make_cast()
    for person in (cast.alice, cast.bob, cast.carol):
        person.email = f"{person.username}@example.org"
        person.save(update_fields=["email"])
    cast.eve = make_user("eve-reviewer", email="eve@example.org")
    membership_set(team=cast.team, user=cast.eve, role=Role.REVIEWER)
    approval_policy_set(team=cast.team, actor=cast.alice, required_approvals=2, rules=[])
    return cast


def told(event: str) -> set[str]:
    return set(
        Notification.objects.filter(event=event).values_list("recipient__username", flat=True)
    )


def in_review_with_both_asked(cast) -> Evaluation:
    evaluation = submitted(cast)
    review_request_create(evaluation=evaluation, actor=cast.bob, reviewer=cast.carol)
    review_request_create(evaluation=evaluation, actor=cast.bob, reviewer=cast.eve)
    return evaluation


def test_one_approval_of_two_tells_the_author_and_the_other_reviewer_asked(cast):
    evaluation = in_review_with_both_asked(cast)

    evaluation_review(evaluation=evaluation, actor=cast.carol, verdict="approve")

    assert told("approval_recorded") == {"bob-editor", "eve-reviewer"}


def test_the_approval_that_meets_the_policy_tells_the_author_and_the_reviewers_asked(cast):
    evaluation = in_review_with_both_asked(cast)
    evaluation_review(evaluation=evaluation, actor=cast.carol, verdict="approve")

    evaluation_review(evaluation=evaluation, actor=cast.eve, verdict="approve")

    assert told("approved") == {"bob-editor", "carol-reviewer"}


def test_a_reviewers_comment_tells_the_author_and_the_other_reviewer_asked(cast):
    evaluation = in_review_with_both_asked(cast)

    comments.comment_add(evaluation=evaluation, actor=cast.carol, anchor="units", body="MIG?")

    assert told("commented") == {"bob-editor", "eve-reviewer"}


def test_a_change_request_tells_the_other_reviewer_asked(cast):
    evaluation = in_review_with_both_asked(cast)

    evaluation_review(
        evaluation=evaluation, actor=cast.carol, verdict="request_changes", comment="MIG?"
    )

    assert told("changes_requested") == {"bob-editor", "eve-reviewer"}


def test_a_review_request_by_someone_else_tells_the_author_too(
    cast, django_capture_on_commit_callbacks
):
    evaluation = submitted(cast)
    mail.outbox.clear()

    with django_capture_on_commit_callbacks(execute=True):
        review_request_create(evaluation=evaluation, actor=cast.alice, reviewer=cast.eve)

    assert told("review_requested") == {"bob-editor", "eve-reviewer"}
    assert Notification.objects.get(recipient=cast.bob).about == "eve-reviewer"
    bodies = {message.to[0]: message.body for message in mail.outbox}
    assert "alice-admin asks for your review" in bodies["eve@example.org"]
    assert "alice-admin asked eve-reviewer to review" in bodies["bob-editor@example.org"]


def test_a_review_request_goes_to_the_teams_webhook(cast):
    cast.team.webhook_url = "https://hooks.example.org/ecomap"
    cast.team.save(update_fields=["webhook_url"])
    evaluation = submitted(cast)

    review_request_create(evaluation=evaluation, actor=cast.bob, reviewer=cast.eve)

    delivery = WebhookDelivery.objects.get(event="review_requested")
    assert delivery.payload["reviewer"] == "eve-reviewer"
    assert "asked eve-reviewer to review" in delivery.payload["summary"]


def test_one_approval_of_several_is_sent_to_the_webhook(cast):
    cast.team.webhook_url = "https://hooks.example.org/ecomap"
    cast.team.save(update_fields=["webhook_url"])
    evaluation = submitted(cast)

    evaluation_review(evaluation=evaluation, actor=cast.carol, verdict="approve")

    assert WebhookDelivery.objects.filter(event="approval_recorded").exists()


def test_review_requests_of_the_previous_round_are_not_carried_over(client, cast):
    evaluation = in_review_with_both_asked(cast)
    evaluation_review(
        evaluation=evaluation, actor=cast.carol, verdict="request_changes", comment="MIG?"
    )
    evaluation = Evaluation.objects.get(pk=evaluation.pk)

    evaluation = evaluation_submit(evaluation=evaluation, actor=cast.bob)

    assert review_requests_for(evaluation) == []
    client.force_login(cast.bob)
    html = client.get(reverse("evaluations:detail", args=[evaluation.pk])).content.decode()
    assert "Asked:" not in html
    Notification.objects.all().delete()
    comments.comment_add(evaluation=evaluation, actor=cast.carol, anchor="units", body="Again?")
    assert told("commented") == {"bob-editor"}  # eve was asked last round, not this one


def test_the_inbox_names_whom_a_review_was_asked_of(client, cast):
    evaluation = submitted(cast)
    review_request_create(evaluation=evaluation, actor=cast.alice, reviewer=cast.eve)
    client.force_login(cast.bob)

    html = client.get(reverse("inbox:index")).content.decode()

    assert "asked: eve-reviewer" in html
