"""Single sign-on with OpenID Connect (mozilla-django-oidc), configured by the environment.

OIDC_ISSUER names the provider (Keycloak, Dex, Entra ID, Okta, Google…); its endpoints come
from the issuer's discovery document, fetched when first needed and kept for an hour. An account
is found by the ID token's issuer and subject (ExternalIdentity); the first sign-in links an
existing account only by an address the provider says it verified, and only under the rule of
account_to_link (docs/security.md), else makes a new one. Each
sign-in sends `sso_signed_in` with the groups claim; evaluations.teams.sso maps groups to teams.
"""

from __future__ import annotations

import hashlib
import logging
import re
import threading
import time
from typing import Any

import requests
from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.backends import ModelBackend
from django.core.exceptions import ImproperlyConfigured, SuspiciousOperation
from django.db import transaction
from django.http import Http404
from django.utils import timezone
from mozilla_django_oidc.auth import OIDCAuthenticationBackend
from mozilla_django_oidc.utils import import_from_settings
from mozilla_django_oidc.views import OIDCAuthenticationCallbackView, OIDCAuthenticationRequestView

from ecomap.accounts.models import ExternalIdentity
from ecomap.accounts.signals import sso_signed_in

logger = logging.getLogger(__name__)

DISCOVERY_TTL_S = 3600
# mozilla-django-oidc's endpoint settings, and where the discovery document names each one.
DISCOVERED = {
    "OIDC_OP_AUTHORIZATION_ENDPOINT": "authorization_endpoint",
    "OIDC_OP_TOKEN_ENDPOINT": "token_endpoint",
    "OIDC_OP_USER_ENDPOINT": "userinfo_endpoint",
    "OIDC_OP_JWKS_ENDPOINT": "jwks_uri",
}

_discovery: dict[str, Any] = {}
_discovery_lock = threading.Lock()


def sso_enabled() -> bool:
    return bool(getattr(settings, "OIDC_ISSUER", ""))


def discovery(issuer: str | None = None) -> dict[str, Any]:
    """The issuer's /.well-known/openid-configuration, cached for DISCOVERY_TTL_S; its `issuer`
    must be the configured one (OpenID Connect Discovery 1.0, section 4.3)."""
    issuer = (issuer or settings.OIDC_ISSUER).rstrip("/")
    with _discovery_lock:
        cached = _discovery.get(issuer)
        if cached and cached[0] > time.monotonic():
            return cached[1]
    response = requests.get(
        f"{issuer}/.well-known/openid-configuration",
        timeout=settings.OIDC_TIMEOUT,
        verify=settings.OIDC_VERIFY_SSL,
    )
    response.raise_for_status()
    document = response.json()
    if str(document.get("issuer", "")).rstrip("/") != issuer:
        raise ImproperlyConfigured(f"the discovery document of {issuer} names another issuer")
    with _discovery_lock:
        _discovery[issuer] = (time.monotonic() + DISCOVERY_TTL_S, document)
    return document


def discovery_forget() -> None:
    with _discovery_lock:
        _discovery.clear()


def oidc_setting(attr: str, *args):
    """mozilla-django-oidc's settings, with the provider's endpoints from discovery."""
    if attr in DISCOVERED:
        return discovery()[DISCOVERED[attr]]
    return import_from_settings(attr, *args)


# ---- accounts -----------------------------------------------------------------------------------

_USERNAME_CHARS = re.compile(r"[^\w.@+-]")


def username_for(claims: dict[str, Any]) -> str:
    """A free username from the claims: preferred_username, else the address's local part;
    with a short hash of issuer and subject when that name is taken."""
    base = claims.get("preferred_username") or (claims.get("email") or "").split("@")[0]
    base = _USERNAME_CHARS.sub("-", str(base or "user"))[:120].strip("-") or "user"
    User = get_user_model()
    if not User.objects.filter(username__iexact=base).exists():
        return base
    digest = hashlib.sha256(f"{settings.OIDC_ISSUER}|{claims['sub']}".encode()).hexdigest()
    return f"{base}-{digest[:8]}"


def verified_address(claims: dict[str, Any]) -> str | None:
    """The claimed address if EcoMap may trust it: `email_verified` is the JSON boolean true (not
    the string "true", not 1, not missing) and the address is plain ASCII (no look-alike letters
    that a case-insensitive comparison folds into another address: ſ → S, ı → I, K → k)."""
    email = claims.get("email")
    if claims.get("email_verified") is not True or not isinstance(email, str):
        return None
    if not email or not email.isascii() or email != email.strip() or "@" not in email:
        return None
    return email


def account_to_link(claims: dict[str, Any]):
    """The existing account a first sign-in may take over by its address, or None: the verified
    address (verified_address) must be, character for character, the address of exactly one
    account (no other has it in any case), which is active, neither staff nor superuser (those
    are linked by a site admin, never by a claim), and not linked to any single sign-on
    identity yet (at this provider or another)."""
    email = verified_address(claims)
    if email is None:
        return None
    same = list(get_user_model().objects.filter(email__iexact=email)[:2])
    if len(same) != 1:
        return None
    (account,) = same
    if account.email != email or not account.is_active:
        return None
    if account.is_staff or account.is_superuser:
        return None
    if ExternalIdentity.objects.filter(user=account).exists():
        return None
    return account


def address_for_new_account(claims: dict[str, Any]) -> str:
    """The address a new account keeps: the verified one when no account has it in any case,
    else none (invitations trust an account's address, so it must be its owner's)."""
    email = verified_address(claims)
    if email is None or get_user_model().objects.filter(email__iexact=email).exists():
        return ""
    return email


class OIDCBackend(OIDCAuthenticationBackend):
    """mozilla-django-oidc's backend with the endpoints from discovery (looked up only when a
    sign-in through the provider happens), the ID token's issuer and audience checked, accounts
    found by issuer and subject, and teams set from the groups claim."""

    def __init__(self, *args, **kwargs):
        # Django builds every backend for every sign-in, password ones included: nothing here
        # may reach the provider.
        self.OIDC_RP_CLIENT_ID = settings.OIDC_RP_CLIENT_ID
        self.OIDC_RP_CLIENT_SECRET = settings.OIDC_RP_CLIENT_SECRET
        self.OIDC_RP_SIGN_ALGO = settings.OIDC_RP_SIGN_ALGO
        self.OIDC_RP_IDP_SIGN_KEY = None
        self.UserModel = get_user_model()

    get_settings = staticmethod(oidc_setting)

    @property
    def OIDC_OP_TOKEN_ENDPOINT(self) -> str:  # noqa: N802 (the library's attribute names)
        return oidc_setting("OIDC_OP_TOKEN_ENDPOINT")

    @property
    def OIDC_OP_USER_ENDPOINT(self) -> str:  # noqa: N802
        return oidc_setting("OIDC_OP_USER_ENDPOINT")

    @property
    def OIDC_OP_JWKS_ENDPOINT(self) -> str:  # noqa: N802
        return oidc_setting("OIDC_OP_JWKS_ENDPOINT")

    def authenticate(self, request, **kwargs):
        if not sso_enabled():
            return None
        try:
            return super().authenticate(request, **kwargs)
        except (SuspiciousOperation, requests.RequestException) as exc:
            # A token that fails a check, or a provider that refuses the code: nobody is signed
            # in, and the sign-in page says it did not work (LOGIN_REDIRECT_URL_FAILURE).
            logger.warning("single sign-on refused: %s", exc)
            return None

    def verify_token(self, token, **kwargs):
        """The library checks the signature, expiry and nonce; the issuer and the audience are
        checked here (OpenID Connect Core 1.0, 3.1.3.7)."""
        payload = super().verify_token(token, **kwargs)
        if str(payload.get("iss", "")).rstrip("/") != settings.OIDC_ISSUER.rstrip("/"):
            raise SuspiciousOperation("ID token from another issuer")
        audience = payload.get("aud")
        audiences = audience if isinstance(audience, list) else [audience]
        if self.OIDC_RP_CLIENT_ID not in audiences:
            raise SuspiciousOperation("ID token for another client")
        self._id_claims = payload
        return payload

    def get_userinfo(self, access_token, id_token, payload):
        """The ID token's claims with the userinfo endpoint's on top (groups may be in either)."""
        claims = dict(payload or getattr(self, "_id_claims", {}) or {})
        info = super().get_userinfo(access_token, id_token, payload)
        if info.get("sub") not in (None, claims.get("sub")):
            raise SuspiciousOperation("userinfo for another subject")  # Core 1.0, 5.3.2
        return {**claims, **info}

    def verify_claims(self, claims) -> bool:
        return bool(claims.get("sub"))

    def filter_users_by_claims(self, claims):
        identity = ExternalIdentity.objects.filter(
            issuer=settings.OIDC_ISSUER, subject=claims["sub"]
        ).select_related("user")
        found = identity.first()
        if found is not None:
            # A deactivated account stays the match (and is refused by the callback), so that
            # signing in again never makes a fresh account for the same person.
            return self.UserModel.objects.filter(pk=found.user_id)
        linked = account_to_link(claims)
        if linked is not None:
            return self.UserModel.objects.filter(pk=linked.pk)
        return self.UserModel.objects.none()

    @transaction.atomic
    def create_user(self, claims):
        user = self.UserModel(
            username=username_for(claims),
            email=address_for_new_account(claims),
            first_name=(claims.get("given_name") or "")[:150],
            last_name=(claims.get("family_name") or "")[:150],
        )
        user.set_unusable_password()  # signs in through the provider only
        user.save()
        return self.update_user(user, claims)

    @transaction.atomic
    def update_user(self, user, claims):
        if not user.is_active:
            return user  # refused by the callback; nothing of theirs changes
        ExternalIdentity.objects.update_or_create(
            issuer=settings.OIDC_ISSUER,
            subject=claims["sub"],
            defaults={"user": user, "last_login_at": timezone.now()},
        )
        groups = claims.get(settings.OIDC_GROUPS_CLAIM) or []
        if isinstance(groups, str):
            groups = [groups]
        sso_signed_in.send(sender=type(self), user=user, groups=[str(g) for g in groups])
        return user


class SignInRequestView(OIDCAuthenticationRequestView):
    """Starts a sign-in at the provider (its authorization endpoint from discovery)."""

    get_settings = staticmethod(oidc_setting)

    def __init__(self, *args, **kwargs):
        super(OIDCAuthenticationRequestView, self).__init__(*args, **kwargs)
        self.OIDC_RP_CLIENT_ID = settings.OIDC_RP_CLIENT_ID

    @property
    def OIDC_OP_AUTH_ENDPOINT(self) -> str:  # noqa: N802
        return oidc_setting("OIDC_OP_AUTHORIZATION_ENDPOINT")

    def get(self, request):
        if not sso_enabled():
            raise Http404("Single sign-on is not configured")
        return super().get(request)


class SignInCallbackView(OIDCAuthenticationCallbackView):
    """Where the provider sends the person back; a failed sign-in returns to the sign-in page
    with a message (LOGIN_REDIRECT_URL_FAILURE)."""

    get_settings = staticmethod(oidc_setting)

    def get(self, request):
        if not sso_enabled():
            raise Http404("Single sign-on is not configured")
        return super().get(request)


class LocalPasswordBackend(ModelBackend):
    """Django's username-and-password sign-in while LOCAL_LOGIN is on; its permission checks
    always (an account that signs in through the provider keeps its permissions)."""

    def authenticate(self, request, username=None, password=None, **kwargs):
        if not settings.LOCAL_LOGIN:
            return None
        return super().authenticate(request, username=username, password=password, **kwargs)
