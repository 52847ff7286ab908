"""Enqueue background jobs by task name, once the current transaction commits.

Services publish work through here instead of importing their tasks module: tasks import
services (a task is a thin adapter around one), so the reverse import would close a circle.
"""

from __future__ import annotations

import logging

from django.db import transaction
from django.utils.translation import gettext_lazy as _
from rest_framework.exceptions import APIException

from ecomap.celery import app

logger = logging.getLogger(__name__)

# The registered names of the jobs services start (each task declares the same name).
RUN_IMPORT = "catalog.tasks.run_import"
COMPUTE_MATRIX_SNAPSHOT = "catalog.tasks.compute_matrix_snapshot"
BUILD_REPORT = "evaluations.report_tasks.build_report"
RUN_CAPACITY = "evaluations.run_capacity"
SEND_NOTIFICATION_EMAIL = "evaluations.send_notification_email"
DELIVER_WEBHOOK = "evaluations.deliver_webhook"
CHECK_CATALOG_DRIFT = "evaluations.check_catalog_drift"
SEND_PASSWORD_RESET_EMAIL = "accounts.send_password_reset_email"  # noqa: S105 (a task name)


class QueueUnavailable(APIException):
    """The broker does not answer: a request that needs a worker is refused before it writes."""

    status_code = 503
    default_detail = _(
        "The job queue is unreachable right now, so nothing was saved. Try again in a minute."
    )
    default_code = "queue_unavailable"


def queue_check() -> None:
    """Raise QueueUnavailable unless the broker answers within 2 s (eager mode needs none)."""
    if app.conf.task_always_eager:
        return
    try:
        with app.connection_for_write() as connection:
            connection.ensure_connection(max_retries=1, interval_start=0, timeout=2)
    except Exception as exc:  # kombu raises its own, socket and Redis errors alike
        logger.warning("job queue unreachable: %s", exc)
        raise QueueUnavailable from exc


def _publish(task_name: str, args: tuple[object, ...]) -> None:
    # Looking the task up finalises the app, which imports every tasks module once.
    task = app.tasks[task_name]
    if app.conf.task_always_eager:
        task.delay(*args)  # the demo and unit tests: run it here, errors and all
        return
    try:
        task.delay(*args)
    except Exception as exc:  # the broker went away after the row was committed
        # The row stays pending; the recovery sweep (recover_jobs) publishes it again.
        logger.warning("publishing %s%r failed, left for recover_jobs: %s", task_name, args, exc)


def enqueue_on_commit(task_name: str, *args: object) -> None:
    """Publish `task_name(*args)` after commit; in eager mode it runs there and then. A publish
    that fails is logged, never raised: the committed row is the job, and the sweep resends it."""
    transaction.on_commit(lambda: _publish(task_name, args))
