"""Notification e-mails: each notification is e-mailed at most once, whoever runs the job."""

from __future__ import annotations

import logging
import re

from django.conf import settings
from django.core.mail import EmailMessage
from django.utils import timezone, translation
from django.utils.translation import gettext as _

from ecomap.dispatch import SEND_NOTIFICATION_EMAIL, enqueue_on_commit
from evaluations.models import Step
from evaluations.notifications.choices import Event
from evaluations.notifications.models import Notification
from evaluations.notifications.services import evaluation_url, event_sentence

logger = logging.getLogger(__name__)


def _what_was_said(notification: Notification) -> list[str]:
    """The review's or the comment's words, each with the page it is about: the review the actor
    recorded at the notification's revision, or the actor's latest comment before it."""
    evaluation = notification.evaluation
    if notification.event in (Event.APPROVED, Event.APPROVAL_RECORDED, Event.CHANGES_REQUESTED):
        review = evaluation.reviews.filter(
            reviewer_id=notification.actor_id, revision=notification.revision
        ).first()
        if review is None:
            return []
        said = [review.comment] if review.comment else []
        said += [
            f"{Step(anchor).label}: {text}\n{evaluation_url(evaluation, anchor)}"
            for anchor, text in (review.step_comments or {}).items()
            if anchor in Step.values
        ]
        return said
    if notification.event == Event.COMMENTED:
        comment = (
            evaluation.comments.filter(
                author_id=notification.actor_id, created_at__lte=notification.created_at
            )
            .order_by("-created_at", "-id")
            .first()
        )
        if comment is not None:
            return [
                f"{comment.get_anchor_display()}: {comment.body}\n"
                f"{evaluation_url(evaluation, comment.anchor)}"
            ]
    return []


# Control characters and every kind of line break (\r, \n, \v, \f, U+0085, U+2028, U+2029).
_UNSAFE_IN_HEADER = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]+")


def header_safe(text: str) -> str:
    """One line for a mail header: a title may hold line breaks, which Django refuses in a
    header (BadHeaderError) and which would otherwise start a header of their own."""
    return " ".join(_UNSAFE_IN_HEADER.sub(" ", text).split())


def notification_email(notification: Notification) -> EmailMessage:
    """The e-mail of a notification, in the site's language (people have no language of their
    own yet): what happened, what the reviewer or commenter said, and links to the pages."""
    evaluation = notification.evaluation
    actor = notification.actor.get_username() if notification.actor else _("someone")
    with translation.override(settings.LANGUAGE_CODE):
        sentence = event_sentence(
            event=notification.event,
            actor=actor,
            title=evaluation.title,
            revision=notification.revision,
            about=notification.about,
            recipient=notification.recipient.get_username(),
        )
        body = "\n\n".join(
            [
                sentence,
                *_what_was_said(notification),
                _("Open it: %(url)s") % {"url": evaluation_url(evaluation)},
                _(
                    "You get this e-mail as a member of the team “%(team)s” in EcoMap; your "
                    "inbox lists every notification: %(inbox)s"
                )
                % {"team": evaluation.team.name, "inbox": f"{settings.SITE_URL}/inbox/"},
            ]
        )
    return EmailMessage(
        subject=header_safe(f"[EcoMap] {sentence}"),
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


def emails_recover(*, now, pending_grace, window) -> dict[str, int]:
    """For the recovery sweep: send again the e-mails of notifications still unsent past
    `pending_grace` (a message lost with the broker, or a send that kept failing), for `window`
    after they were made; the inbox item is there whatever happens."""
    unsent = (
        Notification.objects.filter(
            emailed_at__isnull=True,
            created_at__lt=now - pending_grace,
            created_at__gte=now - window,
        )
        .exclude(recipient__email="")
        .values_list("pk", flat=True)
    )
    count = 0
    for notification_id in unsent:
        enqueue_on_commit(SEND_NOTIFICATION_EMAIL, notification_id)
        count += 1
    return {"republished": count}
