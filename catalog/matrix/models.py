"""Matrix snapshots: the stored compatibility matrix of the catalog at one revision."""

from __future__ import annotations

from django.db import models
from django.utils.translation import gettext_lazy as _

from ecomap.jobs import JobModel


class MatrixSnapshot(JobModel):
    """The compatibility matrix of the catalog (or of a set of rows) at one catalog revision.

    Stored compactly: the engine's `ecomap.matrix/v3` bytes (the pairs that are not independent,
    zlib) plus the rows it was computed from, so any cell can be explained later without the live
    catalog.
    """

    class Status(models.TextChoices):
        PENDING = "pending", _("pending")
        RUNNING = "running", _("computing")
        SUCCEEDED = "succeeded", _("ready")
        FAILED = "failed", _("failed")

    CATALOG_SCOPE = "catalog"

    scope = models.CharField(_("scope"), max_length=80, default=CATALOG_SCOPE)
    catalog_revision = models.PositiveIntegerField(_("catalog revision"), null=True, blank=True)
    status = models.CharField(
        _("status"), max_length=20, choices=Status.choices, default=Status.PENDING
    )
    row_count = models.PositiveIntegerField(_("rows"), default=0)
    counts = models.JSONField(_("pairs per verdict"), default=dict, blank=True)
    timings = models.JSONField(_("timings (s)"), default=dict, blank=True)
    matrix = models.BinaryField(null=True, blank=True, editable=False)
    rows = models.JSONField(default=list, blank=True, editable=False)

    class Meta:
        ordering = ["-id"]
        verbose_name = _("matrix snapshot")
        verbose_name_plural = _("matrix snapshots")
        constraints = [
            # A burst of catalog edits queues one job: at most one waiting snapshot per scope.
            models.UniqueConstraint(
                fields=["scope"],
                condition=models.Q(status="pending"),
                name="matrix_one_pending_per_scope",
            ),
            # A rerun for the same revision never duplicates a finished snapshot.
            models.UniqueConstraint(
                fields=["scope", "catalog_revision"],
                condition=models.Q(status="succeeded"),
                name="matrix_one_per_revision",
            ),
        ]
        indexes = [
            # the matrix page: latest snapshot of a scope by status
            models.Index(fields=["scope", "status", "-id"], name="matrix_latest_idx"),
        ]

    def __str__(self) -> str:
        return f"{self.scope}@{self.catalog_revision} ({self.status})"
