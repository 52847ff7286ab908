"""The webhook log page of a team (admins): deliveries, a test event, re-send."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from evaluations.errors import EvaluationError
from evaluations.notifications.log import webhook_log, webhook_resend, webhook_test_send
from evaluations.notifications.models import WebhookDelivery
from evaluations.notifications.webhooks import MAX_ATTEMPTS
from evaluations.selectors import role_allows
from evaluations.teams.choices import Role
from evaluations.teams.selectors import team_get_for_user


def _team_for_admin(request: HttpRequest, slug: str):
    team = team_get_for_user(user=request.user, slug=slug)
    if not role_allows(team.user_role, Role.ADMIN):
        raise PermissionDenied(_("Only a team admin can do this."))
    return team


@login_required
def webhook_log_view(request: HttpRequest, slug: str) -> HttpResponse:
    team = _team_for_admin(request, slug)
    return render(
        request,
        "teams/webhook_log.html",
        {"team": team, "deliveries": webhook_log(team), "max_attempts": MAX_ATTEMPTS},
    )


@login_required
@require_POST
def webhook_test_view(request: HttpRequest, slug: str) -> HttpResponse:
    team = _team_for_admin(request, slug)
    try:
        webhook_test_send(team=team, actor=request.user)
    except EvaluationError as exc:
        messages.error(request, exc.message)
    else:
        messages.success(request, _("A test event is on its way; its outcome appears below."))
    return redirect("teams:webhook-log", slug=team.slug)


@login_required
@require_POST
def webhook_resend_view(request: HttpRequest, slug: str, delivery_id: int) -> HttpResponse:
    team = _team_for_admin(request, slug)
    delivery = get_object_or_404(WebhookDelivery, pk=delivery_id, team=team)
    try:
        webhook_resend(delivery=delivery, actor=request.user)
    except EvaluationError as exc:
        messages.error(request, exc.message)
    else:
        messages.success(request, _("The event is sent again as a new delivery."))
    return redirect("teams:webhook-log", slug=team.slug)
