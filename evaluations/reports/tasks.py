"""Report jobs: build an evaluation's PDF report on the reports queue."""

from __future__ import annotations

from celery import shared_task
from celery.exceptions import SoftTimeLimitExceeded
from django.db import InterfaceError, OperationalError

from ecomap.jobs import DURABLE_TASK
from evaluations.reports.services import report_build, report_fail


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
        raise
    except SoftTimeLimitExceeded:
        report_fail(report_id=report_id, error="the build took longer than 120 s")
        raise
    except Exception as exc:
        report_fail(report_id=report_id, error=repr(exc))
        raise
