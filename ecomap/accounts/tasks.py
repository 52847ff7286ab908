"""Account jobs: the password-reset e-mail."""

from __future__ import annotations

from smtplib import SMTPException

from celery import shared_task

from ecomap.accounts.password_reset import password_reset_email_send
from ecomap.jobs import DURABLE_TASK


# One e-mail; a mail server that is down or refuses is retried with backoff. A redelivery may
# mail a second link, which is harmless: either works once, and using one spends both.
@shared_task(
    name="accounts.send_password_reset_email",
    **{**DURABLE_TASK, "autoretry_for": (*DURABLE_TASK["autoretry_for"], SMTPException, OSError)},
    soft_time_limit=30,
    time_limit=60,
)
def send_password_reset_email(user_id: int, language: str) -> None:
    password_reset_email_send(user_id=user_id, language=language)
