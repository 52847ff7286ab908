"""A PDF report built by a real Celery worker on the real Redis."""

from __future__ import annotations

import socket

import pytest

from evaluations.reports import services as reports
from evaluations.reports.models import Report
from tests.evaluations.factories import fill_steps, make_cast, make_evaluation, small_catalog
from tests.worker import Worker, wait_for

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
