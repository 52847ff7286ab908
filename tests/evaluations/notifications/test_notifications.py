"""Review notifications: who is told about a submission, a review or a comment, the e-mail each
one gets (once), and the team webhook (signed, retried, swept)."""

from __future__ import annotations

import hashlib
import hmac
import json
from datetime import timedelta

import pytest
from django.conf import settings
from django.core import mail
from django.core.mail.backends.base import BaseEmailBackend
from django.db import transaction
from django.test import override_settings
from django.utils import timezone

from evaluations.decisions.services import evaluation_decide
from evaluations.errors import InvalidInput
from evaluations.notifications.mail import notification_email_send
from evaluations.notifications.models import Notification, WebhookDelivery
from evaluations.notifications.webhooks import MAX_ATTEMPTS, webhook_deliver
from evaluations.recovery import jobs_recover
from evaluations.review import comments
from evaluations.review.services import evaluation_review, evaluation_submit
from evaluations.teams.choices import Role
from evaluations.teams.services import membership_set, team_webhook_set
from tests.evaluations.factories import (
    fill_steps,
    make_cast,
    make_evaluation,
    small_catalog,
    submitted,
)
from tests.evaluations.notifications.webhook_receiver import webhook_receiver
from tests.factories import make_user

pytestmark = pytest.mark.django_db

SECRET = "team-webhook-secret"


@pytest.fixture
def cast(db):
    small_catalog()
    cast = make_cast()
    for person in (cast.alice, cast.bob, cast.carol, cast.dave):
        person.email = f"{person.username}@example.org"
        person.save(update_fields=["email"])
    return cast


def told(event: str = "") -> set[str]:
    notifications = Notification.objects.all()
    if event:
        notifications = notifications.filter(event=event)
    return set(notifications.values_list("recipient__username", flat=True))


def request_changes(evaluation, reviewer, **step_comments):
    return evaluation_review(
        evaluation=evaluation,
        actor=reviewer,
        verdict="request_changes",
        comment="Please look again.",
        step_comments=step_comments,
    )


# ---- who is told --------------------------------------------------------------------------------


def test_a_submission_tells_the_teams_reviewers_and_admins_but_not_the_author(cast):
    submitted(cast)

    assert told("submitted") == {"alice-admin", "carol-reviewer"}
    assert Notification.objects.get(recipient=cast.carol).actor == cast.bob


def test_a_change_request_tells_the_author_and_everyone_who_edited_it(cast):
    evaluation = fill_steps(make_evaluation(cast), cast.bob)
    evaluation_decide(
        evaluation=evaluation, actor=cast.alice, rows=["hami/device-plugin"], rationale="Alone."
    )
    evaluation = evaluation_submit(evaluation=evaluation, actor=cast.bob)

    request_changes(evaluation, cast.carol)

    assert told("changes_requested") == {"bob-editor", "alice-admin"}


def test_an_approval_tells_the_editors_not_the_reviewer_who_gave_it(cast):
    evaluation = submitted(cast)

    evaluation_review(evaluation=evaluation, actor=cast.carol, verdict="approve")

    assert told("approved") == {"bob-editor"}
    assert Notification.objects.get(event="approved").revision == evaluation.revision


def test_someone_who_left_the_team_is_no_longer_told(cast):
    evaluation = submitted(cast)
    cast.team.memberships.filter(user=cast.bob).delete()

    evaluation_review(evaluation=evaluation, actor=cast.carol, verdict="approve")

    assert told("approved") == set()


def test_a_reviewers_comment_tells_the_editors(cast):
    evaluation = submitted(cast)

    comments.comment_add(
        evaluation=evaluation, actor=cast.carol, anchor="units", body="Why not MIG?"
    )

    assert told("commented") == {"bob-editor"}


def test_an_editors_reply_tells_the_reviewers_taking_part(cast):
    evaluation = submitted(cast)
    request_changes(evaluation, cast.carol, units="Why not MIG?")
    Notification.objects.all().delete()

    comments.comment_add(
        evaluation=evaluation, actor=cast.bob, anchor="units", body="MIG needs a drain."
    )

    assert told() == {"carol-reviewer"}


def test_an_editors_note_on_a_draft_nobody_reviews_yet_tells_nobody(cast):
    evaluation = make_evaluation(cast)

    comments.comment_add(
        evaluation=evaluation, actor=cast.bob, anchor="profile", body="Ask the SRE team."
    )

    assert told() == set()


def test_an_editors_comment_in_review_tells_the_reviewers_before_any_has_spoken(cast):
    evaluation = submitted(cast)
    Notification.objects.all().delete()

    comments.comment_add(
        evaluation=evaluation, actor=cast.bob, anchor="decision", body="Volcano is pinned."
    )

    assert told("commented") == {"alice-admin", "carol-reviewer"}


def test_a_reviews_comments_per_step_come_with_the_review_not_as_extra_notifications(cast):
    evaluation = submitted(cast)

    request_changes(evaluation, cast.carol, units="Why not MIG?", decision="Pin versions.")

    assert list(
        Notification.objects.filter(recipient=cast.bob).values_list("event", flat=True)
    ) == ["changes_requested"]


def test_nothing_is_announced_for_a_change_that_rolls_back(cast):
    evaluation = fill_steps(make_evaluation(cast), cast.bob)

    with pytest.raises(RuntimeError), transaction.atomic():
        evaluation_submit(evaluation=evaluation, actor=cast.bob)
        raise RuntimeError("the request failed after the submission")

    assert Notification.objects.count() == 0


# ---- e-mail -------------------------------------------------------------------------------------


def test_each_recipient_gets_one_email_after_commit_with_a_link(
    cast, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        evaluation = submitted(cast)

    assert sorted(message.to[0] for message in mail.outbox) == [
        "alice-admin@example.org",
        "carol-reviewer@example.org",
    ]
    message = mail.outbox[0]
    assert "GPU sharing for 2027" in message.subject
    assert "bob-editor" in message.subject
    assert f"{settings.SITE_URL}/evaluations/{evaluation.pk}/" in message.body
    assert not Notification.objects.filter(emailed_at__isnull=True).exists()


def test_a_change_request_email_says_what_to_change_and_links_each_step(
    cast, django_capture_on_commit_callbacks
):
    evaluation = submitted(cast)
    with django_capture_on_commit_callbacks(execute=True):
        request_changes(evaluation, cast.carol, units="Why not MIG?")

    (message,) = mail.outbox
    assert message.to == ["bob-editor@example.org"]
    assert "requested changes" in message.subject
    assert "Please look again." in message.body
    assert "Resource units: Why not MIG?" in message.body
    assert f"{settings.SITE_URL}/evaluations/{evaluation.pk}/steps/2/" in message.body


def test_a_comment_email_quotes_the_comment(cast, django_capture_on_commit_callbacks):
    evaluation = submitted(cast)
    with django_capture_on_commit_callbacks(execute=True):
        comments.comment_add(
            evaluation=evaluation, actor=cast.carol, anchor="decision", body="Pin Volcano."
        )

    (message,) = mail.outbox
    assert "Decision: Pin Volcano." in message.body
    assert f"/evaluations/{evaluation.pk}/decision/" in message.body


def test_no_email_leaves_before_the_transaction_commits(cast, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=False) as waiting:
        submitted(cast)

    assert mail.outbox == []
    assert waiting  # the jobs are published once the submission is committed


@pytest.mark.parametrize(
    "title",
    ["Two\nlines", "Carriage\rreturn", "Both\r\nBcc: eve@example.org", "Sep\u2028arated\x0b"],
)
def test_a_title_with_a_line_break_still_makes_a_one_line_subject(cast, title):
    evaluation = make_evaluation(cast, title=title)
    fill_steps(evaluation, cast.bob)
    evaluation_submit(evaluation=evaluation, actor=cast.bob)
    notification = Notification.objects.get(recipient=cast.carol)

    assert notification_email_send(notification_id=notification.pk) is True

    (message,) = mail.outbox
    assert not {"\n", "\r", "\u2028", "\x0b"} & set(message.subject)
    assert " ".join(evaluation.title.split()) in message.subject
    assert message.message()["Bcc"] is None
    assert message.recipients() == ["carol-reviewer@example.org"]
    assert evaluation.title in message.body  # the body keeps the title as written


def test_a_notification_is_emailed_once_however_often_its_job_runs(cast):
    submitted(cast)
    notification = Notification.objects.get(recipient=cast.carol)

    first = notification_email_send(notification_id=notification.pk)
    second = notification_email_send(notification_id=notification.pk)

    assert (first, second) == (True, False)
    assert len(mail.outbox) == 1


def test_someone_without_an_address_gets_the_inbox_item_but_no_email(cast):
    cast.carol.email = ""
    cast.carol.save(update_fields=["email"])
    submitted(cast)
    notification = Notification.objects.get(recipient=cast.carol)

    assert notification_email_send(notification_id=notification.pk) is False
    assert mail.outbox == []


class RefusingBackend(BaseEmailBackend):
    def send_messages(self, email_messages):
        raise ConnectionRefusedError("the mail server is down")


def test_a_send_that_fails_gives_the_claim_back_for_the_retry(cast, settings):
    submitted(cast)
    notification = Notification.objects.get(recipient=cast.carol)
    settings.EMAIL_BACKEND = f"{__name__}.RefusingBackend"

    with pytest.raises(ConnectionRefusedError):
        notification_email_send(notification_id=notification.pk)

    notification.refresh_from_db()
    assert notification.emailed_at is None


# ---- webhook ------------------------------------------------------------------------------------


def with_webhook(cast, url: str) -> None:
    cast.team.webhook_url = url
    cast.team.webhook_secret = SECRET
    cast.team.save(update_fields=["webhook_url", "webhook_secret"])


def test_without_a_webhook_url_no_delivery_is_made(cast):
    submitted(cast)

    assert WebhookDelivery.objects.count() == 0


def test_an_event_makes_one_delivery_with_the_evaluation_and_a_one_line_text(cast):
    with_webhook(cast, "https://hooks.example.org/ecomap")

    evaluation = submitted(cast)

    delivery = WebhookDelivery.objects.get()
    assert (delivery.event, delivery.status, delivery.url) == (
        "submitted",
        "pending",
        "https://hooks.example.org/ecomap",
    )
    payload = delivery.payload
    assert payload["evaluation"] == {
        "id": evaluation.pk,
        "title": "GPU sharing for 2027",
        "state": "in_review",
        "revision": evaluation.revision,
        "url": f"{settings.SITE_URL}/evaluations/{evaluation.pk}/",
    }
    assert (payload["team"], payload["actor"]) == ("platform", "bob-editor")
    assert "\n" not in payload["text"]
    assert payload["text"].endswith(
        f"<{settings.SITE_URL}/evaluations/{evaluation.pk}/|Open in EcoMap>"
    )


def test_a_comment_delivery_links_to_the_step_it_is_on(cast):
    with_webhook(cast, "https://hooks.example.org/ecomap")
    evaluation = submitted(cast)

    comment = comments.comment_add(
        evaluation=evaluation, actor=cast.carol, anchor="units", body="Why not <MIG> & MPS?"
    )

    payload = WebhookDelivery.objects.get(event="commented").payload
    assert payload["evaluation"]["url"].endswith(f"/evaluations/{evaluation.pk}/steps/2/")
    assert payload["comment"] == {"id": comment.pk, "anchor": "units", "body": comment.body}


def test_a_delivery_is_posted_signed_and_marked_delivered(cast):
    with webhook_receiver(200) as receiver:
        with_webhook(cast, receiver.url)
        submitted(cast)
        delivery = WebhookDelivery.objects.get()

        attempt = webhook_deliver(delivery_id=delivery.pk)

    assert attempt.status == "delivered"
    (request,) = receiver.requests
    timestamp = request.headers["X-EcoMap-Timestamp"]
    signed = timestamp.encode() + b"." + request.body
    expected = hmac.new(SECRET.encode(), signed, hashlib.sha256).hexdigest()
    assert request.headers["X-EcoMap-Signature"] == f"sha256={expected}"
    assert request.headers["X-EcoMap-Event"] == "submitted"
    body = json.loads(request.body)
    assert body["event"] == "submitted" and body["sent_at"]
    delivery.refresh_from_db()
    assert (delivery.status, delivery.attempts, delivery.response_status) == ("delivered", 1, 200)


def attempts_until_done(delivery: WebhookDelivery) -> list:
    """Attempt the delivery until it stops asking for a retry, each retry once its wait is over
    (the clock is moved, not waited for)."""
    outcomes = []
    while True:
        outcome = webhook_deliver(delivery_id=delivery.pk)
        if outcome is not None:
            outcomes.append(outcome)
        if outcome is None or outcome.retry_in is None:
            return outcomes
        assert webhook_deliver(delivery_id=delivery.pk) is None  # too early: the wait is kept
        past = timezone.now() - timedelta(seconds=outcome.retry_in)
        WebhookDelivery.objects.filter(pk=delivery.pk).update(heartbeat_at=past)


def test_a_failing_endpoint_is_retried_with_backoff_then_marked_failed(cast):
    with webhook_receiver(500) as receiver:
        with_webhook(cast, receiver.url)
        submitted(cast)
        outcomes = attempts_until_done(WebhookDelivery.objects.get())

    assert [outcome.retry_in for outcome in outcomes] == [5, 10, 20, 40, None]
    assert len(receiver.requests) == MAX_ATTEMPTS == 5
    delivery = WebhookDelivery.objects.get()
    assert (delivery.status, delivery.attempts, delivery.response_status) == ("failed", 5, 500)
    assert delivery.last_error.startswith("HTTP 500")
    assert delivery.finished_at is not None


def test_an_endpoint_that_recovers_gets_the_event_on_a_later_attempt(cast):
    with webhook_receiver(503, 503, 202) as receiver:
        with_webhook(cast, receiver.url)
        submitted(cast)
        attempts_until_done(WebhookDelivery.objects.get())

    delivery = WebhookDelivery.objects.get()
    assert (delivery.status, delivery.attempts, delivery.last_error) == ("delivered", 3, "")
    assert len({request.headers["X-EcoMap-Delivery"] for request in receiver.requests}) == 1


def test_after_commit_the_first_attempt_is_made_by_the_job(
    cast, django_capture_on_commit_callbacks
):
    with webhook_receiver(204) as receiver:
        with_webhook(cast, receiver.url)
        with django_capture_on_commit_callbacks(execute=True):
            submitted(cast)

    assert len(receiver.requests) == 1
    assert WebhookDelivery.objects.get().status == "delivered"


def test_a_redirect_is_not_followed(cast):
    with webhook_receiver(302, location="http://127.0.0.1:9/elsewhere") as receiver:
        with_webhook(cast, receiver.url)
        submitted(cast)
        attempt = webhook_deliver(delivery_id=WebhookDelivery.objects.get().pk)

    # Not retried either (issue 41): a redirect is the receiver's setup, not a passing fault.
    assert (attempt.status, attempt.retry_in) == ("failed", None)
    assert len(receiver.requests) == 1
    assert WebhookDelivery.objects.get().last_error.startswith("Redirect not followed: HTTP 302")


def test_a_delivered_event_is_never_sent_again(cast):
    with webhook_receiver(200) as receiver:
        with_webhook(cast, receiver.url)
        submitted(cast)
        delivery = WebhookDelivery.objects.get()
        webhook_deliver(delivery_id=delivery.pk)

        again = webhook_deliver(delivery_id=delivery.pk)

    assert again is None and len(receiver.requests) == 1


# ---- recovery -----------------------------------------------------------------------------------

LONG_AGO = timedelta(minutes=30)


def test_the_sweep_publishes_a_delivery_whose_message_was_lost(
    cast, django_capture_on_commit_callbacks
):
    with_webhook(cast, "https://hooks.example.org/ecomap")
    submitted(cast)  # its message is never run here: as if the broker had lost it
    WebhookDelivery.objects.update(created_at=timezone.now() - LONG_AGO)

    with django_capture_on_commit_callbacks() as sent:
        done = jobs_recover()

    assert done["webhooks"] == {"republished": 1, "rerun": 0, "failed": 0}
    assert len(sent) == 1


def test_the_sweep_leaves_a_delivery_waiting_for_its_retry(
    cast, django_capture_on_commit_callbacks
):
    with_webhook(cast, "https://hooks.example.org/ecomap")
    submitted(cast)
    WebhookDelivery.objects.update(
        created_at=timezone.now() - LONG_AGO, attempts=2, heartbeat_at=timezone.now()
    )

    with django_capture_on_commit_callbacks() as sent:
        done = jobs_recover()

    assert done["webhooks"]["republished"] == 0 and sent == []


def test_the_sweep_fails_a_delivery_whose_worker_died_on_its_last_attempt(cast):
    with_webhook(cast, "https://hooks.example.org/ecomap")
    submitted(cast)
    WebhookDelivery.objects.update(
        status="running", attempts=MAX_ATTEMPTS, started_at=timezone.now() - LONG_AGO
    )

    done = jobs_recover()

    assert done["webhooks"]["failed"] == 1
    delivery = WebhookDelivery.objects.get()
    assert delivery.status == "failed" and "stopped 5 times" in delivery.last_error


def test_a_new_member_is_told_of_submissions_once_they_review(cast):
    erin = make_user("erin", email="erin@example.org")
    membership_set(team=cast.team, user=erin, role=Role.REVIEWER)

    submitted(cast)

    assert "erin" in told("submitted")


def test_an_email_lost_with_the_broker_is_sent_by_the_sweep_once(
    cast, django_capture_on_commit_callbacks
):
    # The submission commits, but its e-mail jobs never reach a worker.
    with django_capture_on_commit_callbacks(execute=False):
        submitted(cast)
    assert mail.outbox == []
    later = timezone.now() + timedelta(minutes=5)

    with django_capture_on_commit_callbacks(execute=True):
        done = jobs_recover(now=later)

    reviewers = {"alice-admin@example.org", "carol-reviewer@example.org"}
    assert done["emails"] == {"republished": len(reviewers)}
    assert {address for message in mail.outbox for address in message.to} == reviewers
    with django_capture_on_commit_callbacks(execute=True):
        assert jobs_recover(now=later)["emails"] == {"republished": 0}
    # Past the sweep's window an unsent e-mail is left alone (the inbox item stays).
    Notification.objects.update(emailed_at=None)
    with django_capture_on_commit_callbacks(execute=False) as sent:
        assert jobs_recover(now=later + timedelta(days=1))["emails"] == {"republished": 0}
    assert sent == []


# ---- internal addresses -------------------------------------------------------------------------


@override_settings(TEAM_WEBHOOK_ALLOW_PRIVATE=False)
def test_a_delivery_to_an_internal_address_is_refused_without_a_request(cast):
    # In production a team's webhook must not make EcoMap call into its own network.
    with webhook_receiver(200) as receiver:
        with_webhook(cast, receiver.url)  # http://127.0.0.1:PORT/…, as a rebinding name would
        submitted(cast)
        delivery = WebhookDelivery.objects.get()

        attempt = webhook_deliver(delivery_id=delivery.pk)

    assert attempt.status == "failed" and attempt.retry_in is None
    assert receiver.requests == []
    delivery.refresh_from_db()
    assert "internal address 127.0.0.1" in delivery.last_error


@override_settings(TEAM_WEBHOOK_ALLOW_PRIVATE=False)
@pytest.mark.parametrize(
    "url",
    ["https://10.0.0.5/hook", "https://169.254.169.254/latest/meta-data", "https://[::1]/x"],
)
def test_an_internal_address_cannot_be_saved_as_a_webhook(cast, url):
    with pytest.raises(InvalidInput) as refused:
        team_webhook_set(team=cast.team, actor=cast.alice, url=url, secret=SECRET)

    assert "internal addresses" in str(refused.value.errors)
    cast.team.refresh_from_db()
    assert cast.team.webhook_url == ""
