"""What a cluster check returns: findings, the rows detected, the node pools, as JSON too."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from catalog.engine.cluster.detect import Detected, NodePool
from catalog.engine.text import Text, _

ERROR, WARNING, INFO = "error", "warning", "info"
SEVERITIES: tuple[str, ...] = (ERROR, WARNING, INFO)

# Every finding code with what it means, for pages and docs that explain a code; a code not
# listed here is refused, so the list stays complete.
CODES: dict[str, Text] = {
    "exclusive-token-shared": _(
        "Two components that each claim a node's devices (one ownership token) run on the same "
        "node."
    ),
    "requirement-unmet": _("A deployed component requires something nothing deployed provides."),
    "requirement-not-visible": _(
        "A deployed component requires something the node image may install (a driver, the "
        "container toolkit): the snapshot cannot tell."
    ),
    "queue-resource-not-covered": _(
        "No Kueue ClusterQueue covers a GPU resource pods here request: such workloads are never "
        "admitted."
    ),
    "queue-resource-transformed": _(
        "ClusterQueues cover transformed resource names (such as total-gpumem): right only if "
        "Kueue's configuration transforms them."
    ),
    "queue-resource-not-capped": _(
        "A Volcano queue caps some GPU resources but not others the nodes serve."
    ),
    "queue-cannot-express": _(
        "A deployed queueing or scheduling component cannot put quota on or place a GPU "
        "resource in use."
    ),
    "cost-resource-not-accounted": _(
        "A deployed cost tool does not account for a GPU resource pods here request."
    ),
    "signal-not-exported": _(
        "A decided component works from metrics that nothing deployed exports."
    ),
    "dra-feature-too-old": _("A DRA feature in use is newer than the cluster's Kubernetes."),
    "dra-feature-off-by-default": _(
        "A DRA feature in use is alpha, or beta and off by default, in the cluster's Kubernetes."
    ),
    "kubernetes-version-unknown": _(
        "DRA features are in use but the snapshot has no Kubernetes version."
    ),
    "helm-release-without-workloads": _(
        "A Helm release of a catalog chart is installed but none of its workloads was found."
    ),
    "decided-row-absent": _("A decided component does not run in the cluster."),
    "decided-row-undetectable": _("A decided component has no signature to find it by."),
    "row-not-decided": _("A component runs in the cluster but is not part of the decision."),
    "pool-not-found": _("No node pool runs any component decided for a pool."),
    "pool-row-missing": _("A component decided for a pool does not run on that pool's nodes."),
    "pool-row-unexpected": _("A node pool runs a component not decided for it."),
}


@dataclass(frozen=True, slots=True)
class Decided:
    """An evaluation's decided stack: row ids, and the rows meant for each node pool (rows in
    no pool are meant for the whole cluster)."""

    rows: tuple[str, ...] = ()
    pools: Mapping[str, tuple[str, ...]] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Finding:
    """One thing the snapshot shows to be wrong (error), doubtful (warning) or worth knowing."""

    severity: str
    code: str  # stable slug: tests, CI scripts and the web page key on it
    message: Text
    nodes: tuple[str, ...] = ()
    objects: tuple[str, ...] = ()
    rows: tuple[str, ...] = ()
    evidence: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if self.severity not in SEVERITIES:
            raise ValueError(f"unknown severity {self.severity!r}")
        if self.code not in CODES:
            raise ValueError(f"unknown finding code {self.code!r}; add it to CODES")

    def to_dict(self) -> dict[str, Any]:
        return {
            "severity": self.severity,
            "code": self.code,
            "message": str(self.message),
            "nodes": list(self.nodes),
            "objects": list(self.objects),
            "rows": list(self.rows),
            "evidence": list(self.evidence),
        }


@dataclass(frozen=True, slots=True)
class ClusterReport:
    cluster: str
    kubernetes_version: str
    detected: list[Detected]
    pools: list[NodePool]
    findings: list[Finding]

    @property
    def ok(self) -> bool:
        """No error-level finding: what `check_cluster` in CI exits zero on."""
        return not any(f.severity == ERROR for f in self.findings)

    def counts(self) -> dict[str, int]:
        return {s: sum(f.severity == s for f in self.findings) for s in SEVERITIES}

    def to_dict(self) -> dict[str, Any]:
        """JSON-able; messages in English (the web layer renders `Finding.message` itself)."""
        return {
            "cluster": self.cluster,
            "kubernetes_version": self.kubernetes_version,
            "ok": self.ok,
            "counts": self.counts(),
            "detected": [
                {
                    "row": d.row,
                    "version": d.version,
                    "nodes": list(d.nodes),
                    "pools": list(d.pools),
                    "cluster_wide": d.cluster_wide,
                    "objects": list(d.objects),
                    "matched": list(d.matched),
                    "alternatives": list(d.alternatives),
                }
                for d in self.detected
            ],
            "pools": [
                {"name": p.name, "labels": dict(p.labels), "nodes": list(p.nodes)}
                for p in self.pools
            ],
            "findings": [f.to_dict() for f in self.findings],
        }
