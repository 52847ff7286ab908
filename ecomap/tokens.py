"""Per-user API tokens (`Authorization: Token …`): one per user, created, regenerated, revoked."""

from __future__ import annotations

import logging

from django.db import transaction
from rest_framework.authtoken.models import Token

logger = logging.getLogger(__name__)


def token_get_for(*, user) -> Token | None:
    return Token.objects.filter(user=user).first()


def token_create_for(*, user) -> Token:
    """A new token for the user; an existing one is replaced and stops working at once."""
    with transaction.atomic():
        replaced, _ = Token.objects.filter(user=user).delete()
        token = Token.objects.create(user=user)
    logger.info("api token %s for user %s", "regenerated" if replaced else "created", user.pk)
    return token


def token_revoke_for(*, user) -> bool:
    """Delete the user's token; False when there was none."""
    deleted, _ = Token.objects.filter(user=user).delete()
    if deleted:
        logger.info("api token revoked for user %s", user.pk)
    return bool(deleted)
