"""What the audit log's action keys and changed-field keys read as, in the reader's language.

The keys are what the services write (`audit_write(..., "step_saved")`); pages and reports show
these labels instead. A key missing here is shown as it is, so a new action never breaks a page.
"""

from __future__ import annotations

from django.utils.translation import gettext_lazy as _

AUDIT_ACTIONS = {
    "created": _("created the evaluation"),  # not "created": its translation is a column title
    "step_saved": _("saved a step"),
    "decided": _("recorded the decision"),
    "submitted": _("submitted for review"),
    "approved": _("approved"),
    "changes_requested": _("requested changes"),
    "archived": _("archived"),
    "commented": _("commented"),
    "cloned": _("created it as a copy"),
    "catalog_drift": _("the catalog changed under the decision"),
    "snapshot_attached": _("attached a cluster snapshot to the report"),
    "snapshot_detached": _("detached the cluster snapshot from the report"),
    "share_created": _("created a read-only share link"),
    "share_revoked": _("revoked a share link"),
    "approval_recorded": _("approved (more approvals needed)"),
    "approval_voided": _("an approval no longer counts (its reviewer left or lost the role)"),
    "review_requested": _("asked for a review"),
}

# Keys of an entry's `changes`: step-1 profile fields, step and decision parts.
AUDIT_FIELDS = {
    "title": _("title"),
    "shared_with": _("shared with"),
    "days": _("days valid"),
    "approvals": _("approvals of this revision"),
    "reviewer": _("reviewer"),
    "reason": _("why"),
    "workload_types": _("workload types"),
    "primary_objective": _("primary objective"),
    "p99_target_ms": _("P99 target"),
    "jitter_tolerance": _("jitter tolerance"),
    "isolation": _("isolation requirement"),
    "failure_semantics": _("failure semantics"),
    "tenancy": _("tenancy"),
    "priorities": _("priorities"),
    "tenant_count": _("number of tenants"),
    "gpu_model": _("GPU model"),
    "gpu_memory_gb": _("memory per GPU"),
    "node_count": _("GPU nodes"),
    "gpus_per_node": _("GPUs per node"),
    "time_windows": _("time windows"),
    "kubernetes_version": _("Kubernetes version"),
    "component_versions": _("pinned component versions"),
    "added": _("added"),
    "removed": _("removed"),
    "changed": _("changed"),
    "notes": _("notes"),
    "rows": _("stack"),
    "pools": _("node pools"),
    "pool_tenant_sharing": _("tenant sharing per pool"),
    "pool_node_groups": _("node group per pool"),
    "cross_tenant_sharing": _("GPUs shared between tenants"),
    "workload_isolation": _("isolation per workload type"),
    "workload_mix": _("workload mix"),
    "node_groups": _("node groups"),
    "tenants": _("named tenants"),
    "installed": _("installed components"),
    "rationale": _("rationale"),
    "risks": _("risks"),
    "acceptance_checks": _("acceptance checks"),
    "promise": _("promise"),
    "non_promise": _("non-promise"),
    "approval": _("approval"),
    "comment": _("comment"),
    "step_comments": _("step comments"),
    "cloned_from": _("copied from"),
    "removed_rows": _("rows removed from the catalog"),
    "new_findings": _("new stack-check findings"),
    "catalog_revision": _("catalog revision"),
    "cluster_snapshot": _("cluster snapshot"),
}


def audit_action_label(action: str) -> str:
    return str(AUDIT_ACTIONS.get(action, action))


def audit_field_label(key: str) -> str:
    return str(AUDIT_FIELDS.get(key, key))
