"""Per-user API tokens (`Authorization: Token …`): one per user, created, regenerated, revoked.

Only a SHA-256 hash of the key is stored (ecomap.accounts.models.ApiToken); the key is returned
once, when it is created, for the page to show.
"""

from __future__ import annotations

import logging
import secrets
from dataclasses import dataclass
from datetime import timedelta

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from ecomap.accounts.models import ApiToken, key_hash

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class NewToken:
    """A token just made: the key (shown once) and its stored record."""

    key: str
    token: ApiToken


def token_get_for(*, user) -> ApiToken | None:
    return ApiToken.objects.filter(user=user).first()


def token_create_for(*, user) -> NewToken:
    """A new token for the user; an existing one is replaced and stops working at once."""
    key = secrets.token_hex(20)
    with transaction.atomic():
        replaced, _ = ApiToken.objects.filter(user=user).delete()
        token = ApiToken.objects.create(
            user=user,
            prefix=key[:6],
            key_hash=key_hash(key),
            expires_at=timezone.now() + timedelta(days=settings.API_TOKEN_DAYS),
        )
    logger.info("api token %s for user %s", "regenerated" if replaced else "created", user.pk)
    return NewToken(key=key, token=token)


def token_revoke_for(*, user) -> bool:
    """Delete the user's token; False when there was none."""
    deleted, _ = ApiToken.objects.filter(user=user).delete()
    if deleted:
        logger.info("api token revoked for user %s", user.pk)
    return bool(deleted)
