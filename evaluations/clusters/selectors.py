"""Cluster snapshot reads: the access helper, the cluster list, history, and the check of one."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from django.db.models import Count, F, OuterRef, QuerySet, Subquery
from django.http import Http404

from catalog.engine.cluster import (
    ClusterReport,
    Decided,
    Detected,
    Snapshot,
    builtin_dra_features,
    check_cluster,
    parse_snapshot,
)
from catalog.selectors import cluster_catalog, engine_rows
from evaluations.clusters.models import ClusterAttachment, ClusterSnapshot
from evaluations.configgen.api_drift import api_version_drift, contract_spans
from evaluations.configgen.config_drift import Drift, config_drift
from evaluations.configgen.selectors import ConfigUnavailable, evaluation_config
from evaluations.errors import InvalidInput
from evaluations.models import Evaluation
from evaluations.teams.selectors import teams_and_roles

if TYPE_CHECKING:
    from evaluations.teams.models import Team

# What a list shows of a snapshot; the document itself (up to 20 MB) stays in the database.
LIST_DEFERRED = ("document",)


def snapshot_get_for_user(*, user, pk: Any) -> ClusterSnapshot:
    """The snapshot if the user is in its team, with `user_role` set; else Http404.

    Another team's snapshot and a missing one look the same, so ids leak nothing.
    """
    if not getattr(user, "is_authenticated", False):
        raise Http404("No such cluster snapshot")
    try:
        pk = int(pk)
    except (TypeError, ValueError):
        raise Http404("No such cluster snapshot") from None
    snapshot = (
        ClusterSnapshot.objects.filter(pk=pk, team__memberships__user=user)
        .select_related("team", "uploaded_by")
        .annotate(user_role=F("team__memberships__role"))
        .first()
    )
    if snapshot is None:
        raise Http404("No such cluster snapshot")
    return snapshot


def clusters_for_user(*, user) -> QuerySet[ClusterSnapshot]:
    """The latest snapshot of each cluster of the user's teams, with how many were uploaded."""
    latest = ClusterSnapshot.objects.filter(
        team=OuterRef("team"), cluster=OuterRef("cluster")
    ).order_by("-collected_at", "-id")
    count = (
        ClusterSnapshot.objects.filter(team=OuterRef("team"), cluster=OuterRef("cluster"))
        .order_by()
        .values("team", "cluster")
        .annotate(n=Count("id"))
        .values("n")
    )
    return (
        ClusterSnapshot.objects.filter(team__memberships__user=user)
        .filter(pk=Subquery(latest.values("pk")[:1]))
        .defer(*LIST_DEFERRED)
        .select_related("team", "uploaded_by")
        .annotate(snapshot_count=Subquery(count[:1]), user_role=F("team__memberships__role"))
        .order_by("cluster", "team__name", "-id")
    )


def snapshot_history(snapshot: ClusterSnapshot) -> QuerySet[ClusterSnapshot]:
    """Every snapshot of the same cluster and team, newest first (the given one included)."""
    return (
        ClusterSnapshot.objects.filter(team_id=snapshot.team_id, cluster=snapshot.cluster)
        .defer(*LIST_DEFERRED)
        .select_related("uploaded_by")
        .order_by("-collected_at", "-id")
    )


def team_snapshots(team_id: int) -> QuerySet[ClusterSnapshot]:
    """A team's snapshots, newest first, for choosing one to compare with a decision."""
    return (
        ClusterSnapshot.objects.filter(team_id=team_id)
        .defer(*LIST_DEFERRED)
        .order_by("cluster", "-collected_at", "-id")
    )


def attached_snapshot(evaluation: Evaluation) -> ClusterSnapshot | None:
    """The snapshot attached to the evaluation (its report's deployed-state chapter), if any."""
    attachment = (
        ClusterAttachment.objects.filter(evaluation=evaluation).select_related("snapshot").first()
    )
    return attachment.snapshot if attachment else None


def decided_of(evaluation: Evaluation) -> Decided | None:
    """The evaluation's decided stack in the engine's terms (None before a decision)."""
    decision = getattr(evaluation, "decision", None)
    if decision is None or not decision.rows:
        return None
    pools = {name: tuple(refs) for name, refs in (decision.pools or {}).items()}
    return Decided(rows=tuple(decision.rows), pools=pools)


def cluster_check(snapshot: Snapshot, *, evaluation: Evaluation | None = None) -> ClusterReport:
    """Check a parsed snapshot against the catalog, and against a decision when given."""
    # The same inputs as `manage.py check_cluster`, so the page and the command agree.
    rows, signatures, evidence = cluster_catalog()
    return check_cluster(
        snapshot,
        rows=rows,
        signatures=signatures,
        evidence=evidence,
        dra_features=builtin_dra_features(),
        decision=decided_of(evaluation) if evaluation is not None else None,
    )


def snapshot_report(
    snapshot: ClusterSnapshot, *, evaluation: Evaluation | None = None
) -> ClusterReport:
    return cluster_check(parse_snapshot(snapshot.document), evaluation=evaluation)


@dataclass(frozen=True)
class ConfigDrift:
    """The snapshot against the configuration generated from a decision: the differences, or
    why no configuration could be generated (said once instead of the list)."""

    items: list[Drift] = field(default_factory=list)
    unavailable: str = ""

    def to_list(self) -> list[dict[str, str]] | None:
        return None if self.unavailable else [item.to_dict() for item in self.items]


def snapshot_compare(
    snapshot: ClusterSnapshot, *, evaluation: Evaluation
) -> tuple[ClusterReport, ConfigDrift | None]:
    """The check against the evaluation's decision and, when it has one, the differences from
    the configuration generated from it (None without a decision). The snapshot is parsed once."""
    parsed = parse_snapshot(snapshot.document)
    report = cluster_check(parsed, evaluation=evaluation)
    return report, config_drift_of(parsed, evaluation, detected=report.detected)


def config_drift_of(
    snapshot: Snapshot, evaluation: Evaluation, *, detected: list[Detected] | None = None
) -> ConfigDrift | None:
    """A parsed snapshot against the configuration generated from the evaluation's decision,
    with the API versions the releases found in the cluster do not serve (`detected`: the
    check's rows, found again when not given); None without a decision, the reason when no
    configuration can be generated."""
    if decided_of(evaluation) is None:
        return None
    try:
        files = evaluation_config(evaluation)
    except ConfigUnavailable as error:
        return ConfigDrift(unavailable=error.reason)
    if detected is None:
        detected = cluster_check(snapshot, evaluation=evaluation).detected
    rows = engine_rows()  # rows only: the signatures and evidence were for the check
    project_of = {row.id: row.project for row in rows}
    installed = {project_of.get(d.row, ""): d.version.lstrip("v") for d in detected if d.version}
    versions = api_version_drift(files, installed=installed, spans=contract_spans(rows))
    return ConfigDrift(items=versions + config_drift(files, snapshot))


def upload_team_for_user(*, user, slug: str) -> tuple[Team, str]:
    """The team an upload goes to and the user's role in it; a team the user is not in is as
    unknown as a missing one (Http404). Without a slug, the user's only team."""
    found = teams_and_roles(user=user, slug=slug, limit=None if slug else 2)
    if not slug and len(found) != 1:
        raise InvalidInput(
            "Name the team: ?team=<short name>.",
            errors={"team": ["required when you are in more than one team (or none)"]},
        )
    if not found:
        raise Http404("No such team")
    return found[0]


def team_evaluations_decided(team_id: int) -> QuerySet[Evaluation]:
    """The team's evaluations with a decision, to compare a snapshot with, newest first."""
    return (
        Evaluation.objects.filter(team_id=team_id, decision__isnull=False)
        .only("id", "title", "state", "updated_at")
        .order_by("-updated_at", "-id")[:20]
    )
