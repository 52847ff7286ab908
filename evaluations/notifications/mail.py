"""Notification e-mails: each notification is e-mailed at most once, whoever runs the job."""

from __future__ import annotations

import logging

from django.conf import settings
from django.core.mail import EmailMessage
from django.utils import timezone, translation
from django.utils.translation import gettext as _

from evaluations.models import Notification
from evaluations.notifications.services import evaluation_url, event_sentence

logger = logging.getLogger(__name__)


def notification_email(notification: Notification) -> EmailMessage:
    """The e-mail of a notification, in the site's language (people have no language of their
    own yet); subject and body name the evaluation and link to it."""
    evaluation = notification.evaluation
    actor = notification.actor.get_username() if notification.actor else _("someone")
    with translation.override(settings.LANGUAGE_CODE):
        sentence = event_sentence(
            event=notification.event,
            actor=actor,
            title=evaluation.title,
            revision=notification.revision,
        )
        body = "\n\n".join(
            [
                sentence,
                _("Open it: %(url)s") % {"url": evaluation_url(evaluation)},
                _(
                    "You get this e-mail as a member of the team “%(team)s” in EcoMap; your "
                    "inbox lists every notification: %(inbox)s"
                )
                % {"team": evaluation.team.name, "inbox": f"{settings.SITE_URL}/inbox/"},
            ]
        )
    return EmailMessage(
        subject=f"[EcoMap] {sentence}",
        body=body,
        to=[notification.recipient.email],
        headers={"X-EcoMap-Event": notification.event},
    )


def notification_email_send(*, notification_id: int) -> bool:
    """E-mail one notification; False when there is nothing to send (gone, no address, or sent).

    The claim is a conditional update of emailed_at, so two workers never both send it; a send
    that fails gives the claim back and raises, for the job to retry."""
    notification = (
        Notification.objects.filter(pk=notification_id, emailed_at__isnull=True)
        .select_related("recipient", "actor", "evaluation__team")
        .first()
    )
    if notification is None or not notification.recipient.email:
        return False
    claimed_at = timezone.now()
    claimed = Notification.objects.filter(pk=notification_id, emailed_at__isnull=True).update(
        emailed_at=claimed_at
    )
    if not claimed:
        return False
    try:
        notification_email(notification).send()
    except Exception:
        Notification.objects.filter(pk=notification_id, emailed_at=claimed_at).update(
            emailed_at=None
        )
        raise
    logger.info("notification e-mailed", extra={"notification": notification_id})
    return True
