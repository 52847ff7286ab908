"""`Authorization: Token …` checked against the stored hash, the expiry, and recorded as used."""

from __future__ import annotations

from datetime import timedelta

from django.utils import timezone
from django.utils.translation import gettext_lazy as _
from rest_framework import exceptions
from rest_framework.authentication import TokenAuthentication

from ecomap.accounts.models import ApiToken, key_hash

# Writing the last-used time on every request would turn each read into a write.
LAST_USED_RESOLUTION = timedelta(minutes=1)


class HashedTokenAuthentication(TokenAuthentication):
    """DRF's header format; the key is hashed before the lookup, never stored or compared raw."""

    def authenticate_credentials(self, key):
        try:
            token = ApiToken.objects.select_related("user").get(key_hash=key_hash(key))
        except ApiToken.DoesNotExist:
            raise exceptions.AuthenticationFailed(_("Invalid token.")) from None
        if not token.user.is_active:
            raise exceptions.AuthenticationFailed(_("User inactive or deleted."))
        now = timezone.now()
        if token.expires_at <= now:
            raise exceptions.AuthenticationFailed(
                _("The token expired; create a new one on your account page.")
            )
        if token.last_used_at is None or now - token.last_used_at > LAST_USED_RESOLUTION:
            ApiToken.objects.filter(pk=token.pk).update(last_used_at=now)
        return token.user, token
