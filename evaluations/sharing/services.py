"""Creating, revoking and opening share links; every open is logged."""

from __future__ import annotations

import hashlib
import secrets
from datetime import timedelta

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from evaluations.audit.services import audit_write
from evaluations.errors import InvalidInput
from evaluations.models import Evaluation
from evaluations.review.editing import role_require
from evaluations.sharing.models import ShareAccess, ShareLink
from evaluations.teams.choices import Role

# The choices the form offers; longer links are refused: an outsider's access should lapse.
SHARE_DAYS = (1, 7, 30, 90)
KEY_PREFIX = "shr_"


class ShareLinkGone(Exception):
    """The link existed but has expired or was revoked (the page says so, 410)."""


def share_key_hash(key: str) -> str:
    return hashlib.sha256(key.encode()).hexdigest()


@transaction.atomic
def share_link_create(
    *, evaluation: Evaluation, actor, label: str, days: int
) -> tuple[ShareLink, str]:
    """A new link; returns it and its key, which exists only in this answer (stored hashed)."""
    role_require(evaluation=evaluation, team=evaluation.team, actor=actor, role=Role.EDITOR)
    label = " ".join((label or "").split())
    errors: dict[str, list[str]] = {}
    if not label:
        errors["label"] = [_("Say who the link is for (it is shown in the access log).")]
    if days not in SHARE_DAYS:
        errors["days"] = [
            _("A link lasts one of: {days} days.").format(days=", ".join(map(str, SHARE_DAYS)))
        ]
    if errors:
        raise InvalidInput(next(iter(errors.values()))[0], errors=errors)
    key = KEY_PREFIX + secrets.token_urlsafe(32)
    link = ShareLink.objects.create(
        evaluation=evaluation,
        label=label[:120],
        key_hash=share_key_hash(key),
        created_by=actor,
        expires_at=timezone.now() + timedelta(days=days),
    )
    audit_write(
        evaluation, actor, "share_created", changes={"shared_with": link.label, "days": days}
    )
    return link, key


@transaction.atomic
def share_link_revoke(*, link: ShareLink, actor) -> ShareLink:
    evaluation = link.evaluation
    role_require(evaluation=evaluation, team=evaluation.team, actor=actor, role=Role.EDITOR)
    updated = ShareLink.objects.filter(pk=link.pk, revoked_at__isnull=True).update(
        revoked_at=timezone.now(), revoked_by=actor
    )
    if updated:  # revoking twice is not a second event
        audit_write(evaluation, actor, "share_revoked", changes={"shared_with": link.label})
    link.refresh_from_db()
    return link


def share_link_active(*, key: str) -> ShareLink:
    """The active link of `key` with its evaluation; ShareLink.DoesNotExist for an unknown key,
    ShareLinkGone for an expired or revoked one."""
    link = ShareLink.objects.select_related("evaluation__team").get(key_hash=share_key_hash(key))
    if not link.active:
        raise ShareLinkGone
    return link


def share_access_record(*, link: ShareLink, kind: str, address: str, user_agent: str) -> None:
    """Log one opening of the link (what, when, from which address, with which browser)."""
    ShareAccess.objects.create(
        link=link, kind=kind, address=address[:45], user_agent=user_agent[:200]
    )
