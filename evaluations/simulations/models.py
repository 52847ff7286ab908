"""A capacity simulation of an evaluation: one row per (evaluation, input), filled by a job."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _

from ecomap.jobs import JobModel


class CapacityRun(JobModel):
    """Every recommended stack sized and replayed for one step-1 profile and catalog revision.

    `key` names the input (the profile, the catalog revision and the code's versions): a later
    change of either asks for a new run, and asking again for the same input reuses this one.
    """

    class Status(models.TextChoices):
        PENDING = "pending", _("queued")
        RUNNING = "running", _("running")
        SUCCEEDED = "succeeded", _("done")
        FAILED = "failed", _("failed")

    evaluation = models.ForeignKey(
        "evaluations.Evaluation",
        on_delete=models.CASCADE,
        related_name="capacity_runs",
        verbose_name=_("evaluation"),
    )
    key = models.CharField(_("input key"), max_length=64)
    catalog_revision = models.PositiveIntegerField(_("catalog revision"))
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
    result = models.JSONField(_("result"), null=True, blank=True)
    seconds = models.FloatField(_("seconds"), null=True, blank=True)

    class Meta:
        db_table = "evaluations_capacityrun"  # the table it had in the evaluations app
        ordering = ["-created_at", "-id"]
        verbose_name = _("capacity simulation")
        verbose_name_plural = _("capacity simulations")
        constraints = [
            # one run per input: asking again reuses it (capacity_request)
            models.UniqueConstraint(fields=["evaluation", "key"], name="capacity_run_input_unique")
        ]

    def __str__(self) -> str:
        return f"capacity run {self.pk} of evaluation {self.evaluation_id} ({self.status})"
