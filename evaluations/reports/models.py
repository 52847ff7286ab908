"""The PDF review report of an evaluation: one row per build, its file and its sources."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _

from ecomap.jobs import JobModel


class Report(JobModel):
    """A requested build of an evaluation's PDF report; a Celery job fills it in."""

    class Status(models.TextChoices):
        PENDING = "pending", _("queued")
        RUNNING = "running", _("building")
        SUCCEEDED = "succeeded", _("ready")
        FAILED = "failed", _("failed")

    evaluation = models.ForeignKey(
        "evaluations.Evaluation",
        on_delete=models.CASCADE,
        related_name="reports",
        verbose_name=_("evaluation"),
    )
    requested_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        related_name="+",
        verbose_name=_("requested by"),
    )
    status = models.CharField(
        _("status"), max_length=10, choices=Status.choices, default=Status.PENDING
    )
    # The report's language: the requester's, so a Chinese team gets Chinese headings.
    language = models.CharField(_("language"), max_length=12, default="en")
    # The body lists the candidates one line each; this adds their full placement cards.
    with_cards = models.BooleanField(_("with the placement cards"), default=False)
    file = models.FileField(_("PDF"), upload_to="reports/%Y/%m/", blank=True)
    pages = models.PositiveIntegerField(_("pages"), null=True, blank=True)
    seconds = models.FloatField(_("seconds to build"), null=True, blank=True)
    # What the PDF was built from: a later change of the evaluation makes it stale.
    catalog_revision = models.PositiveIntegerField(_("catalog revision"), null=True, blank=True)
    evaluation_revision = models.PositiveIntegerField(
        _("evaluation revision"), null=True, blank=True
    )
    evaluation_updated_at = models.DateTimeField(_("evaluation as of"), null=True, blank=True)

    class Meta:
        db_table = "evaluations_report"  # the table it had in the evaluations app
        ordering = ["-created_at", "-id"]
        verbose_name = _("report")
        verbose_name_plural = _("reports")
        indexes = [
            # the evaluation page and the API: an evaluation's reports, newest first
            models.Index(fields=["evaluation", "-created_at"], name="report_by_evaluation_idx"),
        ]

    def __str__(self) -> str:
        return f"report {self.pk} of evaluation {self.evaluation_id} ({self.status})"

    @property
    def filename(self) -> str:
        """The name a download is saved as: `ecomap-evaluation-12-r7.pdf`."""
        return f"ecomap-evaluation-{self.evaluation_id}-r{self.evaluation_revision or 0}.pdf"
