"""The import job: one recorded import of vendor data, its progress, counts and diff."""

from __future__ import annotations

import uuid

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _

from ecomap.jobs import JobModel


class ImportJob(JobModel):
    """One import of vendor data (bundle, CSV or landscape): who, when, source, counts, diff.
    A queued import is a job like the others (`ecomap.jobs`): claimed, beating, finished or
    failed through `JobRows`; `errors` lists what a failed one found in the file, `error`
    says why it failed in one line."""

    class Status(models.TextChoices):
        PENDING = "pending", _("pending")
        RUNNING = "running", _("running")
        SUCCEEDED = "succeeded", _("succeeded")
        FAILED = "failed", _("failed")

    class Format(models.TextChoices):
        BUNDLE = "bundle", _("EcoMap bundle v1")
        CSV = "csv", _("CSV")
        LANDSCAPE = "landscape", _("CNCF landscape.yml")

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    created_at = models.DateTimeField(_("submitted"), auto_now_add=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("submitted by"),
    )
    source = models.CharField(_("source"), max_length=500, blank=True)
    format = models.CharField(_("format"), max_length=20, choices=Format.choices)
    dry_run = models.BooleanField(_("dry run"), default=False)
    status = models.CharField(
        _("status"), max_length=20, choices=Status.choices, default=Status.PENDING
    )
    total = models.PositiveIntegerField(_("items"), default=0)
    done = models.PositiveIntegerField(_("items done"), default=0)
    counts = models.JSONField(_("counts"), default=dict, blank=True)
    changes = models.JSONField(_("changes"), default=list, blank=True)
    errors = models.JSONField(_("errors"), default=list, blank=True)
    linked = models.JSONField(_("linked to existing projects"), default=list, blank=True)
    # The validated bundle waiting for a worker, as compressed JSON (catalog.imports packs it:
    # ten times smaller and ~0.3 s faster per 10,000 rows than a jsonb column); emptied once
    # applied.
    payload = models.BinaryField(null=True, blank=True, editable=False)

    class Meta:
        ordering = ["-created_at"]
        verbose_name = _("import")
        verbose_name_plural = _("imports")
        indexes = [
            # the imports page and API list newest first
            models.Index(fields=["-created_at"], name="import_recent_idx"),
        ]

    def __str__(self) -> str:
        return f"{self.get_format_display()} import {self.created_at:%Y-%m-%d %H:%M}"

    @property
    def percent(self) -> int:
        return round(100 * self.done / self.total) if self.total else (100 if self.finished else 0)
