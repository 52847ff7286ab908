"""Matrix jobs on a real Celery worker and the real Redis, including a worker killed mid-job."""

from __future__ import annotations

import pytest
import redis
from django.utils import timezone

from catalog.engine.compatibility import compute_matrix
from catalog.matrix.models import MatrixSnapshot
from catalog.selectors import catalog_revision, engine_rows
from evaluations.recovery import HEARTBEAT_SILENCE, jobs_recover
from tests.factories import apply, bundle, placement, project, synthetic_bundle
from tests.worker import Worker, transport_options, wait_for

pytestmark = [pytest.mark.celery_worker, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def worker(celery_broker, tmp_path):
    started = Worker(celery_broker, tmp_path / "worker.log").start()
    yield started
    started.stop()


def _succeeded(revision: int):
    return MatrixSnapshot.objects.filter(
        scope="catalog", status="succeeded", catalog_revision=revision
    ).first()


def test_a_catalog_change_produces_a_fresh_snapshot_on_the_worker(worker):
    apply(
        bundle(
            project("hami", placement("device-plugin")),
            project("volcano", placement("s", "control_plane")),
        )
    )
    revision = catalog_revision()

    snapshot = wait_for(
        lambda: _succeeded(revision), timeout=60, what=lambda: f"a snapshot\n{worker.log()}"
    )

    assert snapshot.row_count == 2
    assert snapshot.counts["composes"] + snapshot.counts["independent"] == 1


def test_a_worker_killed_mid_job_leaves_one_snapshot_equal_to_an_uninterrupted_run(
    celery_broker, tmp_path
):
    revision = _kill_a_worker_mid_job(celery_broker, tmp_path)
    assert not _succeeded(revision), "the job finished before the kill; make the catalog larger"

    second = Worker(celery_broker, tmp_path / "second.log").start()
    try:
        snapshot = wait_for(
            lambda: _succeeded(revision),
            timeout=90,
            interval=0.2,
            what=lambda: f"redelivery\n{second.log()}",
        )
    finally:
        second.stop()

    assert MatrixSnapshot.objects.filter(status="succeeded").count() == 1
    assert MatrixSnapshot.objects.exclude(status="succeeded").count() == 0
    assert snapshot.attempts == 2
    assert bytes(snapshot.matrix) == compute_matrix(engine_rows()).to_bytes()


def test_a_killed_workers_job_whose_message_is_lost_is_recovered_by_the_sweep(
    celery_broker, tmp_path
):
    revision = _kill_a_worker_mid_job(celery_broker, tmp_path)
    # The broker lost the message too (a restart without persistence): only the row is left.
    client = redis.Redis.from_url(celery_broker)
    for key in client.scan_iter(match=f"{transport_options()['global_keyprefix']}*"):
        client.delete(key)
    # A minute of heartbeat silence, without waiting for it.
    MatrixSnapshot.objects.filter(status="running").update(
        heartbeat_at=timezone.now() - HEARTBEAT_SILENCE - HEARTBEAT_SILENCE
    )

    second = Worker(celery_broker, tmp_path / "second.log").start()
    try:
        assert jobs_recover()["matrix"]["rerun"] == 1
        snapshot = wait_for(
            lambda: _succeeded(revision),
            timeout=90,
            interval=0.2,
            what=lambda: f"the recovered job\n{second.log()}",
        )
    finally:
        second.stop()

    assert MatrixSnapshot.objects.filter(status="succeeded").count() == 1
    assert MatrixSnapshot.objects.exclude(status="succeeded").count() == 0
    assert snapshot.attempts == 2


def _kill_a_worker_mid_job(celery_broker, tmp_path) -> int:
    """Loads a catalog big enough that computing takes seconds, starts a worker and kills it
    (main process and pool child) as soon as the snapshot is running; returns the revision."""
    apply(synthetic_bundle(1250, rows_per_project=4))
    revision = catalog_revision()
    first = Worker(celery_broker, tmp_path / "first.log").start()
    try:
        wait_for(
            lambda: MatrixSnapshot.objects.filter(status="running").exists(),
            timeout=60,
            interval=0.02,
            what=lambda: f"the job to start\n{first.log()}",
        )
    finally:
        first.kill()
    return revision


def test_a_job_that_runs_out_of_memory_fails_its_snapshot_and_the_worker_takes_the_next(
    celery_broker, tmp_path
):
    """Issue 28 H1: Celery treated the MemoryError as fatal and the worker exited (and every
    restarted worker died on the redelivered message)."""
    marker = tmp_path / "out-of-memory-once"
    marker.touch()
    worker = Worker(
        celery_broker,
        tmp_path / "worker.log",
        env={
            "DJANGO_SETTINGS_MODULE": "tests.catalog.matrix.out_of_memory_settings",
            "ECOMAP_TEST_OOM_ONCE": str(marker),
        },
    ).start()
    try:
        apply(bundle(project("hami", placement("device-plugin"))))
        first = catalog_revision()
        failed = wait_for(
            lambda: MatrixSnapshot.objects.filter(status="failed", catalog_revision=first).first(),
            timeout=60,
            what=lambda: f"the failed snapshot\n{worker.log()}",
        )
        assert "out of memory" in failed.error
        assert not marker.exists()  # the engine really ran into it

        apply(bundle(project("volcano", placement("scheduler", "control_plane"))))
        second = catalog_revision()
        snapshot = wait_for(
            lambda: _succeeded(second), timeout=60, what=lambda: f"the next job\n{worker.log()}"
        )
        assert snapshot.row_count == 2
        assert worker.process.poll() is None, worker.log()  # the same worker process, alive
        assert "Unrecoverable error" not in worker.log()
    finally:
        worker.stop()
