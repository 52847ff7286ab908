"""Matrix jobs on a real Celery worker and the real Redis, including a worker killed mid-job."""

from __future__ import annotations

import pytest
import redis

from catalog.engine.compatibility import compute_matrix
from catalog.models import MatrixSnapshot
from catalog.selectors import catalog_revision, engine_rows
from ecomap.celery import app
from tests.factories import apply, bundle, placement, project, synthetic_bundle
from tests.worker import Worker, redis_url, transport_options, wait_for

pytestmark = [pytest.mark.celery_worker, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def broker(settings):
    url = redis_url()
    previous = dict(app.conf)
    app.conf.update(
        broker_url=url,
        task_always_eager=False,
        result_backend=None,
        broker_transport_options=transport_options(),
    )
    # The app may already hold a memory:// producer pool from eager tests: drop it.
    app._pool = None
    app.amqp._producer_pool = None
    settings.CELERY_TASK_ALWAYS_EAGER = False
    yield url
    app.conf.update(
        broker_url=previous["broker_url"],
        task_always_eager=previous["task_always_eager"],
        result_backend=previous["result_backend"],
        broker_transport_options=previous["broker_transport_options"],
    )
    app._pool = None
    app.amqp._producer_pool = None
    client = redis.Redis.from_url(url)
    for key in client.scan_iter(match=f"{transport_options()['global_keyprefix']}*"):
        client.delete(key)


@pytest.fixture
def worker(broker, tmp_path):
    started = Worker(broker, tmp_path / "worker.log").start()
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
    broker, tmp_path
):
    # Big enough that computing takes seconds, so the kill lands mid-job.
    apply(synthetic_bundle(1250, rows_per_project=4))
    revision = catalog_revision()
    first = Worker(broker, tmp_path / "first.log").start()
    try:
        wait_for(
            lambda: MatrixSnapshot.objects.filter(status="running").exists(),
            timeout=60,
            interval=0.02,
            what=lambda: f"the job to start\n{first.log()}",
        )
        first.kill()
    finally:
        first.kill()
    assert not _succeeded(revision), "the job finished before the kill; make the catalog larger"

    second = Worker(broker, tmp_path / "second.log").start()
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
