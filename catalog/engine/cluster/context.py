"""What the cluster checks read: the rows, what was detected where, the nodes' facts."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from catalog.engine.cluster.detect import (
    Detected,
    as_list,
    as_mapping,
    node_labels,
    node_resources,
)
from catalog.engine.cluster.snapshot import Snapshot
from catalog.engine.rows import Row


def listed(values: Iterable[str]) -> str:
    """Distinct values, sorted, comma-separated: how findings name sets of things."""
    return ", ".join(sorted(set(values)))


class Context:
    """What every check reads: rows by id, what was detected where, the nodes' facts."""

    def __init__(
        self,
        snapshot: Snapshot,
        rows: Sequence[Row],
        signatures: Mapping[str, Mapping[str, Any]],
        detected: list[Detected],
        evidence: Mapping[str, Sequence[str]],
    ):
        self.snapshot = snapshot
        self.by_id = {r.id: r for r in rows}
        self.signatures = signatures
        self.detected = detected
        self.present = [self.by_id[d.row] for d in detected]
        self.nodes = {n.get("metadata", {}).get("name", ""): n for n in snapshot.items("nodes")}
        self.labels = {name: node_labels(node) for name, node in self.nodes.items()}
        self.resources = {name: node_resources(node) for name, node in self.nodes.items()}
        self._evidence = evidence
        # crd:<group>/<version>/<Kind> for every served version of every CRD collected
        self.crd_kinds = {
            f"crd:{spec.get('group')}/{version.get('name')}/{as_mapping(spec.get('names')).get('kind')}"
            for crd in snapshot.items("crds")
            for spec in (as_mapping(crd.get("spec")),)
            for version in as_list(spec.get("versions"))
            if isinstance(version, Mapping)
        }

    def evidence(self, *row_ids: str) -> tuple[str, ...]:
        urls: list[str] = []
        for row_id in row_ids:
            urls.extend(self._evidence.get(row_id, ()))
            urls.extend(self.signatures.get(row_id, {}).get("evidence", ()))
        return tuple(dict.fromkeys(urls))

    def reach(self, found: Detected) -> list[tuple[Detected, Row]]:
        """The other detected rows that run where `found` runs (or anywhere, for a cluster-wide
        row), cluster-wide rows included."""
        mine = set(found.nodes)
        return [
            (d, self.by_id[d.row])
            for d in self.detected
            if d is not found and (d.cluster_wide or found.cluster_wide or mine & set(d.nodes))
        ]
