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


class ExternalIdentity(models.Model):
    """A person at the single sign-on provider (issuer and subject, the OIDC `iss` and `sub`),
    and the account they sign in as. Signing in finds the account by this pair, never by a
    name or an address the provider lets its users change."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="external_identities",
        verbose_name=_("user"),
    )
    issuer = models.CharField(_("issuer"), max_length=255)
    subject = models.CharField(_("subject"), max_length=255)
    created_at = models.DateTimeField(_("linked"), auto_now_add=True)
    last_login_at = models.DateTimeField(_("last sign-in"), null=True, blank=True)

    class Meta:
        verbose_name = _("single sign-on identity")
        verbose_name_plural = _("single sign-on identities")
        constraints = [
            # every sign-in looks the account up by this pair
            models.UniqueConstraint(fields=["issuer", "subject"], name="identity_unique_subject"),
        ]

    def __str__(self) -> str:
        return f"{self.subject} at {self.issuer}"
