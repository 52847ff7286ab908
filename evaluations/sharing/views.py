"""Share-link pages: the team's list with create and revoke (behind the access helper), and
the three read-only pages the link itself opens (decision, PDF, ADR) — nothing else."""

from __future__ import annotations

import math

from django import forms
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import FileResponse, Http404, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET, require_POST

from ecomap.lockout import client_address
from ecomap.outage import rate_limit_wait
from evaluations import selectors
from evaluations.decisions import adr
from evaluations.pages import evaluation_for, maps_domain_errors
from evaluations.reports.services import report_built
from evaluations.sharing.models import ShareAccess, ShareLink
from evaluations.sharing.selectors import share_accesses_for, share_link_of, share_links_for
from evaluations.sharing.services import (
    SHARE_DAYS,
    ShareLinkGone,
    share_access_record,
    share_link_active,
    share_link_create,
    share_link_revoke,
)
from evaluations.teams.choices import Role


class ShareLinkForm(forms.Form):
    label = forms.CharField(
        label=gettext_lazy("Shared with"),
        max_length=120,
        help_text=gettext_lazy("Who gets the link, e.g. “external auditor, Example Corp”."),
    )
    days = forms.TypedChoiceField(
        label=gettext_lazy("Valid for"),
        coerce=int,
        initial=7,
    )

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        # Labels in the reader's language, so built per form rather than at import.
        self.fields["days"].choices = [
            (days, _("%(days)d days") % {"days": days}) for days in SHARE_DAYS
        ]


def _shares_page(request, evaluation, *, form=None, new_link=None, new_url="", status=200):
    role = selectors.user_role_in(evaluation, request.user)
    return render(
        request,
        "evaluations/shares.html",
        {
            "evaluation": evaluation,
            "links": share_links_for(evaluation),
            "accesses": share_accesses_for(evaluation),
            "can_share": selectors.role_allows(role, Role.EDITOR),
            "form": form or ShareLinkForm(),
            "new_link": new_link,
            "new_url": new_url,
        },
        status=status,
    )


@login_required
@maps_domain_errors
@never_cache
def share_list_view(request, pk: int):
    """GET: the links and their log. POST: a new link, shown once on the answer (stored hashed)."""
    evaluation = evaluation_for(request, pk)
    if request.method != "POST":
        return _shares_page(request, evaluation)
    form = ShareLinkForm(request.POST)
    if not form.is_valid():
        return _shares_page(request, evaluation, form=form, status=400)
    link, key = share_link_create(
        evaluation=evaluation,
        actor=request.user,
        label=form.cleaned_data["label"],
        days=form.cleaned_data["days"],
    )
    url = request.build_absolute_uri(f"/shared/{key}/")
    return _shares_page(request, evaluation, new_link=link, new_url=url, status=201)


@login_required
@require_POST
@maps_domain_errors
def share_revoke_view(request, pk: int, link_id: int):
    evaluation = evaluation_for(request, pk)
    link = share_link_of(evaluation, link_id)
    share_link_revoke(link=link, actor=request.user)
    messages.success(request, _("The link no longer opens anything."))
    return redirect("evaluations:shares", pk=evaluation.pk)


# ---- what the link opens ----------------------------------------------------------------------


def _private(response: HttpResponse) -> HttpResponse:
    """Nothing a link opens is cached, indexed, or named in a Referer to an evidence site."""
    response["Cache-Control"] = "private, no-store"
    response["X-Robots-Tag"] = "noindex, nofollow"
    response["Referrer-Policy"] = "no-referrer"
    return response


def _too_many(request, wait: float) -> HttpResponse:
    seconds = max(1, math.ceil(wait))
    minutes = max(1, math.ceil(seconds / 60))
    message = ngettext(
        "Too many opens of shared pages. Try again in %(minutes)d minute.",
        "Too many opens of shared pages. Try again in %(minutes)d minutes.",
        minutes,
    ) % {"minutes": minutes}
    response = render(request, "evaluations/shared_busy.html", {"message": message}, status=429)
    response["Retry-After"] = str(seconds)
    return _private(response)


def _open(request, key: str, kind: str) -> ShareLink | HttpResponse:
    """The link, its opening logged; or the answer instead: 404, 410, or 429 over the rates of
    one client address (`share_open`, guessed keys included) or of one link (`share_link`, from
    any address). A refused opening is not logged, so a burst cannot flood the team's log."""
    address = client_address(request)
    wait = rate_limit_wait(scope="share_open", ident=address)
    if wait is not None:
        return _too_many(request, wait)
    try:
        link = share_link_active(key=key)
    except ShareLink.DoesNotExist:
        raise Http404("No such link") from None
    except ShareLinkGone:
        return _private(render(request, "evaluations/shared_gone.html", status=410))
    wait = rate_limit_wait(scope="share_link", ident=f"link-{link.pk}")
    if wait is not None:
        return _too_many(request, wait)
    share_access_record(
        link=link, kind=kind, address=address, user_agent=request.headers.get("User-Agent", "")
    )
    return link


@require_GET
def shared_decision_view(request, key: str):
    link = _open(request, key, ShareAccess.Kind.PAGE)
    if isinstance(link, HttpResponse):
        return link
    evaluation = link.evaluation
    record = adr.adr_data(evaluation, base_url=request.build_absolute_uri("/"))
    report = report_built(evaluation)
    return _private(
        render(
            request,
            "evaluations/shared_decision.html",
            {
                "link": link,
                "key": key,
                "evaluation": evaluation,
                "record": record,
                "report": report,
            },
        )  # fmt: skip
    )


@require_GET
def shared_adr_view(request, key: str):
    link = _open(request, key, ShareAccess.Kind.ADR)
    if isinstance(link, HttpResponse):
        return link
    evaluation = link.evaluation
    record = adr.adr_build(evaluation, base_url=request.build_absolute_uri("/"))
    response = HttpResponse(record.markdown, content_type="text/markdown; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{adr.adr_filename(evaluation)}"'
    return _private(response)


@require_GET
def shared_pdf_view(request, key: str):
    link = _open(request, key, ShareAccess.Kind.PDF)
    if isinstance(link, HttpResponse):
        return link
    report = report_built(link.evaluation)
    if report is None or not report.file:
        raise Http404("No report has been built")
    response = FileResponse(
        report.file.open("rb"),
        as_attachment=True,
        filename=report.filename,
        content_type="application/pdf",
    )
    return _private(response)
