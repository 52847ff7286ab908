"""The password-reset e-mail, written and sent by a worker: the reset page then does the same
work for a known address as for an unknown one (no mail-server round trip to time)."""

from __future__ import annotations

import logging

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.forms import PasswordResetForm
from django.contrib.auth.tokens import default_token_generator
from django.core.mail import EmailMessage
from django.template.loader import render_to_string
from django.utils import translation
from django.utils.encoding import force_bytes
from django.utils.http import urlsafe_base64_encode

from ecomap.dispatch import SEND_PASSWORD_RESET_EMAIL, enqueue_on_commit

logger = logging.getLogger(__name__)

SUBJECT_TEMPLATE = "registration/password_reset_subject.txt"
BODY_TEMPLATE = "registration/password_reset_email.txt"


class QueuedPasswordResetForm(PasswordResetForm):
    """Django's reset form, with the mail handed to a job instead of sent in the request."""

    def send_mail(self, subject_template_name, email_template_name, context, *args, **kwargs):
        enqueue_on_commit(
            SEND_PASSWORD_RESET_EMAIL, context["user"].pk, translation.get_language() or "en"
        )


def password_reset_email_send(*, user_id: int, language: str) -> None:
    """Mail a reset link to the account, in `language`, if it may still reset its password.
    A mail-server error propagates, so the job retries it."""
    user = get_user_model()._default_manager.filter(pk=user_id, is_active=True).first()
    if user is None or not user.has_usable_password() or not user.email:
        return
    context = {
        "user": user,
        "uid": urlsafe_base64_encode(force_bytes(user.pk)),
        "token": default_token_generator.make_token(user),
        # The link names the configured site, never a request's Host header.
        "site_url": settings.SITE_URL,
    }
    with translation.override(language):
        subject = " ".join(render_to_string(SUBJECT_TEMPLATE, context).split())
        body = render_to_string(BODY_TEMPLATE, context)
    EmailMessage(subject, body, None, [user.email]).send()
    logger.info("password reset e-mail sent", extra={"user": user.pk})
