"""A PDF report built by a real Celery worker on the real Redis, including a worker killed
mid-build."""

from __future__ import annotations

import socket

import pytest
from django.utils import timezone

from evaluations.notifications.models import Notification, WebhookDelivery
from evaluations.recovery import HEARTBEAT_SILENCE, jobs_recover
from evaluations.reports import services as reports
from evaluations.reports.models import Report
from tests.evaluations.factories import fill_steps, make_cast, make_evaluation, small_catalog
from tests.worker import Worker, broker_messages_lost, wait_for, worker_killed_when

pytestmark = [pytest.mark.celery_worker, pytest.mark.django_db(transaction=True)]


def _built_by_a_worker(celery_broker, tmp_path, *, timeout: float) -> tuple[Report, str]:
    """A report of a filled evaluation, requested and built by a real worker: the report once
    it succeeded, and the whole worker log."""
    small_catalog()
    cast = make_cast()
    evaluation = fill_steps(make_evaluation(cast), cast.bob)
    worker = Worker(celery_broker, tmp_path / "worker.log", media_root=tmp_path / "media").start()
    try:
        report = reports.report_request(evaluation=evaluation, actor=cast.bob)
        built = wait_for(
            lambda: Report.objects.filter(pk=report.pk, status="succeeded").first(),
            timeout=timeout,
            interval=0.5,
            what=lambda: f"the report\n{worker.log()}",
        )
    finally:
        worker.stop()
    return built, (tmp_path / "worker.log").read_text(errors="replace")


def test_a_requested_report_is_built_by_the_worker_and_downloadable(celery_broker, tmp_path):
    built, _log = _built_by_a_worker(celery_broker, tmp_path, timeout=120)

    pdf = tmp_path / "media" / built.file.name
    assert pdf.read_bytes().startswith(b"%PDF")
    assert built.pages >= 2


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def test_a_report_is_built_while_the_cache_redis_is_down(celery_broker, tmp_path, monkeypatch):
    """The worker's cache is a Redis that is not running: a redis:// cache fails open
    (ecomap.outage.FailOpenRedisCache), so the build reads and writes around it and the report
    is built at its first attempt (issue 28, M3). The retry of a build an outage does cut off
    (the broker, or a cache without the fail-open backend) is tested in test_reports.py."""
    monkeypatch.setenv("CACHE_URL", f"redis://127.0.0.1:{_free_port()}/0")  # the worker's only
    built, log = _built_by_a_worker(celery_broker, tmp_path, timeout=180)

    assert built.attempts == 1
    assert "the cache is unreachable" in log
    assert (tmp_path / "media" / built.file.name).read_bytes().startswith(b"%PDF")


@pytest.mark.parametrize("message_lost", [False, True], ids=["redelivered", "swept"])
def test_a_report_whose_worker_is_killed_mid_build_is_built_once(
    celery_broker, tmp_path, message_lost
):
    """kill -9 of the worker (and its pool child) during the build: the message comes back to
    the next worker, or, lost with the broker's data, the recovery sweep sends it again. Either
    way one report row succeeds, at its second attempt, with one PDF and no announcement."""
    small_catalog()
    cast = make_cast()
    evaluation = fill_steps(make_evaluation(cast), cast.bob)
    media = tmp_path / "media"
    announced = (Notification.objects.count(), WebhookDelivery.objects.count())
    report = reports.report_request(evaluation=evaluation, actor=cast.bob)

    building = Report.objects.filter(pk=report.pk, status="running")
    worker_killed_when(celery_broker, tmp_path / "first.log", building.exists, media_root=media)
    assert building.exists(), "the build ended before the kill"
    if message_lost:
        broker_messages_lost(celery_broker)
        building.update(heartbeat_at=timezone.now() - 2 * HEARTBEAT_SILENCE)
    second = Worker(celery_broker, tmp_path / "second.log", media_root=media).start()
    try:
        if message_lost:
            assert jobs_recover()["reports"]["rerun"] == 1
        built = wait_for(
            lambda: Report.objects.filter(pk=report.pk, status="succeeded").first(),
            timeout=120,
            interval=0.2,
            what=lambda: f"the rebuilt report\n{second.log()}",
        )
    finally:
        second.stop()

    assert Report.objects.count() == 1
    assert built.attempts == 2
    assert sorted(media.rglob("*.pdf")) == [media / built.file.name]
    assert (Notification.objects.count(), WebhookDelivery.objects.count()) == announced
