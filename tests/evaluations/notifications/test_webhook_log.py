"""Webhooks you can see (issue 32 item 4): the team's delivery log with status, response code,
attempts and next retry; a test event; re-send; Slack-compatible and Feishu/Lark bodies next to
the signed generic JSON. Deliveries go to a real HTTP receiver on 127.0.0.1."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
from datetime import timedelta

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from evaluations.errors import NotAllowed
from evaluations.notifications.log import webhook_resend, webhook_test_send
from evaluations.notifications.models import WebhookDelivery
from evaluations.notifications.webhooks import MAX_ATTEMPTS, webhook_deliver
from evaluations.teams.services import team_webhook_set
from tests.evaluations.factories import make_cast, small_catalog, submitted
from tests.evaluations.notifications.webhook_receiver import webhook_receiver

pytestmark = pytest.mark.django_db

SECRET = "team-webhook-secret-32"


@pytest.fixture
def cast(settings):
    # Plain http to this machine, as in development: the receiver is a local HTTP server.
    settings.TEAM_WEBHOOK_ALLOW_LOCAL_HTTP = True
    small_catalog()
    return make_cast()


def _hook(cast, url: str, format: str = "generic") -> None:
    team_webhook_set(team=cast.team, actor=cast.alice, url=url, secret=SECRET, format=format)
    cast.team.refresh_from_db()


def _after_backoff(delivery_id: int) -> None:
    """Let the backoff pass (the worker would wait for it; the test moves the clock back)."""
    earlier = timezone.now() - timedelta(minutes=5)
    WebhookDelivery.objects.filter(pk=delivery_id).update(heartbeat_at=earlier)


def _log(cast) -> str:
    client = Client()
    client.force_login(cast.alice)
    response = client.get(reverse("teams:webhook-log", args=[cast.team.slug]))
    assert response.status_code == 200
    return response.content.decode()


def _row(page: str, delivery: WebhookDelivery) -> str:
    start = page.index(f'data-delivery="{delivery.pk}"')
    return page[start : page.index("</tr>", start)]


def test_the_log_shows_a_failed_and_a_retried_delivery(cast):
    with webhook_receiver(503, 200) as flaky:
        _hook(cast, flaky.url)
        submitted(cast)
        retried = WebhookDelivery.objects.get()
        first = webhook_deliver(delivery_id=retried.pk)
        waiting = _row(_log(cast), retried)
        _after_backoff(retried.pk)
        webhook_deliver(delivery_id=retried.pk)
    with webhook_receiver(500) as broken:
        _hook(cast, broken.url)
        webhook_test_send(team=cast.team, actor=cast.alice)
        failed = WebhookDelivery.objects.get(event="test")
        for _attempt in range(MAX_ATTEMPTS):
            webhook_deliver(delivery_id=failed.pk)
            _after_backoff(failed.pk)

    assert first.retry_in == 5  # the first backoff
    assert "waiting to retry" in waiting and ">503<" in waiting
    retried.refresh_from_db()
    assert retried.next_attempt_at is None
    page = _log(cast)
    done = _row(page, retried)
    assert "delivered" in done and ">200<" in done and f"2 / {MAX_ATTEMPTS}" in done
    gone = _row(page, failed)
    assert "failed" in gone and ">500<" in gone and f"{MAX_ATTEMPTS} / {MAX_ATTEMPTS}" in gone
    assert "HTTP 500" in gone
    assert len(broken.requests) == MAX_ATTEMPTS


def test_a_waiting_delivery_shows_when_it_is_tried_next(cast):
    with webhook_receiver(503) as receiver:
        _hook(cast, receiver.url)
        submitted(cast)
        delivery = WebhookDelivery.objects.get()
        before = timezone.now()
        webhook_deliver(delivery_id=delivery.pk)

    delivery.refresh_from_db()
    assert (delivery.status, delivery.attempts, delivery.response_status) == ("pending", 1, 503)
    assert before + timedelta(seconds=5) <= delivery.next_attempt_at
    assert delivery.next_attempt_at <= timezone.now() + timedelta(seconds=5)
    assert delivery.next_attempt_at.strftime("%H:%M:%S") in _row(_log(cast), delivery)


def test_a_test_event_reaches_the_receiver_signed(cast):
    with webhook_receiver(204) as receiver:
        _hook(cast, receiver.url)
        delivery = webhook_test_send(team=cast.team, actor=cast.alice)
        webhook_deliver(delivery_id=delivery.pk)

    (request,) = receiver.requests
    timestamp = request.headers["X-EcoMap-Timestamp"]
    expected = hmac.new(SECRET.encode(), f"{timestamp}.".encode() + request.body, hashlib.sha256)
    assert request.headers["X-EcoMap-Signature"] == f"sha256={expected.hexdigest()}"
    assert request.headers["X-EcoMap-Event"] == "test"
    body = json.loads(request.body)
    assert (body["event"], body["team"], body["actor"]) == ("test", "platform", "alice-admin")


def test_re_send_posts_the_event_again_as_a_new_delivery(cast):
    with webhook_receiver(204) as receiver:
        _hook(cast, receiver.url)
        submitted(cast)
        original = WebhookDelivery.objects.get()
        webhook_deliver(delivery_id=original.pk)
        again = webhook_resend(delivery=original, actor=cast.alice)
        webhook_deliver(delivery_id=again.pk)

    assert again.resend_of == original
    assert len(receiver.requests) == 2
    first, second = (json.loads(r.body) for r in receiver.requests)
    assert first["evaluation"] == second["evaluation"]
    assert first["event"] == second["event"] == "submitted"


def test_a_slack_compatible_hook_gets_a_text_message(cast):
    with webhook_receiver(200) as receiver:
        _hook(cast, receiver.url, format="slack")
        evaluation = submitted(cast)
        webhook_deliver(delivery_id=WebhookDelivery.objects.get().pk)

    body = json.loads(receiver.requests[0].body)
    # Slack's incoming webhooks (and Mattermost's) read `text`; links as <url|label>.
    assert list(body) == ["text"]
    assert "submitted" in body["text"]
    assert f"/evaluations/{evaluation.pk}/|Open in EcoMap>" in body["text"]


def test_a_feishu_hook_gets_a_signed_text_message(cast):
    with webhook_receiver(200) as receiver:
        _hook(cast, receiver.url, format="feishu")
        evaluation = submitted(cast)
        webhook_deliver(delivery_id=WebhookDelivery.objects.get().pk)

    body = json.loads(receiver.requests[0].body)
    # Feishu/Lark custom bot: msg_type text; with signature verification on, `timestamp` and
    # `sign` = base64(HMAC-SHA256(key="timestamp\nsecret", message="")) (Feishu's bot docs).
    assert body["msg_type"] == "text"
    assert evaluation.title in body["content"]["text"]
    assert f"/evaluations/{evaluation.pk}/" in body["content"]["text"]
    key = f"{body['timestamp']}\n{SECRET}".encode()
    assert body["sign"] == base64.b64encode(hmac.new(key, b"", hashlib.sha256).digest()).decode()


def test_only_team_admins_see_the_log_and_send_tests(cast):
    _hook(cast, "http://127.0.0.1:9/hook")
    client = Client()
    client.force_login(cast.carol)

    assert client.get(reverse("teams:webhook-log", args=["platform"])).status_code == 403
    assert client.post(reverse("teams:webhook-test", args=["platform"])).status_code == 403
    with pytest.raises(NotAllowed):
        webhook_test_send(team=cast.team, actor=cast.carol)
    assert not WebhookDelivery.objects.exists()


def test_the_admin_sends_a_test_event_from_the_log_page(cast):
    _hook(cast, "http://127.0.0.1:9/hook")
    client = Client()
    client.force_login(cast.alice)

    response = client.post(reverse("teams:webhook-test", args=["platform"]))

    assert response.status_code == 302
    assert WebhookDelivery.objects.filter(event="test", team=cast.team).count() == 1


# ---- redirects (issue 41) -----------------------------------------------------------------------


def test_a_redirect_to_another_address_is_not_followed_and_fails_the_delivery(cast):
    """A receiver answering 302 to http://127.0.0.1:<other port>/ (a private address, which a
    redirect-following client would POST to unchecked): the second receiver gets nothing, the
    delivery fails at once (a redirect is the receiver's setup, not a passing fault) and the
    log says why."""
    with webhook_receiver(204) as elsewhere:
        target = elsewhere.url.replace("/hooks/ecomap", "/")
        with webhook_receiver(302, location=target) as receiver:
            _hook(cast, receiver.url)
            submitted(cast)
            delivery = WebhookDelivery.objects.get()

            attempt = webhook_deliver(delivery_id=delivery.pk)

    assert elsewhere.requests == []
    assert len(receiver.requests) == 1
    assert (attempt.status, attempt.retry_in) == ("failed", None)
    delivery.refresh_from_db()
    assert delivery.response_status == 302
    assert delivery.last_error.startswith("Redirect not followed: HTTP 302")
    assert target in delivery.last_error
    assert "Redirect not followed: HTTP 302" in _row(_log(cast), delivery)


@pytest.mark.parametrize("status", [301, 303, 307, 308])
def test_no_redirect_status_is_followed(cast, status):
    with (
        webhook_receiver(204) as elsewhere,
        webhook_receiver(status, location=elsewhere.url) as receiver,
    ):
        _hook(cast, receiver.url)
        submitted(cast)

        attempt = webhook_deliver(delivery_id=WebhookDelivery.objects.get().pk)

    assert elsewhere.requests == [] and len(receiver.requests) == 1
    assert attempt.status == "failed"
