"""Matrix jobs: compute a snapshot of the compatibility matrix on the matrix queue."""

from __future__ import annotations

import gc
import logging

from celery import shared_task
from celery.exceptions import SoftTimeLimitExceeded
from django.db import InterfaceError, OperationalError

from catalog.map.large import map_cache_warm
from catalog.matrix.services import (
    REFUSED_MEMORY,
    REFUSED_TIME,
    matrix_snapshot_compute,
    matrix_snapshot_fail,
)
from catalog.selectors import catalog_revision
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
    # Issue 28 H1: Celery treats a MemoryError escaping a task as fatal and the worker exits, so
    # the redelivered message killed every restarted worker. Out of memory or out of time, the
    # snapshot fails with the reason and the task returns normally; the failed row makes any
    # redelivery of this message a no-op (the claim only takes pending or running snapshots).
    try:
        done = matrix_snapshot_compute(snapshot_id=snapshot_id)
    except (OperationalError, InterfaceError):
        raise
    except MemoryError:
        gc.collect()  # the engine's bands are gone with the frame; give the memory back first
        logger.error("matrix snapshot %s: out of memory", snapshot_id)
        matrix_snapshot_fail(
            snapshot_id=snapshot_id,
            error="out of memory while computing the matrix",
            revision=catalog_revision(),
            refused=REFUSED_MEMORY,
        )
        return
    except SoftTimeLimitExceeded:
        logger.error("matrix snapshot %s: time limit reached", snapshot_id)
        matrix_snapshot_fail(
            snapshot_id=snapshot_id,
            error="the matrix took longer than the task's time limit",
            revision=catalog_revision(),
            refused=REFUSED_TIME,
        )
        return
    except Exception as exc:
        matrix_snapshot_fail(snapshot_id=snapshot_id, error=repr(exc))
        raise
    if done is None:
        return  # refused, failed or done by another delivery: nothing new to draw
    # The catalog changed: draw the map before its first reader asks. A failure here costs that
    # reader the drawing time, nothing else.
    try:
        map_cache_warm()
    except Exception:
        logger.exception("warming the map cache failed")
