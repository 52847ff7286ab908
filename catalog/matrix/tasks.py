"""Matrix jobs: compute a snapshot of the compatibility matrix on the matrix queue."""

from __future__ import annotations

from celery import shared_task
from django.db import InterfaceError, OperationalError

from catalog.matrix.services import matrix_snapshot_compute, matrix_snapshot_fail


# The name is the one messages already queued carry (the task lived in catalog/tasks.py); routes
# in settings key on it. Retries only for database hiccups; a rerun is harmless
# (matrix_snapshot_compute is idempotent).
@shared_task(
    name="catalog.tasks.compute_matrix_snapshot",
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
