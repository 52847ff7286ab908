"""Import jobs: apply a large validated import on the imports queue."""

from __future__ import annotations

from celery import shared_task

from catalog.imports.services import import_run
from ecomap.jobs import DURABLE_TASK


# The name is the one messages already queued carry (the task lived in catalog/tasks.py); routes
# in settings key on it. A 10,000-row import takes seconds; the limits only stop a runaway job.
# A database, cache or broker outage is retried (import_run is safe to rerun).
@shared_task(
    name="catalog.tasks.run_import",
    **DURABLE_TASK,
    soft_time_limit=540,
    time_limit=600,
)
def run_import(job_id: str) -> None:
    import_run(job_id=job_id)
