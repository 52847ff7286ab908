"""Team webhooks delivered by a real Celery worker on the real Redis to a local HTTP endpoint."""

from __future__ import annotations

import hashlib
import hmac
import json
from datetime import datetime, timedelta

import pytest
import redis
from django.utils import timezone

from evaluations.notifications.models import WebhookDelivery
from evaluations.recovery import jobs_recover
from tests.evaluations.factories import make_cast, small_catalog, submitted
from tests.evaluations.notifications.webhook_receiver import webhook_receiver
from tests.worker import KEY_PREFIX, Worker, wait_for

pytestmark = [pytest.mark.celery_worker, pytest.mark.django_db(transaction=True)]

SECRET = "worker-test-secret"


def _cast_with_webhook(url: str):
    small_catalog()
    cast = make_cast()
    cast.team.webhook_url = url
    cast.team.webhook_secret = SECRET
    cast.team.save(update_fields=["webhook_url", "webhook_secret"])
    return cast


def _delivered(worker: Worker) -> WebhookDelivery:
    return wait_for(
        lambda: WebhookDelivery.objects.filter(status="delivered").first(),
        timeout=60,
        interval=0.2,
        what=lambda: f"the delivery\n{worker.log()}",
    )


def test_a_submission_reaches_the_teams_endpoint_signed(celery_broker, tmp_path):
    with webhook_receiver(204) as receiver:
        cast = _cast_with_webhook(receiver.url)
        worker = Worker(celery_broker, tmp_path / "worker.log").start()
        try:
            evaluation = submitted(cast)
            delivery = _delivered(worker)
        finally:
            worker.stop()

    (request,) = receiver.requests
    timestamp = request.headers["X-EcoMap-Timestamp"]
    signed = hmac.new(
        SECRET.encode(), timestamp.encode() + b"." + request.body, hashlib.sha256
    ).hexdigest()
    assert request.headers["X-EcoMap-Signature"] == f"sha256={signed}"
    assert request.headers["X-EcoMap-Event"] == "submitted"
    body = json.loads(request.body)
    assert body["evaluation"]["id"] == evaluation.pk
    assert body["evaluation"]["state"] == "in_review"
    assert (delivery.attempts, delivery.response_status) == (1, 204)


def test_a_failing_endpoint_gets_the_event_again_after_the_backoff(celery_broker, tmp_path):
    with webhook_receiver(503, 500, 200) as receiver:
        cast = _cast_with_webhook(receiver.url)
        worker = Worker(celery_broker, tmp_path / "worker.log").start()
        try:
            submitted(cast)
            delivery = _delivered(worker)  # after waiting 5 s, then 10 s
        finally:
            worker.stop()

    assert (delivery.attempts, delivery.response_status, delivery.last_error) == (3, 200, "")
    assert len(receiver.requests) == 3
    sent = [datetime.fromisoformat(json.loads(r.body)["sent_at"]) for r in receiver.requests]
    assert (sent[1] - sent[0]).total_seconds() >= 5  # the backoff: 5 s, then 10 s
    assert (sent[2] - sent[1]).total_seconds() >= 10


def test_recover_jobs_republishes_a_delivery_whose_message_was_lost(celery_broker, tmp_path):
    with webhook_receiver(200) as receiver:
        cast = _cast_with_webhook(receiver.url)
        submitted(cast)  # published while no worker runs; the message is then lost
        celery_broker_flush(celery_broker)
        WebhookDelivery.objects.update(created_at=timezone.now() - timedelta(minutes=10))
        worker = Worker(celery_broker, tmp_path / "worker.log").start()
        try:
            done = jobs_recover()
            _delivered(worker)
        finally:
            worker.stop()

    assert done["webhooks"]["republished"] == 1
    assert len(receiver.requests) == 1


def celery_broker_flush(url: str) -> None:
    """Drop every queued message of this test run, as a broker restart without persistence."""
    client = redis.Redis.from_url(url)
    for key in client.scan_iter(match=f"{KEY_PREFIX}*"):
        client.delete(key)
