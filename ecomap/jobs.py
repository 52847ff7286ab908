"""What the recovery sweep asks of every kind of job row (imports, snapshots, reports): which
rows look orphaned, and sending them again or failing them."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timedelta

from django.db import InterfaceError, OperationalError
from django.db.models import Q, QuerySet

from ecomap.dispatch import enqueue_on_commit
from ecomap.outage import JOB_OUTAGE_ERRORS

# Task options every job shares: the message is acknowledged only after the task returns and is
# put back when the worker dies, so a killed worker's job runs again; database hiccups and a
# cache or broker (Redis) that stopped answering are retried with backoff (the job services are
# idempotent, a rerun is harmless). Past max_retries the row stays running and the recovery
# sweep sends it again once its heartbeat is old.
DURABLE_TASK = {
    "acks_late": True,
    "reject_on_worker_lost": True,
    "autoretry_for": (OperationalError, InterfaceError, *JOB_OUTAGE_ERRORS),
    "retry_backoff": 2,
    "retry_backoff_max": 60,
    "max_retries": 5,
}


def silent_since(cutoff: datetime) -> Q:
    """Running rows whose heartbeat (or, before the first one, start) is older than `cutoff`."""
    return Q(heartbeat_at__lt=cutoff) | Q(heartbeat_at__isnull=True, started_at__lt=cutoff)


def jobs_resend(
    rows: QuerySet,
    *,
    task_name: str,
    now: datetime,
    pending_grace: timedelta,
    running_limit: timedelta,
    max_attempts: int | None = None,
    fail: Callable[[object, int], None] | None = None,
    key: Callable[[object], object] = lambda pk: pk,
) -> dict[str, int]:
    """Publish again the rows pending past `pending_grace` and the running rows silent past
    `running_limit`; a row that has already run `max_attempts` times is failed instead."""
    counts = {"republished": 0, "rerun": 0}
    if max_attempts is not None:
        counts["failed"] = 0
    waiting = rows.filter(status="pending", created_at__lt=now - pending_grace)
    for pk in waiting.values_list("pk", flat=True):
        enqueue_on_commit(task_name, key(pk))
        counts["republished"] += 1
    stuck = rows.filter(silent_since(now - running_limit), status="running")
    fields = ("pk", "attempts") if max_attempts is not None else ("pk",)
    for pk, *attempts in stuck.values_list(*fields):
        if attempts and attempts[0] >= max_attempts:
            fail(pk, attempts[0])
            counts["failed"] += 1
        else:
            enqueue_on_commit(task_name, key(pk))
            counts["rerun"] += 1
    return counts
