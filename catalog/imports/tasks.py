"""Import jobs: apply a large validated import on the imports queue."""

from __future__ import annotations

from celery import shared_task

from catalog.imports.services import import_run


# The name is the one messages already queued carry (the task lived in catalog/tasks.py); routes
# in settings key on it. A 10,000-row import takes seconds; the limits only stop a runaway job.
@shared_task(
    name="catalog.tasks.run_import",
    acks_late=True,
    reject_on_worker_lost=True,
    soft_time_limit=540,
    time_limit=600,
)
def run_import(job_id: str) -> None:
    import_run(job_id=job_id)
