"""Evaluation jobs: the recovery sweep Celery beat runs every minute, notification e-mails,
team webhook deliveries and the catalog-drift check after catalog writes."""

from __future__ import annotations

import logging
from smtplib import SMTPException

from celery import shared_task

from ecomap.jobs import DURABLE_TASK
from evaluations.decisions.drift import catalog_drift_check
from evaluations.notifications.mail import notification_email_send
from evaluations.notifications.webhooks import webhook_deliver
from evaluations.recovery import jobs_recover

logger = logging.getLogger(__name__)


# Short and idempotent: a late or doubled run sends a few messages twice, which the jobs ignore.
@shared_task(name="evaluations.recover_jobs", soft_time_limit=50, time_limit=60)
def recover_jobs() -> dict[str, dict[str, int]]:
    return jobs_recover()


# One e-mail; a mail server that is down or refuses is retried with backoff like the database.
# The send is claimed on the notification row, so a redelivered message never mails twice.
@shared_task(
    name="evaluations.send_notification_email",
    **{**DURABLE_TASK, "autoretry_for": (*DURABLE_TASK["autoretry_for"], SMTPException, OSError)},
    soft_time_limit=30,
    time_limit=60,
)
def send_notification_email(notification_id: int) -> None:
    notification_email_send(notification_id=notification_id)


# One attempt takes at most the 5 s request timeout; the limits only stop a hung connection.
# A failed attempt schedules the next as a new message after its backoff (the row counts the
# attempts); when that publish fails, the row waits pending for the recovery sweep.
@shared_task(
    name="evaluations.deliver_webhook",
    bind=True,
    **DURABLE_TASK,
    soft_time_limit=30,
    time_limit=60,
)
def deliver_webhook(self, delivery_id: int) -> None:
    attempt = webhook_deliver(delivery_id=delivery_id)
    if attempt is None or attempt.retry_in is None:
        return
    try:
        self.apply_async((delivery_id,), countdown=attempt.retry_in)
    except Exception as exc:  # the broker went away; the sweep sends it again
        logger.warning("webhook delivery %s: retry not scheduled: %s", delivery_id, exc)


# After a catalog write that touches an approved decision's rows. Rerunning is a no-op (the
# same drift is not recorded, flagged or announced twice); a large catalog import touches few
# decisions, each checked in its own short transaction.
@shared_task(
    name="evaluations.check_catalog_drift", **DURABLE_TASK, soft_time_limit=240, time_limit=300
)
def check_catalog_drift(refs: list[str] | None = None) -> dict[str, int]:
    return catalog_drift_check(refs=refs)
