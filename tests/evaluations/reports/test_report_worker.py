"""A PDF report built by a real Celery worker on the real Redis."""

from __future__ import annotations

import shutil
import socket
import subprocess

import pytest

from evaluations.reports import services as reports
from evaluations.reports.models import Report
from tests.evaluations.factories import fill_steps, make_cast, make_evaluation, small_catalog
from tests.worker import Worker, wait_for

pytestmark = [pytest.mark.celery_worker, pytest.mark.django_db(transaction=True)]


def test_a_requested_report_is_built_by_the_worker_and_downloadable(celery_broker, tmp_path):
    small_catalog()
    cast = make_cast()
    evaluation = fill_steps(make_evaluation(cast), cast.bob)
    worker = Worker(celery_broker, tmp_path / "worker.log", media_root=tmp_path / "media").start()
    try:
        report = reports.report_request(evaluation=evaluation, actor=cast.bob)
        built = wait_for(
            lambda: Report.objects.filter(pk=report.pk, status="succeeded").first(),
            timeout=120,
            interval=0.5,
            what=lambda: f"the report\n{worker.log()}",
        )
    finally:
        worker.stop()

    pdf = tmp_path / "media" / built.file.name
    assert pdf.read_bytes().startswith(b"%PDF")
    assert built.pages >= 2


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def test_a_report_cut_off_by_a_redis_outage_is_built_once_redis_is_back(
    celery_broker, tmp_path, monkeypatch
):
    """The worker's cache is a Redis that is not running yet: the build is retried, not failed,
    and succeeds once that Redis starts (issue 28, M3)."""
    redis_server = shutil.which("redis-server")
    if not redis_server:
        pytest.skip("needs redis-server")
    port = _free_port()
    monkeypatch.setenv("CACHE_URL", f"redis://127.0.0.1:{port}/0")  # read by the worker only
    small_catalog()
    cast = make_cast()
    evaluation = fill_steps(make_evaluation(cast), cast.bob)
    worker = Worker(celery_broker, tmp_path / "worker.log", media_root=tmp_path / "media").start()
    cache_server = None
    try:
        report = reports.report_request(evaluation=evaluation, actor=cast.bob)
        wait_for(
            lambda: "cut off by an outage" in worker.log(),
            timeout=120,
            interval=0.5,
            what=lambda: f"the outage to reach the build\n{worker.log()}",
        )
        assert Report.objects.get(pk=report.pk).status != Report.Status.FAILED

        cache_server = subprocess.Popen(  # noqa: S603 - fixed argv, Debian's redis-server
            [redis_server, "--port", str(port), "--bind", "127.0.0.1", "--save", "",
             "--appendonly", "no"],
            stdout=subprocess.DEVNULL,
        )  # fmt: skip
        built = wait_for(
            lambda: Report.objects.filter(pk=report.pk, status="succeeded").first(),
            timeout=180,
            interval=0.5,
            what=lambda: f"the report after Redis came back\n{worker.log()}",
        )
    finally:
        worker.stop()
        if cache_server is not None:
            cache_server.terminate()
            cache_server.wait(timeout=10)

    assert built.attempts == 1  # the attempts the outage cut off are not counted
    assert (tmp_path / "media" / built.file.name).read_bytes().startswith(b"%PDF")
