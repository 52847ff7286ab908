"""Cluster pages: the clusters of my teams with the upload form, one snapshot's check on the
map, and an evaluation's decision compared with a snapshot of its team."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods

from catalog.engine.cluster import SnapshotError
from evaluations.clusters import selectors, services
from evaluations.clusters.forms import SnapshotUploadForm
from evaluations.clusters.models import ClusterSnapshot
from evaluations.clusters.presentation import (
    config_drift_context,
    report_context,
    severity_counts,
    with_summary_counts,
)
from evaluations.errors import EvaluationError
from evaluations.models import State
from evaluations.pages import posted_revision
from evaluations.selectors import (
    evaluation_get_for_user,
    role_allows,
    user_role_in,
)
from evaluations.teams.choices import Role
from evaluations.teams.selectors import teams_for_user


@login_required
@require_http_methods(["GET", "POST"])
def cluster_list_view(request: HttpRequest) -> HttpResponse:
    teams = teams_for_user(user=request.user, min_role=Role.EDITOR)
    form = SnapshotUploadForm(teams=teams)
    refused: list[tuple[str, str]] = []
    status = 200
    if request.method == "POST":
        form = SnapshotUploadForm(request.POST, request.FILES, teams=teams)
        if form.is_valid():
            try:
                team, role = selectors.upload_team_for_user(
                    user=request.user, slug=form.cleaned_data["team"]
                )
                upload = form.cleaned_data["file"]
                snapshot = services.cluster_snapshot_upload(
                    team=team, actor=request.user, body=upload.read(), role=role
                )
            except SnapshotError as error:
                refused, status = list(error.errors), 400
            except EvaluationError as error:
                form.add_error(None, error.message)
                status = error.status
            else:
                messages.success(request, _("Snapshot stored."))
                return redirect("clusters:detail", pk=snapshot.pk)
        else:
            too_large = any(e.code == "too_large" for e in form.errors.as_data().get("file", []))
            status = 413 if too_large else 400
    context = {
        "clusters": with_summary_counts(selectors.clusters_for_user(user=request.user)),
        "form": form,
        "can_upload": bool(teams),
        "refused": refused,
    }
    return render(request, "clusters/list.html", context, status=status)


@login_required
@require_http_methods(["GET"])
def cluster_detail_view(request: HttpRequest, pk: int) -> HttpResponse:
    snapshot = selectors.snapshot_get_for_user(user=request.user, pk=pk)
    report = selectors.snapshot_report(snapshot)
    context = {
        "snapshot": snapshot,
        "history": list(selectors.snapshot_history(snapshot)),
        "evaluations": selectors.team_evaluations_decided(snapshot.team_id),
        "counts": severity_counts(report.findings),
        **report_context(report),
    }
    return render(request, "clusters/detail.html", context)


def _chosen_snapshot(request: HttpRequest, evaluation) -> ClusterSnapshot | None:
    raw = request.GET.get("snapshot", "")
    if raw:
        snapshot = selectors.snapshot_get_for_user(user=request.user, pk=raw)
        if snapshot.team_id != evaluation.team_id:
            raise Http404("No such snapshot of this team")
        return snapshot
    attached = selectors.attached_snapshot(evaluation)
    if attached is not None:
        return attached
    return selectors.team_snapshots(evaluation.team_id).first()


@login_required
@require_http_methods(["GET", "POST"])
def evaluation_cluster_view(request: HttpRequest, pk: int) -> HttpResponse:
    evaluation = evaluation_get_for_user(user=request.user, pk=pk)
    role = user_role_in(evaluation, request.user)
    if request.method == "POST":
        raw = request.POST.get("snapshot", "")
        snapshot = None
        if raw:
            snapshot = selectors.snapshot_get_for_user(user=request.user, pk=raw)
        was_approved = evaluation.state == State.APPROVED
        try:
            services.cluster_snapshot_attach(
                evaluation=evaluation,
                snapshot=snapshot,
                actor=request.user,
                revision=posted_revision(request),
            )
        except EvaluationError as error:
            messages.error(request, error.message)
        else:
            if snapshot is None:
                messages.success(request, _("Snapshot detached from the report."))
            else:
                messages.success(request, _("Snapshot attached: the report gains its chapter."))
            evaluation.refresh_from_db(fields=["state"])
            if was_approved and evaluation.state != State.APPROVED:
                messages.warning(
                    request,
                    _(
                        "The report of the approved evaluation changed: the approval is "
                        "withdrawn and the evaluation is a draft again; submit it for review."
                    ),
                )
        target = f"?snapshot={snapshot.pk}" if snapshot else ""
        return redirect(request.path + target)

    snapshot = _chosen_snapshot(request, evaluation)
    attached = selectors.attached_snapshot(evaluation)
    context = {
        "evaluation": evaluation,
        "decision": getattr(evaluation, "decision", None),
        "snapshot": snapshot,
        "snapshots": list(selectors.team_snapshots(evaluation.team_id)),
        "attached": attached,
        "can_edit": role_allows(role, Role.EDITOR),
    }
    if snapshot is not None:
        report, drift = selectors.snapshot_compare(snapshot, evaluation=evaluation)
        context.update(report_context(report, decided=selectors.decided_of(evaluation)))
        context.update(config_drift_context(drift))
        context["config_url"] = reverse("configuration:page", args=[evaluation.pk])
    return render(request, "clusters/compare.html", context)
