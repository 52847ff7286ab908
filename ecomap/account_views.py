"""Account pages: the user's API token (create, regenerate, revoke)."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_POST

from ecomap.accounts.models import key_hash
from ecomap.tokens import token_create_for, token_get_for, token_revoke_for

# The new key waits in the (server-side) session for the one page view that shows it.
NEW_TOKEN_SESSION_KEY = "account:new-api-token"  # noqa: S105 (a session key name, not a secret)


@login_required
@require_GET
def token_view(request: HttpRequest) -> HttpResponse:
    token = token_get_for(user=request.user)
    new_key = request.session.pop(NEW_TOKEN_SESSION_KEY, None)
    # The key lives in the session only until this one view shows it, and only if still current.
    shown_key = (
        new_key if token is not None and new_key and key_hash(new_key) == token.key_hash else None
    )
    return render(
        request,
        "account/token.html",
        {
            "token": token,
            "new_key": shown_key,
            "api_root": request.build_absolute_uri(reverse("api:api-root")),
        },
    )


@login_required
@require_POST
def token_create_view(request: HttpRequest) -> HttpResponse:
    new = token_create_for(user=request.user)
    request.session[NEW_TOKEN_SESSION_KEY] = new.key
    messages.success(request, _("A new API token was created. Copy it now: it is shown once."))
    return redirect("account:token")


@login_required
@require_POST
def token_revoke_view(request: HttpRequest) -> HttpResponse:
    if token_revoke_for(user=request.user):
        messages.success(request, _("Your API token was revoked; requests using it now fail."))
    else:
        messages.info(request, _("You had no API token."))
    return redirect("account:token")
