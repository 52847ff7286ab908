"""Report pages: ask for a build, poll its progress, download the PDF (all team-scoped)."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import FileResponse, Http404, JsonResponse
from django.shortcuts import get_object_or_404, redirect
from django.urls import reverse
from django.utils import translation
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_POST

from evaluations import selectors
from evaluations.errors import EvaluationError
from evaluations.reports import services as reports
from evaluations.reports.models import Report


def report_status(report: Report, evaluation) -> dict:
    """What the panel's poller reads: progress, and where to download once built."""
    ready = report.status == Report.Status.SUCCEEDED
    return {
        "id": report.pk,
        "status": report.status,
        "status_label": report.get_status_display(),
        "progress": report.progress,
        "pages": report.pages,
        "seconds": report.seconds,
        "with_cards": report.with_cards,
        "stale": reports.report_is_stale(report, evaluation),
        "error": report.error if report.status == Report.Status.FAILED else "",
        "status_url": reverse("reports:status", args=[evaluation.pk, report.pk]),
        "download_url": reverse("reports:download", args=[evaluation.pk, report.pk])
        if ready
        else "",
    }


def _wants_json(request) -> bool:
    return "application/json" in request.headers.get("Accept", "")


@login_required
@require_POST
def report_request_view(request, pk: int):
    evaluation = selectors.evaluation_get_for_user(user=request.user, pk=pk)
    try:
        report = reports.report_request(
            evaluation=evaluation,
            actor=request.user,
            language=translation.get_language(),
            with_cards=request.POST.get("with_cards") in ("1", "on", "true"),
        )
    except EvaluationError as exc:
        if _wants_json(request):
            return JsonResponse({"detail": exc.message}, status=exc.status)
        messages.error(request, exc.message)
        return redirect("evaluations:detail", pk=pk)
    if _wants_json(request):
        return JsonResponse(report_status(report, evaluation), status=202)
    messages.success(request, _("The report is being built; it appears here when ready."))
    return redirect(reverse("evaluations:detail", args=[pk]) + "#reports")


@login_required
@require_GET
def report_status_view(request, pk: int, report_id: int):
    evaluation = selectors.evaluation_get_for_user(user=request.user, pk=pk)
    report = get_object_or_404(Report, pk=report_id, evaluation=evaluation)
    return JsonResponse(report_status(report, evaluation))


@login_required
@require_GET
def report_download_view(request, pk: int, report_id: int):
    evaluation = selectors.evaluation_get_for_user(user=request.user, pk=pk)
    report = get_object_or_404(Report, pk=report_id, evaluation=evaluation)
    if report.status != Report.Status.SUCCEEDED or not report.file:
        raise Http404("This report is not built yet")
    return FileResponse(
        report.file.open("rb"),
        as_attachment=True,
        filename=report.filename,
        content_type="application/pdf",
    )
