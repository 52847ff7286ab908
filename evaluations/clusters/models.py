"""Stored cluster snapshots (`ecomap.cluster/v1`) and the one attached to an evaluation.

Every upload is a new row, so a cluster's history is its snapshots by `collected_at`. An
evaluation points at one snapshot through `ClusterAttachment` (a row of its own rather than a
column on Evaluation, so the evaluation's model stays as it is and a snapshot can serve several
evaluations of the same cluster).
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _


class ClusterSnapshot(models.Model):
    """One uploaded snapshot of a cluster, as uploaded, with the check computed at upload."""

    team = models.ForeignKey(
        "teams.Team",
        on_delete=models.CASCADE,
        related_name="cluster_snapshots",
        verbose_name=_("team"),
    )
    cluster = models.CharField(_("cluster"), max_length=200)
    collected_at = models.DateTimeField(_("collected"))
    kubernetes_version = models.CharField(_("Kubernetes version"), max_length=64, blank=True)
    # The parsed document as uploaded (the raw `kubectl`/`helm` outputs in the v1 shape).
    document = models.JSONField(_("snapshot"))
    sha256 = models.CharField(_("SHA-256"), max_length=64)
    size_bytes = models.PositiveIntegerField(_("size (bytes)"))
    uploaded_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        related_name="+",
        verbose_name=_("uploaded by"),
    )
    created_at = models.DateTimeField(_("uploaded"), auto_now_add=True)
    # ClusterReport.to_dict() at upload time, so lists never re-run the check.
    summary = models.JSONField(_("summary"), default=dict)

    class Meta:
        db_table = "evaluations_clustersnapshot"  # the table it had in the evaluations app
        ordering = ["-collected_at", "-id"]
        verbose_name = _("cluster snapshot")
        verbose_name_plural = _("cluster snapshots")
        indexes = [
            # the cluster list and a cluster's history: a team's snapshots per cluster, newest first
            models.Index(
                fields=["team", "cluster", "-collected_at"], name="cluster_snapshot_by_team_idx"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.cluster} @ {self.collected_at:%Y-%m-%d %H:%M}"


class ClusterAttachment(models.Model):
    """The snapshot an evaluation is compared with (its report's "deployed state" chapter)."""

    evaluation = models.OneToOneField(
        "evaluations.Evaluation",
        on_delete=models.CASCADE,
        related_name="cluster_attachment",
        verbose_name=_("evaluation"),
    )
    snapshot = models.ForeignKey(
        ClusterSnapshot,
        on_delete=models.CASCADE,
        related_name="attachments",
        verbose_name=_("cluster snapshot"),
    )
    attached_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        related_name="+",
        verbose_name=_("attached by"),
    )
    attached_at = models.DateTimeField(_("attached"), auto_now=True)

    class Meta:
        db_table = "evaluations_clusterattachment"  # the table it had in the evaluations app
        verbose_name = _("attached cluster snapshot")
        verbose_name_plural = _("attached cluster snapshots")

    def __str__(self) -> str:
        return f"{self.evaluation_id} ← {self.snapshot}"
