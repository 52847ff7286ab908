"""What a cluster check returns: findings, the rows detected, the node pools, as JSON too."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from catalog.engine.cluster.detect import Detected, NodePool
from catalog.engine.text import Text

ERROR, WARNING, INFO = "error", "warning", "info"
SEVERITIES: tuple[str, ...] = (ERROR, WARNING, INFO)


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
