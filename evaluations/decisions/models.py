"""The decisions app's model: an evaluation's decided stack (`Decision`).

It was the evaluations app's until issue 44 and keeps its table (`db_table`); the move was a
state-only migration (`evaluations.decisions` 0001, `evaluations` 0023)."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _


class Decision(models.Model):
    """The chosen stack (row ids, optionally split into node pools) and why."""

    evaluation = models.OneToOneField(
        "evaluations.Evaluation", on_delete=models.CASCADE, related_name="decision"
    )
    rows = models.JSONField(_("stack"), default=list)  # ["project/key", ...]
    pools = models.JSONField(_("node pools"), default=dict, blank=True)  # {name: [row ids]}
    # {pool name: "within_tenant" | "none" | "across_tenants"}: what the team says of how tenants
    # share each pool; a pool not named serves every tenant (catalog.engine.fit.TENANT_SHARING).
    pool_tenant_sharing = models.JSONField(_("tenant sharing per pool"), default=dict, blank=True)
    # {pool name: node group name of step 1}: where each pool runs, in a cluster of several node
    # groups (profile v2); a pool not named is placed by the configuration (configgen).
    pool_node_groups = models.JSONField(_("node group per pool"), default=dict, blank=True)
    rationale = models.TextField(_("rationale"), blank=True)
    risks = models.TextField(_("risks and failure modes to watch"), blank=True)
    acceptance_checks = models.TextField(_("acceptance checks"), blank=True)
    decided_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+"
    )
    decided_at = models.DateTimeField(_("decided"), auto_now=True)
    # Pinned at approval: the catalog revision and each decided row as it stood (versions,
    # verified date, contracts), and the stack check's findings then; catalog drift compares
    # against these.
    approved_at = models.DateTimeField(_("approved"), null=True, blank=True)
    approved_catalog_revision = models.PositiveIntegerField(
        _("catalog revision at approval"), null=True, blank=True
    )
    approved_rows = models.JSONField(_("rows as approved"), default=dict, blank=True)
    approved_findings = models.JSONField(_("stack check at approval"), default=list, blank=True)

    class Meta:
        db_table = "evaluations_decision"  # the table it had in the evaluations app
        verbose_name = _("decision")
        verbose_name_plural = _("decisions")

    def __str__(self) -> str:
        return ", ".join(self.rows)
