"""Catalog background jobs: applying large imports and computing matrix snapshots."""

from __future__ import annotations

from celery import shared_task
from django.db import InterfaceError, OperationalError

from catalog.imports import import_run
from catalog.matrix import matrix_snapshot_compute, matrix_snapshot_fail


# A 10,000-row import takes seconds; the limits only stop a runaway job.
@shared_task(acks_late=True, reject_on_worker_lost=True, soft_time_limit=540, time_limit=600)
def run_import(job_id: str) -> None:
    import_run(job_id=job_id)


# Retries only for database hiccups; a rerun is harmless (matrix_snapshot_compute is idempotent).
@shared_task(
    bind=True,
    acks_late=True,
    reject_on_worker_lost=True,
    autoretry_for=(OperationalError, InterfaceError),
    retry_backoff=2,
    retry_backoff_max=60,
    max_retries=5,
    soft_time_limit=240,
    time_limit=300,
)
def compute_matrix_snapshot(self, snapshot_id: int) -> None:
    try:
        matrix_snapshot_compute(snapshot_id=snapshot_id)
    except (OperationalError, InterfaceError):
        raise
    except Exception as exc:
        matrix_snapshot_fail(snapshot_id=snapshot_id, error=repr(exc))
        raise
