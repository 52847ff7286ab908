"""The audit app's model: what happened to an evaluation, by whom and when (`AuditEntry`); its
words are `evaluations.audit.labels`.

It was the evaluations app's until issue 44 and keeps its table (`db_table`); the move was a
state-only migration (`evaluations.audit` 0001, `evaluations` 0024)."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _


class AuditEntry(models.Model):
    """Who changed what, and when: written by every evaluation service, never edited."""

    evaluation = models.ForeignKey(
        "evaluations.Evaluation", on_delete=models.CASCADE, related_name="audit"
    )
    actor = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        related_name="+",
        verbose_name=_("who"),
    )
    created_at = models.DateTimeField(_("when"), auto_now_add=True)
    action = models.CharField(_("action"), max_length=40)
    step = models.CharField(_("step"), max_length=20, blank=True)
    changes = models.JSONField(_("what changed"), default=dict, blank=True)
    state_from = models.CharField(max_length=20, blank=True)
    state_to = models.CharField(max_length=20, blank=True)
    revision = models.PositiveIntegerField(_("revision"))

    class Meta:
        db_table = "evaluations_auditentry"  # the table it had in the evaluations app
        ordering = ["-id"]
        verbose_name = _("audit entry")
        verbose_name_plural = _("audit entries")
        indexes = [
            # the evaluation page: its audit log, newest first
            models.Index(fields=["evaluation", "-id"], name="audit_by_evaluation_idx"),
        ]

    def __str__(self) -> str:
        return f"{self.action} {self.step}".strip()
