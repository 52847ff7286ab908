"""Issue 41, H2: Redis stops in the middle of a report and comes back. The workers and beat,
started with the arguments docker-compose.yml gives them (gossip, mingle and heartbeat on),
hold on, and every job queued before, during and after the outage finishes exactly once.

Before the fix (ecomap/consumer.py) the worker logged "Unrecoverable error: AttributeError
('NoneType' object has no attribute 'hostname')", finished its report and exited for good."""

from __future__ import annotations

import re
import time
from pathlib import Path

import pytest
import redis
from django.core.management import call_command

from catalog.matrix.models import MatrixSnapshot
from catalog.selectors import catalog_revision
from evaluations.notifications.models import Notification
from evaluations.reports.models import Report
from evaluations.reports.services import report_request
from evaluations.simulations.models import CapacityRun
from evaluations.simulations.services import capacity_request
from tests.evaluations.factories import make_cast, make_evaluation
from tests.evaluations.simulations.test_capacity_pages import BOARD_PROFILE
from tests.factories import apply, bundle, placement, project
from tests.worker import (
    KEY_PREFIX,
    RedisServer,
    Worker,
    app_on_broker,
    compose_command,
    wait_for,
)

pytestmark = [
    pytest.mark.celery_worker,
    pytest.mark.slow,
    pytest.mark.django_db(transaction=True),
]

OUTAGE_S = 10
FINISHED = ("succeeded", "failed")


@pytest.fixture
def broker(tmp_path, settings):
    """A private Redis, stopped and started again by the test; the test process publishes there."""
    server = RedisServer(tmp_path / "redis").start()
    try:
        with app_on_broker(server.url, settings):
            yield server
    finally:
        server.stop()


@pytest.fixture
def stack(broker, tmp_path):
    """worker, matrix-worker and beat, each with its compose arguments. Messages come back after
    two minutes rather than four seconds: longer than any job here, so no job runs twice because
    it ran long, and beat sends the recovery sweep every two seconds."""
    env = {"TEST_WORKER_VISIBILITY_TIMEOUT": "120", "TEST_BEAT_INTERVAL": "2"}
    schedule = tmp_path / "celerybeat-schedule"
    started = {
        service: Worker(
            broker.url,
            tmp_path / f"{service}.log",
            media_root=tmp_path / "media",
            env=env,
            arguments=compose_command(service, schedule=schedule),
        ).start()
        for service in ("worker", "matrix-worker", "beat")
    }
    yield started
    for process in started.values():
        process.stop()


def _finished(model, pk):
    return model.objects.filter(pk=pk, status__in=FINISHED).first()


def _connections(worker: Worker) -> int:
    return worker.log_path.read_text(errors="replace").count("Connected to redis")


def _pdfs(media: Path, report: Report) -> list[Path]:
    """The report's PDF files (Django names a second file of the same name `<name>_<random>`)."""
    pattern = re.compile(rf"-report-{report.pk}(_\w+)?\.pdf$")
    return [path for path in media.rglob("*.pdf") if pattern.search(path.name)]


def _logs(stack) -> str:
    """Each process's critical lines and the end of its log."""
    parts = []
    for name, process in stack.items():
        text = process.log_path.read_text(errors="replace")
        critical = [line for line in text.splitlines() if "CRITICAL" in line]
        parts.append(f"--- {name}\n" + "\n".join(critical) + f"\n...\n{text[-3000:]}")
    return "\n".join(parts)


def test_the_workers_and_beat_survive_redis_restarting_mid_report_and_each_job_runs_once(
    broker, stack, tmp_path
):
    call_command("load_catalog", verbosity=0)
    cast = make_cast()
    evaluations = [make_evaluation(cast, title=f"E{i}", profile=BOARD_PROFILE) for i in range(4)]
    notifications = Notification.objects.count()
    worker = stack["worker"]

    apply(bundle(project("before-outage", placement("x"))))  # a snapshot for matrix-worker
    # A capacity run first, then a report, and Redis stops as soon as the report is claimed: it
    # runs alone, its message unacked and the free slot's BRPOP outstanding, the state in which
    # the worker used to die.
    run = capacity_request(evaluation=evaluations[1], actor=cast.bob)
    wait_for(
        lambda: _finished(CapacityRun, run.pk),
        timeout=120,
        interval=0.2,
        what=lambda: f"the first capacity run\n{_logs(stack)}",
    )
    report = report_request(evaluation=evaluations[0], actor=cast.bob)
    wait_for(
        lambda: Report.objects.filter(pk=report.pk).exclude(status="pending").exists(),
        timeout=60,
        interval=0.02,
        what=lambda: f"the report to start\n{_logs(stack)}",
    )

    connections = _connections(worker)
    broker.stop()
    assert Report.objects.get(pk=report.pk).status == "running", "the report ended too soon"
    time.sleep(OUTAGE_S)
    broker.start()
    wait_for(
        lambda: not worker.alive() or _connections(worker) > connections,
        timeout=60,
        interval=0.5,
        what=lambda: f"the worker to reconnect\n{_logs(stack)}",
    )
    for name, process in stack.items():
        assert process.alive(), f"{name} exited\n{_logs(stack)}"

    # Jobs queued once Redis is back run too: the catalog first, so the run's input stays put.
    apply(bundle(project("after-outage", placement("x"))))
    revision = catalog_revision()
    later_report = report_request(evaluation=evaluations[2], actor=cast.bob)
    later_run = capacity_request(evaluation=evaluations[3], actor=cast.bob)
    for model, pk in [(Report, report.pk), (Report, later_report.pk), (CapacityRun, later_run.pk)]:
        wait_for(
            lambda model=model, pk=pk: _finished(model, pk),
            timeout=120,
            interval=0.5,
            what=lambda: f"every job to finish\n{_logs(stack)}",
        )
    wait_for(
        lambda: (
            MatrixSnapshot.objects.filter(status="succeeded", catalog_revision=revision).exists()
            and not MatrixSnapshot.objects.exclude(status__in=FINISHED).exists()
        ),
        timeout=120,
        interval=0.5,
        what=lambda: f"the matrix snapshots\n{_logs(stack)}",
    )

    for name, process in stack.items():
        assert process.alive(), f"{name} exited\n{_logs(stack)}"
        assert "Unrecoverable error" not in process.log_path.read_text(errors="replace")
    # Each job ran once: one finished row, one attempt, one PDF per report.
    for report_row in Report.objects.all():
        assert (report_row.status, report_row.attempts) == ("succeeded", 1), report_row.error
        pdfs = _pdfs(tmp_path / "media", report_row)
        assert len(pdfs) == 1, pdfs
    assert Report.objects.count() == 2
    runs = CapacityRun.objects.all()
    assert [(r.status, r.attempts) for r in runs] == [("succeeded", 1)] * 2
    snapshots = MatrixSnapshot.objects.filter(status="succeeded")
    revisions = list(snapshots.values_list("catalog_revision", flat=True))
    assert len(revisions) == len(set(revisions)), "a revision computed twice"
    assert not MatrixSnapshot.objects.filter(status="failed").exists()
    assert Notification.objects.count() == notifications
    # Beat published again after the outage: the worker ran the sweep it sent.
    assert (
        "evaluations.recover_jobs"
        in worker.log_path.read_text(errors="replace").split("Connected to redis")[-1]
    )
    # Nothing is left unacknowledged, to be delivered a second time later.
    client = redis.Redis.from_url(broker.url)
    wait_for(
        lambda: client.hlen(f"{KEY_PREFIX}unacked") == 0,
        timeout=30,
        what=lambda: f"every message acknowledged: {client.hgetall(f'{KEY_PREFIX}unacked')}",
    )
