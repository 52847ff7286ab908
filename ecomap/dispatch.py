"""Enqueue background jobs by task name, once the current transaction commits.

Services publish work through here instead of importing their tasks module: tasks import
services (a task is a thin adapter around one), so the reverse import would close a circle.
"""

from __future__ import annotations

from django.db import transaction

from ecomap.celery import app

# The registered names of the jobs services start (each task declares the same name).
RUN_IMPORT = "catalog.tasks.run_import"
COMPUTE_MATRIX_SNAPSHOT = "catalog.tasks.compute_matrix_snapshot"
BUILD_REPORT = "evaluations.report_tasks.build_report"


def enqueue_on_commit(task_name: str, *args: object) -> None:
    """Publish `task_name(*args)` after commit; in eager mode it runs there and then."""
    # Looking the task up finalises the app, which imports every tasks module once.
    transaction.on_commit(lambda: app.tasks[task_name].delay(*args))
