"""Catalog background jobs: imports (and, with the engine, matrix snapshots)."""

from __future__ import annotations

from celery import shared_task

from catalog.imports import import_run


# A 10,000-row import takes seconds; the limits only stop a runaway job.
@shared_task(acks_late=True, reject_on_worker_lost=True, soft_time_limit=540, time_limit=600)
def run_import(job_id: str) -> None:
    import_run(job_id=job_id)
