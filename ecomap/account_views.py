"""Account pages: the user's API token (create, regenerate, revoke) and password reset by
e-mail (Django's token views with the site's templates, the request rate-limited)."""

from __future__ import annotations

import math

from axes.utils import reset as axes_reset
from django.conf import settings
from django.contrib import messages
from django.contrib.auth import views as auth_views
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse, reverse_lazy
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from django.views.decorators.http import require_GET, require_POST

from ecomap.accounts.models import key_hash
from ecomap.accounts.password_reset import QueuedPasswordResetForm
from ecomap.outage import page_rate_limit_wait
from ecomap.tokens import token_create_for, token_get_for, token_revoke_for

# The new key waits in the (server-side) session for the one page view that shows it.
NEW_TOKEN_SESSION_KEY = "account:new-api-token"  # noqa: S105 (a session key name, not a secret)


class SignInView(auth_views.LoginView):
    """The sign-in page: username and password (unless LOCAL_LOGIN is off) and, with
    OIDC_ISSUER set, a button that signs in through the company's identity provider."""

    def get_context_data(self, **kwargs):
        context = super().get_context_data(**kwargs)
        context.update(
            sso=bool(settings.OIDC_ISSUER),
            sso_name=settings.OIDC_PROVIDER_NAME,
            local_login=settings.LOCAL_LOGIN,
            sso_failed=self.request.GET.get("sso") == "failed",
        )
        return context

    def post(self, request, *args, **kwargs):
        if not settings.LOCAL_LOGIN:
            # The password backend refuses anyway; the page says why instead of "no match".
            context = self.get_context_data(form=self.get_form())
            context["local_refused"] = True
            return self.render_to_response(context, status=403)
        return super().post(request, *args, **kwargs)


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


# ---- password reset ------------------------------------------------------------------------------


class PasswordResetView(auth_views.PasswordResetView):
    """Ask for a reset link. Every address, known or not, gets the same page, answered as fast
    (a job mails active accounts with a usable password); requests are counted per address (the
    `password_reset` rate), failing open when the cache is down."""

    template_name = "registration/password_reset_form.html"
    form_class = QueuedPasswordResetForm  # the mail goes out from a job
    success_url = reverse_lazy("account:password-reset-done")

    def post(self, request, *args, **kwargs):
        wait = page_rate_limit_wait(request, scope="password_reset")
        if wait is None:
            return super().post(request, *args, **kwargs)
        minutes = max(1, math.ceil(wait / 60))
        form = self.get_form()
        form.full_clean()
        form.add_error(
            None,
            ngettext(
                "Too many reset requests from this address. Try again in %(minutes)d minute.",
                "Too many reset requests from this address. Try again in %(minutes)d minutes.",
                minutes,
            )
            % {"minutes": minutes},
        )
        response = self.render_to_response(self.get_context_data(form=form), status=429)
        response["Retry-After"] = str(math.ceil(wait))
        return response


class PasswordResetDoneView(auth_views.PasswordResetDoneView):
    template_name = "registration/password_reset_done.html"


class PasswordResetConfirmView(auth_views.PasswordResetConfirmView):
    """Set a new password from the e-mailed link; the link works once (the token hashes the
    password it replaces). A lockout of the account ends with the reset."""

    template_name = "registration/password_reset_confirm.html"
    success_url = reverse_lazy("account:password-reset-complete")

    def form_valid(self, form):
        response = super().form_valid(form)
        axes_reset(username=form.user.get_username())
        return response


class PasswordResetCompleteView(auth_views.PasswordResetCompleteView):
    template_name = "registration/password_reset_complete.html"
