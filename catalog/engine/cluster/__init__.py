"""What is really deployed: a cluster snapshot resolved to catalog rows and checked.

Pure Python (no Django): the `check_cluster` command, the API and the cluster page call it.
"""

from catalog.engine.cluster.checks import check_cluster
from catalog.engine.cluster.detect import Detected, NodePool
from catalog.engine.cluster.dra import builtin_dra_features
from catalog.engine.cluster.report import CODES, ClusterReport, Decided, Finding
from catalog.engine.cluster.snapshot import (
    MAX_BODY_BYTES,
    MAX_DEPTH,
    MAX_NODES,
    MAX_OBJECTS,
    SNAPSHOT_FORMAT,
    Snapshot,
    SnapshotError,
    load_snapshot,
    parse_snapshot,
    snapshot_schema,
)

__all__ = [
    "CODES",
    "MAX_BODY_BYTES",
    "MAX_DEPTH",
    "MAX_NODES",
    "MAX_OBJECTS",
    "SNAPSHOT_FORMAT",
    "ClusterReport",
    "Decided",
    "Detected",
    "Finding",
    "NodePool",
    "Snapshot",
    "SnapshotError",
    "builtin_dra_features",
    "check_cluster",
    "load_snapshot",
    "parse_snapshot",
    "snapshot_schema",
]
