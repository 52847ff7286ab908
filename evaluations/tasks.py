"""Housekeeping jobs: the recovery sweep Celery beat runs every minute."""

from __future__ import annotations

from celery import shared_task

from evaluations.recovery import jobs_recover


# Short and idempotent: a late or doubled run sends a few messages twice, which the jobs ignore.
@shared_task(name="evaluations.recover_jobs", soft_time_limit=50, time_limit=60)
def recover_jobs() -> dict[str, dict[str, int]]:
    return jobs_recover()
