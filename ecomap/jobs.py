"""The life of a job row (reports, capacity runs, matrix snapshots, imports): claimed by one worker,
beating while it runs, finished, failed with its reason or put back after an outage; and what
the recovery sweep asks of every kind of job row: which look orphaned, sending them again or
failing them."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timedelta

from django.db import InterfaceError, OperationalError, models
from django.db.models import F, Model, Q, QuerySet
from django.db.models.functions import Greatest
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

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


# The status values every job model's Status choices share.
PENDING, RUNNING, SUCCEEDED, FAILED = "pending", "running", "succeeded", "failed"
ERROR_MAX = 2000


class JobModel(models.Model):
    """What every job row keeps besides its own input and result: how far it is, how often it
    was tried, why it failed, and when it was asked for, started, last beat and finished (the
    recovery sweep reads the heartbeat). Each job model declares its `Status` choices (the same
    four values, its own words) and its `status` field."""

    progress = models.PositiveSmallIntegerField(_("progress (%)"), default=0)
    attempts = models.PositiveSmallIntegerField(_("attempts"), default=0)
    error = models.TextField(_("error"), blank=True)
    created_at = models.DateTimeField(_("requested"), auto_now_add=True)
    started_at = models.DateTimeField(_("started"), null=True, blank=True)
    # Written as the job progresses: a running job whose heartbeat stops has lost its worker.
    heartbeat_at = models.DateTimeField(_("last heartbeat"), null=True, blank=True)
    finished_at = models.DateTimeField(_("finished"), null=True, blank=True)

    class Meta:
        abstract = True

    @property
    def finished(self) -> bool:
        return self.status in (SUCCEEDED, FAILED)


class JobRows:
    """The lifecycle writes of one job model. Each is one conditional UPDATE, so a job delivered
    twice, or again after its worker died, is claimed once and a finished row is never touched:

        reports = JobRows(Report)
        if reports.claim(pk):
            reports.progress(pk, 50)
            reports.succeed(pk, file=name)
    """

    def __init__(self, model: type[Model]):
        self.model = model

    def claim(self, pk: int, *, progress: int = 5, max_attempts: int | None = None) -> bool:
        """Take a pending row (or a running one whose worker died) for this worker, counting
        the attempt; False when it is gone, finished, or has run `max_attempts` times."""
        now = timezone.now()
        rows = self.model.objects.filter(pk=pk, status__in=[PENDING, RUNNING])
        if max_attempts is not None:
            rows = rows.filter(attempts__lt=max_attempts)
        claimed = rows.update(
            status=RUNNING,
            started_at=now,
            heartbeat_at=now,
            progress=progress,
            error="",
            attempts=F("attempts") + 1,
        )
        return bool(claimed)

    def progress(self, pk: int, percent: int) -> None:
        """Say how far a running job is; the write is its heartbeat."""
        self.model.objects.filter(pk=pk, status=RUNNING).update(
            progress=percent, heartbeat_at=timezone.now()
        )

    def succeed(self, pk: int, **fields) -> int:
        """Store the result of a running job: 0 when it was failed or taken meanwhile."""
        return self.model.objects.filter(pk=pk, status=RUNNING).update(
            status=SUCCEEDED, progress=100, finished_at=timezone.now(), **fields
        )

    def fail(self, pk: int, error: str, **fields) -> None:
        """Fail a job that has not succeeded, with the reason its reader will see."""
        self.model.objects.filter(pk=pk).exclude(status=SUCCEEDED).update(
            status=FAILED, error=str(error)[:ERROR_MAX], finished_at=timezone.now(), **fields
        )

    def give_up(self, pk: int, max_attempts: int, **fields) -> int:
        """Fail an unfinished row already claimed `max_attempts` times (its worker killed each
        time, say), saying so; 0 when it is not such a row."""
        return self.model.objects.filter(
            pk=pk, status__in=[PENDING, RUNNING], attempts__gte=max_attempts
        ).update(
            status=FAILED,
            error=f"stopped {max_attempts} times without finishing",
            finished_at=timezone.now(),
            **fields,
        )

    def restart(self, pk: int, **fields) -> None:
        """Ask again for a failed job: pending, its attempts, progress and error cleared."""
        self.model.objects.filter(pk=pk, status=FAILED).update(
            status=PENDING, progress=0, error="", attempts=0, finished_at=None, **fields
        )

    def requeue(self, pk: int) -> None:
        """Put a job cut off by an outage (cache or broker) back in the queue: pending again,
        the attempt not counted, so a retry or the recovery sweep runs it later instead of
        failing it for good."""
        self.model.objects.filter(pk=pk, status=RUNNING).update(
            status=PENDING, progress=0, attempts=Greatest(F("attempts") - 1, 0)
        )


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
