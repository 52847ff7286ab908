"""Team pages: fetch the team through the access helper, call one service, render or redirect.

Non-members get 404 (as for a missing team); members who are not admins see everything
read-only and get the 403 page if they post a change.
"""

from __future__ import annotations

import functools

from django.conf import settings
from django.contrib import messages
from django.contrib.auth import get_user_model, login
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.http import urlencode
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from evaluations.errors import InvalidInput, NotAllowed
from evaluations.pages import save_or_form_error
from evaluations.selectors import role_allows
from evaluations.teams import selectors, services
from evaluations.teams.choices import Role
from evaluations.teams.forms import (
    InvitationForm,
    InvitationSignupForm,
    MemberRoleForm,
    TeamCreateForm,
    WebhookForm,
)
from evaluations.teams.models import Invitation, Team

# A new invitation's link waits in the (server-side) session for the one page view that shows it.
NEW_INVITATION_SESSION_KEY = "teams:new-invitation"


def refusals_as_403(view):
    """A change the services refuse for the actor's role answers with the branded 403 page."""

    @functools.wraps(view)
    def wrapper(request, *args, **kwargs):
        try:
            return view(request, *args, **kwargs)
        except NotAllowed as exc:
            raise PermissionDenied(exc.message) from exc

    return wrapper


def _team_for_admin(request: HttpRequest, slug: str) -> Team:
    team = selectors.team_get_for_user(user=request.user, slug=slug)
    if not role_allows(team.user_role, Role.ADMIN):
        raise PermissionDenied(_("Only a team admin can do this."))
    return team


def _member_user(team: Team, user_id: int):
    return get_object_or_404(get_user_model(), pk=user_id, memberships__team=team)


def _detail(request: HttpRequest, team: Team, *, status: int = 200, **context) -> HttpResponse:
    """The team page; a failed form comes back bound, with its errors, the others fresh."""
    is_admin = role_allows(team.user_role, Role.ADMIN)
    members = list(selectors.team_members(team))
    new_invitation = request.session.pop(NEW_INVITATION_SESSION_KEY, None)
    invitations = list(selectors.invitations_open(team))
    if new_invitation and not any(i.pk == new_invitation.get("pk") for i in invitations):
        new_invitation = None
    context = {
        "team": team,
        "is_admin": is_admin,
        "role_label": Role(team.user_role).label,
        "members": members,
        "admin_names": [m.user.get_username() for m in members if m.role == Role.ADMIN],
        "invitations": invitations,
        "new_invitation": new_invitation,
        "role_choices": Role.choices,
        "invite_form": InvitationForm(),
        "webhook_form": WebhookForm(
            initial={"url": team.webhook_url, "format": team.webhook_format or "generic"}
        ),
        **context,
    }
    return render(request, "teams/detail.html", context, status=status)


# ---------------------------------------------------------------------------------------------
# Pages


@login_required
def team_list_view(request: HttpRequest) -> HttpResponse:
    """The user's teams, and a form to start one (whoever starts a team is its first admin)."""
    form = TeamCreateForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        created: list[Team] = []
        saved = save_or_form_error(
            form,
            lambda: created.append(
                services.team_create(
                    name=form.cleaned_data["name"],
                    slug=form.cleaned_data["slug"],
                    admin=request.user,
                )
            ),
        )
        if saved:
            messages.success(request, _("Team created: you are its admin."))
            return redirect("teams:detail", slug=created[0].slug)
    memberships = list(selectors.memberships_for_user(user=request.user))
    status = 400 if request.method == "POST" else 200
    return render(
        request, "teams/list.html", {"memberships": memberships, "form": form}, status=status
    )


@login_required
def team_detail_view(request: HttpRequest, slug: str) -> HttpResponse:
    return _detail(request, selectors.team_get_for_user(user=request.user, slug=slug))


# ---------------------------------------------------------------------------------------------
# Admin changes


@login_required
@require_POST
@refusals_as_403
def member_role_view(request: HttpRequest, slug: str, user_id: int) -> HttpResponse:
    team = _team_for_admin(request, slug)
    user = _member_user(team, user_id)
    form = MemberRoleForm(request.POST)
    if not form.is_valid():
        return _detail(request, team, status=400, member_error=_("Choose one of the roles."))
    try:
        services.member_role_change(
            team=team, actor=request.user, user=user, role=form.cleaned_data["role"]
        )
    except InvalidInput as exc:
        return _detail(request, team, status=400, member_error=exc.message)
    messages.success(
        request,
        _("%(user)s is now %(role)s.")
        % {"user": user.get_username(), "role": Role(form.cleaned_data["role"]).label},
    )
    return redirect("teams:detail", slug=team.slug)


@login_required
@require_POST
@refusals_as_403
def member_remove_view(request: HttpRequest, slug: str, user_id: int) -> HttpResponse:
    team = _team_for_admin(request, slug)
    user = _member_user(team, user_id)
    try:
        services.member_remove(team=team, actor=request.user, user=user)
    except InvalidInput as exc:
        return _detail(request, team, status=400, member_error=exc.message)
    messages.success(request, _("%(user)s left the team.") % {"user": user.get_username()})
    if user == request.user:
        return redirect("teams:list")
    return redirect("teams:detail", slug=team.slug)


@login_required
@require_POST
@refusals_as_403
def invitation_create_view(request: HttpRequest, slug: str) -> HttpResponse:
    """Adding a member: an invitation to an e-mail address, which the person accepts. The admin
    is told the same whether an account has the address or not."""
    team = _team_for_admin(request, slug)
    form = InvitationForm(request.POST)
    made = []
    if form.is_valid():
        saved = save_or_form_error(
            form,
            lambda: made.append(
                services.invitation_create(
                    team=team,
                    actor=request.user,
                    email=form.cleaned_data["email"],
                    role=form.cleaned_data["role"],
                )
            ),
        )
        if saved:
            new = made[0]
            url = request.build_absolute_uri(reverse("teams:accept", args=[new.key]))
            emailed = services.invitation_email_send(invitation=new.invitation, accept_url=url)
            if emailed:
                messages.success(
                    request,
                    _("An invitation was sent to %(email)s. They join when they accept it.")
                    % {"email": new.invitation.email},
                )
            request.session[NEW_INVITATION_SESSION_KEY] = {
                "pk": new.invitation.pk,
                "url": url,
                "email": new.invitation.email,
                "emailed": emailed,
            }
            return redirect("teams:detail", slug=team.slug)
    return _detail(request, team, status=400, invite_form=form)


@login_required
@require_POST
@refusals_as_403
def invitation_withdraw_view(request: HttpRequest, slug: str, pk: int) -> HttpResponse:
    team = _team_for_admin(request, slug)
    invitation = get_object_or_404(Invitation, pk=pk, team=team)
    try:
        services.invitation_withdraw(invitation=invitation, actor=request.user)
    except InvalidInput as exc:
        messages.error(request, exc.message)
    else:
        messages.success(
            request,
            _("The invitation to %(email)s was withdrawn; its link no longer works.")
            % {"email": invitation.email},
        )
    return redirect("teams:detail", slug=team.slug)


@login_required
@require_POST
@refusals_as_403
def webhook_view(request: HttpRequest, slug: str) -> HttpResponse:
    team = _team_for_admin(request, slug)
    form = WebhookForm(request.POST)
    if form.is_valid():
        saved = save_or_form_error(
            form,
            lambda: services.team_webhook_set(
                team=team,
                actor=request.user,
                url=form.cleaned_data["url"],
                secret=form.cleaned_data["secret"],
                format=form.cleaned_data["format"] or None,
            ),
        )
        if saved:
            if form.cleaned_data["url"]:
                messages.success(request, _("The webhook was saved."))
            else:
                messages.success(request, _("The webhook is off."))
            return redirect("teams:detail", slug=team.slug)
    return _detail(request, team, status=400, webhook_form=form)


# ---------------------------------------------------------------------------------------------
# Accepting an invitation


def invitation_accept_view(request: HttpRequest, key: str) -> HttpResponse:
    """The link of an invitation: join signed in as the invited address's account, or set up
    the account for that address (signed out, when none has it), or sign in as it first."""
    invitation = selectors.invitation_for_key(key)
    problem = selectors.invitation_problem(invitation)
    if problem is not None:
        if (
            problem.code == "used"
            and request.user.is_authenticated
            and invitation.accepted_by_id == request.user.pk
        ):
            return redirect("teams:detail", slug=invitation.team.slug)
        status = 404 if problem.code == "unknown" else 410
        return render(
            request, "teams/invitation_unusable.html", {"problem": problem}, status=status
        )
    context = {"invitation": invitation}
    if request.user.is_authenticated:
        if not selectors.invitation_for_account(invitation, request.user):
            # Another account than the invited address's: nothing to accept here (M4).
            return render(
                request,
                "teams/invitation.html",
                {**context, "mode": "other-account", "logout_next": request.path},
                status=403,
            )
        return _accept_signed_in(request, key, invitation, context)
    login_url = f"{reverse('login')}?{urlencode({'next': request.path})}"
    context["login_url"] = login_url
    # With password sign-in off (LOCAL_LOGIN), an account is made by signing in through the
    # company's provider, never here: the person signs in first, then opens the link again.
    if selectors.account_exists_for(email=invitation.email) or not settings.LOCAL_LOGIN:
        return render(request, "teams/invitation.html", {**context, "mode": "sign-in"})
    form = InvitationSignupForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        made = []
        saved = save_or_form_error(
            form,
            lambda: made.append(
                services.invitation_accept_new_account(
                    key=key,
                    username=form.cleaned_data["username"],
                    password=form.cleaned_data["password1"],
                )
            ),
        )
        if saved:
            login(request, made[0], backend="ecomap.accounts.oidc.LocalPasswordBackend")
            messages.success(
                request,
                _("Welcome! You are now a member of %(team)s.") % {"team": invitation.team.name},
            )
            return redirect("teams:detail", slug=invitation.team.slug)
    status = 400 if request.method == "POST" else 200
    return render(
        request,
        "teams/invitation.html",
        {**context, "mode": "sign-up", "form": form},
        status=status,
    )


def _accept_signed_in(request: HttpRequest, key: str, invitation, context) -> HttpResponse:
    if request.method == "POST":
        try:
            services.invitation_accept(key=key, user=request.user)
        except (InvalidInput, NotAllowed) as exc:
            context["error"] = exc.message
        else:
            messages.success(request, _("You joined %(team)s.") % {"team": invitation.team.name})
            return redirect("teams:detail", slug=invitation.team.slug)
    status = 400 if "error" in context else 200
    return render(request, "teams/invitation.html", {**context, "mode": "join"}, status=status)
