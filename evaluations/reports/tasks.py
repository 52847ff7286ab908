"""Report jobs: build an evaluation's PDF report on the reports queue."""

from __future__ import annotations

import logging

from celery import shared_task
from celery.exceptions import SoftTimeLimitExceeded
from django.db import InterfaceError, OperationalError

from ecomap.jobs import DURABLE_TASK
from ecomap.outage import JOB_OUTAGE_ERRORS
from evaluations.reports.services import report_build, report_fail, report_requeue

logger = logging.getLogger(__name__)


# The name is the one messages already queued carry (the task lived in
# evaluations/report_tasks.py); routes in settings key on it.
# A 30-candidate report builds in a few seconds; the limits stop a hung Chromium (kaleido draws
# the map) or a runaway layout, and stay far below the broker's visibility timeout so a killed
# worker's job is redelivered only after it can no longer be running. A rerun is harmless
# (report_build claims with a conditional update).
@shared_task(
    name="evaluations.report_tasks.build_report",
    bind=True,
    **DURABLE_TASK,
    soft_time_limit=120,
    time_limit=180,
)
def build_report(self, report_id: int) -> None:
    try:
        report_build(report_id=report_id)
    except (OperationalError, InterfaceError):
        raise  # retried (DURABLE_TASK)
    except JOB_OUTAGE_ERRORS as exc:
        # Redis (cache or broker) stopped answering: not the report's fault. Pending again, it
        # is retried here (DURABLE_TASK) and, should the retries run out, resent by the sweep.
        logger.warning("report %s: cut off by an outage, queued again: %r", report_id, exc)
        report_requeue(report_id=report_id)
        raise
    except SoftTimeLimitExceeded:
        report_fail(report_id=report_id, error="the build took longer than 120 s")
        raise
    except Exception as exc:
        report_fail(report_id=report_id, error=repr(exc))
        raise
