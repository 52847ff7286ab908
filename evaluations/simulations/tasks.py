"""Capacity simulation jobs: size every recommended stack's pools and replay the workload."""

from __future__ import annotations

import logging

from celery import shared_task
from celery.exceptions import SoftTimeLimitExceeded
from django.db import InterfaceError, OperationalError

from ecomap.jobs import DURABLE_TASK
from ecomap.outage import JOB_OUTAGE_ERRORS
from evaluations.simulations.services import capacity_fail, capacity_requeue, capacity_run

logger = logging.getLogger(__name__)

# A run of five stacks on the default mix takes about a second (each replay is bounded to
# REPLAY_MAX_GPUS GPUs, the tenants to MAX_TENANTS): the limits stop
# a runaway input, far below the broker's visibility timeout, and the run fails with the reason
# instead of holding the worker. A rerun is harmless (capacity_run claims with a conditional
# update). It shares the reports queue: both are an evaluation's on-demand computations.
SOFT_LIMIT_S = 120


@shared_task(
    name="evaluations.run_capacity",
    bind=True,
    **DURABLE_TASK,
    soft_time_limit=SOFT_LIMIT_S,
    time_limit=SOFT_LIMIT_S + 60,
)
def run_capacity(self, run_id: int) -> None:
    try:
        capacity_run(run_id=run_id)
    except (OperationalError, InterfaceError):
        raise  # retried (DURABLE_TASK)
    except JOB_OUTAGE_ERRORS as exc:
        logger.warning("capacity run %s: cut off by an outage, queued again: %r", run_id, exc)
        capacity_requeue(run_id=run_id)
        raise
    except SoftTimeLimitExceeded:
        capacity_fail(run_id=run_id, error=f"the simulation took longer than {SOFT_LIMIT_S} s")
    except Exception as exc:
        capacity_fail(run_id=run_id, error=repr(exc))
        raise
