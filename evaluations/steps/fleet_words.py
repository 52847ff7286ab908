"""Step 1 in words, in the reader's language: when each workload runs, its isolation, and profile
v2's node groups, named tenants with their demand and what is installed, as the summary, the
diffs, the report and the decision record say them."""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from evaluations.steps.fleet_forms import (
    TENANT_ISOLATION_CHOICES,
    TENANT_SHARING_CHOICES,
    WHEN_CHOICES,
    WORKLOAD_CHOICES,
)
from evaluations.steps.forms import ISOLATION_LEVEL_WORDS, TIME_WINDOW_CHOICES


def time_windows_in_words(windows: dict[str, str] | None) -> str:
    """`{"training": "night"}` as "Training: at night", in the reader's language."""
    kinds, times = dict(WORKLOAD_CHOICES), dict(TIME_WINDOW_CHOICES)
    return "; ".join(
        f"{kinds.get(kind, kind)}: {times.get(window, window)}"
        for kind, window in (windows or {}).items()
    )


def workload_isolation_in_words(levels: dict[str, str] | None) -> str:
    """`{"interactive": "soft"}` as "Interactive development: soft", in the reader's language."""
    kinds = dict(WORKLOAD_CHOICES)
    return "; ".join(
        f"{kinds.get(kind, kind)}: {ISOLATION_LEVEL_WORDS.get(level, level)}"
        for kind, level in (levels or {}).items()
    )


FLEET_LABELS = {
    "node_groups": gettext_lazy("Node groups"),
    "tenants": gettext_lazy("Named tenants"),
    "installed": gettext_lazy("Installed in the cluster now"),
}


def node_group_in_words(group: dict[str, Any]) -> str:
    """`a100: 6 nodes × 4 A100 40GB`; what was left unsaid is a question mark."""
    return _("%(name)s: %(nodes)s nodes × %(per_node)s %(model)s") % {
        "name": group.get("name") or "?",
        "nodes": group.get("nodes") or "?",
        "per_node": group.get("gpus_per_node") or "?",
        "model": group.get("gpu_model") or _("GPUs"),
    }


def demand_in_words(line: dict[str, Any]) -> str:
    """`Training: 16 GPUs, in a time window`."""
    kinds, times = dict(WORKLOAD_CHOICES), dict(WHEN_CHOICES)
    if line.get("gpus") is not None:
        amount = _("%(count)s GPUs") % {"count": line["gpus"]}
    elif line.get("mig_profile"):
        amount = _("%(count)s replicas of MIG %(profile)s") % {
            "count": line.get("replicas"),
            "profile": line["mig_profile"],
        }
    elif line.get("gpus_per_replica"):
        amount = _("%(count)s replicas × %(gpus)s GPUs") % {
            "count": line.get("replicas"),
            "gpus": line["gpus_per_replica"],
        }
    else:
        amount = _("%(count)s replicas") % {"count": line.get("replicas")}
    workload = line.get("workload")
    when = line.get("when") or "always"
    return f"{kinds.get(workload, workload)}: {amount}, {times.get(when, when)}"


def tenant_in_words(tenant: dict[str, Any]) -> str:
    """`clinical (Online inference; GPUs shared: never…; demand: Online inference: 12
    replicas, always)`."""
    kinds = dict(WORKLOAD_CHOICES)
    parts = [", ".join(str(kinds.get(kind, kind)) for kind in tenant.get("workloads") or [])]
    if tenant.get("cross_tenant_sharing"):
        rule = dict(TENANT_SHARING_CHOICES).get(tenant["cross_tenant_sharing"])
        parts.append(_("GPUs shared: %(rule)s") % {"rule": rule or tenant["cross_tenant_sharing"]})
    if tenant.get("isolation"):
        level = dict(TENANT_ISOLATION_CHOICES).get(tenant["isolation"])
        parts.append(_("isolation: %(level)s") % {"level": level or tenant["isolation"]})
    lines = [demand_in_words(line) for line in tenant.get("demand") or []]
    if lines:
        parts.append(_("demand: %(lines)s") % {"lines": "; ".join(lines)})
    return f"{tenant.get('name') or '?'} ({'; '.join(str(part) for part in parts if part)})"


def installed_in_words(item: dict[str, Any]) -> str:
    """`kueue 0.10.1`."""
    return " ".join(str(part) for part in (item.get("project"), item.get("version")) if part)


_ONE = {
    "node_groups": node_group_in_words,
    "tenants": tenant_in_words,
    "installed": installed_in_words,
}


def fleet_item_in_words(name: str, item: Any) -> str:
    """One node group, tenant or component in words (a diff's added or removed entry)."""
    return _ONE[name](item) if isinstance(item, dict) else str(item)


def fleet_in_words(name: str, items: list[dict[str, Any]] | None) -> str:
    """A whole list in one line, entries apart by " · "."""
    return " · ".join(fleet_item_in_words(name, item) for item in items or [])
