"""Matrix jobs: compute a snapshot of the compatibility matrix on the matrix queue."""

from __future__ import annotations

import logging

from celery import shared_task
from django.db import InterfaceError, OperationalError

from catalog.map.figure import map_cache_warm
from catalog.matrix.services import matrix_snapshot_compute, matrix_snapshot_fail
from ecomap.jobs import DURABLE_TASK

logger = logging.getLogger(__name__)


# The name is the one messages already queued carry (the task lived in catalog/tasks.py); routes
# in settings key on it. matrix_snapshot_compute is idempotent, so a redelivery is harmless.
@shared_task(
    name="catalog.tasks.compute_matrix_snapshot",
    bind=True,
    **DURABLE_TASK,
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
    # The catalog changed: draw the map before its first reader asks. A failure here costs that
    # reader the drawing time, nothing else.
    try:
        map_cache_warm()
    except Exception:
        logger.exception("warming the map cache failed")
