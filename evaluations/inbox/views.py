"""Home, inbox and search pages: read through the inbox selectors; notifications are listed and
marked read through the notifications room's selectors and services."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.paginator import Paginator
from django.http import Http404
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from evaluations.inbox import selectors
from evaluations.notifications import selectors as notifications
from evaluations.notifications import services as notify
from evaluations.notifications.choices import Event
from evaluations.teams import selectors as teams

NOTIFICATIONS_PER_PAGE = 30


def home_view(request):
    """What EcoMap is (signed out); the signed-in user's work at a glance."""
    if not request.user.is_authenticated:
        return render(request, "home.html", {"overview": True})
    user = request.user
    lists = {
        "drafts": selectors.drafts_for_user(user=user),
        "to_review": selectors.waiting_for_review(user=user),
        "decisions": selectors.recent_decisions(user=user),
        "catalog_changes": selectors.catalog_changes_for_user(user=user),
    }
    # Each of the first three lists shows only the work of the user's teams: any item in them
    # already says the user is in a team, without asking the database again.
    in_a_team = any(lists[name] for name in ("drafts", "to_review", "decisions"))
    lists["in_a_team"] = in_a_team or teams.in_a_team(user=user)
    return render(request, "home.html", lists)


@login_required
def inbox_view(request):
    paginator = Paginator(
        notifications.notifications_for_user(user=request.user), NOTIFICATIONS_PER_PAGE
    )
    page = paginator.get_page(request.GET.get("page"))
    return render(
        request,
        "inbox/index.html",
        {
            "to_review": selectors.waiting_for_review(user=request.user, limit=50),
            "page": page,
            "notifications": page.object_list,
        },
    )


@login_required
def notification_open_view(request, pk: int):
    """Mark the notification read and go to what it is about."""
    notification = notify.notification_open(user=request.user, pk=pk)
    if notification is None:
        raise Http404("No such notification")
    url = reverse("evaluations:detail", args=[notification.evaluation_id])
    if notification.event != Event.COMMENTED:
        url += "#review"
    return redirect(url)


@login_required
@require_POST
def mark_all_read_view(request):
    count = notify.notifications_mark_all_read(user=request.user)
    if count:
        messages.success(request, _("All notifications marked read."))
    return redirect("inbox:index")


@login_required
def search_view(request):
    results = selectors.search_for_user(user=request.user, text=request.GET.get("q", ""))
    return render(
        request,
        "inbox/search.html",
        {"results": results, "q": results.text, "limit": selectors.SEARCH_LIMIT},
    )
