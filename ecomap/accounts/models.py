"""A user's API token, stored as a SHA-256 hash: the key itself is shown once and kept nowhere."""

from __future__ import annotations

import hashlib

from django.conf import settings
from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy as _


def key_hash(key: str) -> str:
    return hashlib.sha256(key.encode()).hexdigest()


class ApiToken(models.Model):
    user = models.OneToOneField(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="api_token",
        verbose_name=_("user"),
    )
    # The key's first characters, so the owner can tell which key a script uses.
    prefix = models.CharField(_("starts with"), max_length=8)
    # Every authenticated API request looks its token up by this (unique, so indexed).
    key_hash = models.CharField(max_length=64, unique=True, editable=False)
    created_at = models.DateTimeField(_("created"), auto_now_add=True)
    expires_at = models.DateTimeField(_("expires"))
    last_used_at = models.DateTimeField(_("last used"), null=True, blank=True)

    class Meta:
        verbose_name = _("API token")
        verbose_name_plural = _("API tokens")

    def __str__(self) -> str:
        return f"{self.prefix}… ({self.user})"

    @property
    def expired(self) -> bool:
        return self.expires_at <= timezone.now()
