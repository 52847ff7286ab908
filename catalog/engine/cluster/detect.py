"""From a snapshot to the catalog rows deployed: which rows, which versions, on which nodes.

Matching follows the `detect` signatures of placement rows (bundle v1): names are case-sensitive
fnmatch globs, CRDs and DRA drivers exact, images the repository path at a `/` boundary. A row
is present only when one of its workload signatures matches (DaemonSets, Deployments, images,
webhooks, DRA drivers); CRDs, charts, node labels and extended resources only corroborate.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from fnmatch import fnmatchcase
from typing import Any

from catalog.engine.cluster.images import (
    chart_image,
    image_matches,
    image_repository,  # noqa: F401 (re-exported: the readers of image references import it here)
    image_tag,
    owned_by,
)
from catalog.engine.cluster.snapshot import Snapshot
from catalog.engine.rows import Row

# Node label keys that name a node pool in the managed Kubernetes offerings and common setups.
POOL_LABELS: tuple[str, ...] = (
    "cloud.google.com/gke-nodepool",
    "eks.amazonaws.com/nodegroup",
    "kubernetes.azure.com/agentpool",
    "ecomap.io/pool",  # the pool label of EcoMap's generated configuration (docs/configgen.md)
    "node-pool",
    "nodepool",
    "pool",
)
# GPU-related label keys: what tells one kind of GPU node from another.
GPU_LABEL_PATTERNS: tuple[str, ...] = (
    "nvidia.com/*",
    "amd.com/*",
    "beta.amd.com/*",
    "feature.node.kubernetes.io/pci-*10de*",
    "feature.node.kubernetes.io/pci-*1002*",
)
# Labels that differ node by node or moment by moment without making a different kind of node.
VOLATILE_LABEL_PATTERNS: tuple[str, ...] = (
    "*timestamp*",
    "*.state",
    "nvidia.com/cuda.*",
    "nvidia.com/gpu.deploy.*",
)
# Resources every node has; the rest of status.allocatable are extended resources.
CORE_RESOURCES = frozenset({"cpu", "memory", "ephemeral-storage", "pods"})
WORKLOAD_KEYS = ("daemonsets", "deployments", "images", "webhooks", "dra_drivers")
# How _corroborate words what it scored (left out when a mode is re-weighed on one pool's nodes).
SCORED = ("CRD ", "node label ", "extended resource ", "Helm release ")
OTHER_POOL = "other"
GLOB_CHARS = frozenset("*?[")

_CHART = re.compile(r"^(?P<name>.+?)-(?P<version>v?\d+(?:\.\d+)*(?:[-+].*)?)$")


@dataclass(frozen=True, slots=True)
class NodePool:
    """Nodes with the same GPU-related labels (and the same pool label, when there is one)."""

    name: str
    labels: Mapping[str, str]
    nodes: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Detected:
    """A catalog row found in the cluster."""

    row: str
    version: str
    nodes: tuple[str, ...]  # where its DaemonSets or ResourceSlices run; empty when cluster-wide
    pools: tuple[str, ...]
    cluster_wide: bool = False  # runs as Deployments or webhooks only, so serves every node
    objects: tuple[str, ...] = ()  # "DaemonSet kube-system/hami-device-plugin", …
    matched: tuple[str, ...] = ()  # which signatures matched what, in words for the evidence
    # Rows of the same project matched by the same objects, that the snapshot cannot tell apart
    # (e.g. the device plugin's whole-GPU and time-slicing modes: one DaemonSet, a config).
    alternatives: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Workload:
    kind: str  # DaemonSet | Deployment
    namespace: str
    name: str
    images: tuple[str, ...]
    pod_spec: Mapping[str, Any] = field(hash=False, default_factory=dict)
    # metadata.ownerReferences as (API group, kind): an operator's operands are owned by its
    # custom resource (the GPU Operator's DaemonSets by its ClusterPolicy).
    owners: tuple[tuple[str, str], ...] = ()

    @property
    def label(self) -> str:
        return f"{self.kind} {self.namespace}/{self.name}" if self.namespace else self.name


def _meta(item: Mapping[str, Any]) -> Mapping[str, Any]:
    meta = item.get("metadata")
    return meta if isinstance(meta, Mapping) else {}


def _name(item: Mapping[str, Any]) -> str:
    return str(_meta(item).get("name", ""))


def _dig(item: Any, *keys: str) -> Any:
    for key in keys:
        if not isinstance(item, Mapping):
            return None
        item = item.get(key)
    return item


def as_list(value: Any) -> list[Any]:
    """`value` if it is a list, else empty: snapshot fields are read, never trusted."""
    return value if isinstance(value, list) else []


def as_mapping(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def node_labels(node: Mapping[str, Any]) -> dict[str, str]:
    labels = _meta(node).get("labels")
    return {str(k): str(v) for k, v in labels.items()} if isinstance(labels, Mapping) else {}


def node_resources(node: Mapping[str, Any]) -> dict[str, str]:
    """Extended resources a node advertises (status.allocatable, zero quantities left out)."""
    allocatable = _dig(node, "status", "allocatable")
    if not isinstance(allocatable, Mapping):
        return {}
    return {
        str(name): str(quantity)
        for name, quantity in allocatable.items()
        if name not in CORE_RESOURCES
        and not str(name).startswith("hugepages-")
        and str(quantity) not in ("0", "0k", "")
    }


def chart_name_version(chart: str) -> tuple[str, str]:
    """`hami-2.10.0` → ("hami", "2.10.0"): helm list prints the chart as NAME-VERSION."""
    match = _CHART.match(chart)
    return (match["name"], match["version"]) if match else (chart, "")


def workloads(snapshot: Snapshot) -> list[Workload]:
    found = []
    for key, kind in (("daemonsets", "DaemonSet"), ("deployments", "Deployment")):
        for item in snapshot.items(key):
            pod_spec = _dig(item, "spec", "template", "spec")
            pod_spec = pod_spec if isinstance(pod_spec, Mapping) else {}
            containers = as_list(pod_spec.get("containers")) + as_list(
                pod_spec.get("initContainers")
            )
            images = tuple(
                str(c["image"]) for c in containers if isinstance(c, Mapping) and c.get("image")
            )
            owners = tuple(
                (str(ref.get("apiVersion", "")).rpartition("/")[0], str(ref.get("kind", "")))
                for ref in as_list(_meta(item).get("ownerReferences"))
                if isinstance(ref, Mapping)
            )
            found.append(
                Workload(
                    kind,
                    str(_meta(item).get("namespace", "")),
                    _name(item),
                    images,
                    pod_spec,
                    owners,
                )
            )
    return found


def _expression_holds(expression: Mapping[str, Any], labels: Mapping[str, str]) -> bool:
    key, operator = str(expression.get("key")), expression.get("operator")
    values = [str(v) for v in as_list(expression.get("values"))]
    if operator == "In":
        return key in labels and labels[key] in values
    if operator == "NotIn":
        return key not in labels or labels[key] not in values
    if operator == "Exists":
        return key in labels
    if operator == "DoesNotExist":
        return key not in labels
    if operator in ("Gt", "Lt") and key in labels and len(values) == 1:
        try:
            have, bound = int(labels[key]), int(values[0])
        except ValueError:
            return False
        return have > bound if operator == "Gt" else have < bound
    return False


def _term_holds(term: Any, name: str, labels: Mapping[str, str]) -> bool:
    if not isinstance(term, Mapping):
        return False
    expressions = as_list(term.get("matchExpressions"))
    fields = as_list(term.get("matchFields"))
    if not expressions and not fields:
        return False  # Kubernetes: an empty term matches no node
    by_field = {"metadata.name": name}
    return all(
        isinstance(e, Mapping) and _expression_holds(e, labels) for e in expressions
    ) and all(isinstance(f, Mapping) and _expression_holds(f, by_field) for f in fields)


def schedules_on(pod_spec: Mapping[str, Any], node: Mapping[str, Any]) -> bool:
    """Whether a pod spec's nodeSelector and required node affinity admit the node (taints and
    tolerations are not weighed: a DaemonSet usually tolerates its GPU nodes' taints)."""
    labels = node_labels(node)
    selector = pod_spec.get("nodeSelector")
    if isinstance(selector, Mapping) and any(
        labels.get(str(k)) != str(v) for k, v in selector.items()
    ):
        return False
    terms = _dig(
        pod_spec,
        "affinity",
        "nodeAffinity",
        "requiredDuringSchedulingIgnoredDuringExecution",
        "nodeSelectorTerms",
    )
    if terms is None:
        return True
    return any(_term_holds(term, _name(node), labels) for term in as_list(terms))


def _any_glob(patterns: Iterable[str], value: str) -> bool:
    return any(fnmatchcase(value, pattern) for pattern in patterns)


def gpu_label_keys(signatures: Mapping[str, Mapping[str, Any]]) -> tuple[str, ...]:
    """The label-key globs that make a label GPU-related: the fixed ones and the rows' own."""
    own = {p.partition("=")[0] for sig in signatures.values() for p in sig.get("node_labels", ())}
    return (*GPU_LABEL_PATTERNS, *sorted(own))


def node_pools(snapshot: Snapshot, label_keys: Sequence[str]) -> list[NodePool]:
    """Group the nodes by their GPU-related labels plus the pool label, in a stable order."""
    kept_keys: dict[str, bool] = {}  # decided once per distinct key, not per node

    def kept(key: str) -> bool:
        if key not in kept_keys:
            kept_keys[key] = (key in POOL_LABELS or _any_glob(label_keys, key)) and not _any_glob(
                VOLATILE_LABEL_PATTERNS, key
            )
        return kept_keys[key]

    groups: dict[tuple[tuple[str, str], ...], list[str]] = defaultdict(list)
    for node in snapshot.items("nodes"):
        labels = node_labels(node)
        groups[tuple(sorted((k, v) for k, v in labels.items() if kept(k)))].append(_name(node))
    pools, taken = [], set()
    for kept_labels, names in sorted(groups.items(), key=lambda item: min(item[1])):
        labels = dict(kept_labels)
        name = _pool_name(labels)
        base, n = name, 2
        while name in taken:
            name, n = f"{base}-{n}", n + 1
        taken.add(name)
        pools.append(NodePool(name, labels, tuple(sorted(names))))
    return pools


def _pool_name(labels: Mapping[str, str]) -> str:
    pool = next((labels[key] for key in POOL_LABELS if key in labels), None)
    product = labels.get("nvidia.com/gpu.product") or labels.get("amd.com/gpu.product-name")
    if pool and product:
        return f"{pool} ({product})"
    return pool or product or (f"gpu-{len(labels)}-labels" if labels else OTHER_POOL)


@dataclass
class _Match:
    row: Row
    objects: set[str] = field(default_factory=set)
    nodes: set[str] = field(default_factory=set)
    cluster_wide: bool = False
    matched: list[str] = field(default_factory=list)
    images: list[str] = field(default_factory=list)
    score: int = 0  # corroborating signatures matched


class _Cluster:
    """The snapshot indexed once for matching many rows."""

    def __init__(self, snapshot: Snapshot):
        self.closest: dict[str, int] = {}  # workload label -> closest_signatures
        self.nodes = list(snapshot.items("nodes"))
        self.workloads = workloads(snapshot)
        self.helm = [
            (str(r.get("name", "")), *chart_name_version(str(r.get("chart", ""))), r)
            for r in snapshot.helm_releases
        ]
        self.crds = {_name(c) for c in snapshot.items("crds")}
        self.webhooks = [_name(w) for w in snapshot.items("mutatingwebhookconfigurations")]
        self.slices = [
            (str(_dig(s, "spec", "driver") or ""), str(_dig(s, "spec", "nodeName") or ""))
            for s in snapshot.items("resourceslices")
        ]
        self.classes = [
            (_name(c), repr(_dig(c, "spec", "selectors"))) for c in snapshot.items("deviceclasses")
        ]
        self._nodes_of: dict[str, tuple[str, ...]] = {}
        self._facts: dict[
            tuple[frozenset[str], tuple[str, ...]], tuple[dict[str, set[str]], set[str]]
        ] = {}

    def facts(
        self, names: Iterable[str], unless: Sequence[str] = ()
    ) -> tuple[dict[str, set[str]], set[str]]:
        """Label values by key and the extended resources of the named nodes (all nodes when
        none are named), leaving out the nodes that carry an `unless` label; rows sharing a
        DaemonSet ask for the same nodes, so it is kept."""
        key = (frozenset(names), tuple(unless))
        if key not in self._facts:
            labels: dict[str, set[str]] = defaultdict(set)
            resources: set[str] = set()
            for node in self.nodes:
                if key[0] and _name(node) not in key[0]:
                    continue
                own = node_labels(node)
                single = _single(own) if unless else {}
                if unless and any(label_matches(entry, single) for entry in unless):
                    continue
                for label, value in own.items():
                    labels[label].add(value)
                resources.update(node_resources(node))
            self._facts[key] = (dict(labels), resources)
        return self._facts[key]

    def nodes_of(self, workload: Workload) -> tuple[str, ...]:
        if workload.label not in self._nodes_of:
            self._nodes_of[workload.label] = tuple(
                _name(n) for n in self.nodes if schedules_on(workload.pod_spec, n)
            )
        return self._nodes_of[workload.label]


def _workload_hit(
    signature: Mapping[str, Any], workload: Workload
) -> tuple[str | None, str | None]:
    names = signature.get("daemonsets" if workload.kind == "DaemonSet" else "deployments", ())
    hit = next((p for p in names if fnmatchcase(workload.name, p)), None)
    repositories = signature.get("images", ())
    image = next((i for i in workload.images for p in repositories if image_matches(p, i)), None)
    if hit is None and image is None:
        owner = owned_by(signature, workload)
        hit = f"{owner} (its owner)" if owner else None
    # An operator (a row with CRDs of its own) whose controller the signature does not name:
    # its Deployment runs an image named as its chart.
    operator = signature.get("crds") and not signature.get("deployments")
    if hit is None and image is None and workload.kind == "Deployment" and operator:
        named = chart_image(signature, workload)
        hit = f"the chart's image {named}" if named else None
    return hit, image


def _specificity(signature: Mapping[str, Any], workload: Workload) -> int:
    """How closely a signature names a workload: 2 by its exact name or its image, 1 by a glob
    of its name only, 0 not at all."""
    hit, image = _workload_hit(signature, workload)
    names = signature.get("daemonsets" if workload.kind == "DaemonSet" else "deployments", ())
    if image is not None or workload.name in (p for p in names if not GLOB_CHARS & set(p)):
        return 2
    if hit is not None and owned_by(signature, workload):
        return 2
    return 1 if hit is not None else 0


def closest_signatures(
    cluster: _Cluster, signatures: Mapping[str, Mapping[str, Any]]
) -> dict[str, int]:
    """Per workload, the closest any signature names it: a workload another project names
    exactly (HAMi's Ascend plugin, hami-ascend-device-plugin) is not also HAMi's NVIDIA plugin
    because HAMi's glob *hami*-device-plugin happens to match its name."""
    return {
        w.label: max((_specificity(sig, w) for sig in signatures.values()), default=0)
        for w in cluster.workloads
    }


def _match_workloads(cluster: _Cluster, signature: Mapping[str, Any], match: _Match) -> None:
    for workload in cluster.workloads:
        hit, image = _workload_hit(signature, workload)
        if hit is None and image is None:
            continue
        if _specificity(signature, workload) < cluster.closest.get(workload.label, 0):
            continue
        match.objects.add(workload.label)
        match.matched.append(
            f"{workload.label} matches {hit}" if hit else f"{workload.label} runs {image}"
        )
        match.images.extend(i for i in workload.images if image is None or i == image)
        if workload.kind == "DaemonSet":
            match.nodes.update(cluster.nodes_of(workload))
        else:
            match.cluster_wide = True


def _match_row(cluster: _Cluster, row: Row, signature: Mapping[str, Any]) -> _Match | None:
    match = _Match(row)
    _match_workloads(cluster, signature, match)
    for name in cluster.webhooks:
        hit = next((p for p in signature.get("webhooks", ()) if fnmatchcase(name, p)), None)
        if hit:
            match.objects.add(f"MutatingWebhookConfiguration {name}")
            match.matched.append(f"MutatingWebhookConfiguration {name} matches {hit}")
            match.cluster_wide = True
    drivers = set(signature.get("dra_drivers", ()))
    for driver, node in cluster.slices:
        if driver in drivers:
            match.objects.add(f"ResourceSlices of {driver}")
            if node:
                match.nodes.add(node)
    for name, selectors in cluster.classes:
        hit = next((d for d in drivers if f'"{d}"' in selectors or f"'{d}'" in selectors), None)
        if hit:
            match.objects.add(f"DeviceClass {name}")
            match.matched.append(f"DeviceClass {name} selects driver {hit}")
    if not match.objects:
        return None
    if any(o.startswith("ResourceSlices of ") for o in match.objects):
        match.matched.append(
            "ResourceSlices of " + ", ".join(sorted(d for d, _ in cluster.slices if d in drivers))
        )
    if not match.nodes and not match.cluster_wide:
        match.cluster_wide = True  # a DeviceClass alone: the driver serves the cluster
    _corroborate(cluster, signature, match)
    return match


def label_matches(entry: str, labels: Mapping[str, Iterable[str]]) -> bool:
    """A `node_labels` entry against label keys and their values: a key glob, or `key=value`
    (exact value; how a row that shares its DaemonSet with other modes tells them apart, e.g.
    `nvidia.com/mig.strategy=mixed`)."""
    key, equals, value = entry.partition("=")
    return any(
        fnmatchcase(k, key) and (not equals or value in values) for k, values in labels.items()
    )


def _single(labels: Mapping[str, str]) -> dict[str, tuple[str]]:
    return {key: (value,) for key, value in labels.items()}


def _corroborate(cluster: _Cluster, signature: Mapping[str, Any], match: _Match) -> None:
    """Score the corroborating signatures, on the row's own nodes when it has any. A node that
    carries one of the row's `unless_node_labels` is no evidence for it: its labels and
    resources are not the row's (e.g. `nvidia.com/mig.config=all-disabled`: the MIG manager
    disabled MIG, so the GPUs are presented whole whatever `nvidia.com/mig.strategy` says)."""
    unless = tuple(signature.get("unless_node_labels", ()))
    labels, resources = cluster.facts(match.nodes, unless)
    for crd in signature.get("crds", ()):
        if crd in cluster.crds:
            match.score += 1
            match.matched.append(f"CRD {crd}")
    for entry in signature.get("node_labels", ()):
        if label_matches(entry, labels):
            match.score += 1
            match.matched.append(f"node label {entry}")
    for resource in signature.get("extended_resources", ()):
        if any(fnmatchcase(key, resource) for key in resources):
            match.score += 2  # what a mode advertises is what tells modes apart
            match.matched.append(f"extended resource {resource}")
    for release, chart, _version, _ in cluster.helm:
        if _any_glob(signature.get("helm_charts", ()), chart):
            match.score += 1
            match.matched.append(f"Helm release {release} of chart {chart}")


def _claims(signature: Mapping[str, Any]) -> int:
    keys = ("crds", "node_labels", "extended_resources", "helm_charts")
    return sum(len(signature.get(key, ())) for key in keys)


def _version(cluster: _Cluster, signature: Mapping[str, Any], match: _Match) -> str:
    for _release, chart, version, raw in cluster.helm:
        if _any_glob(signature.get("helm_charts", ()), chart):
            return str(raw.get("app_version") or version)
    tags = [image_tag(i) for i in match.images if image_tag(i)]
    return tags[0] if tags else ""


def _group(matches: list[_Match]) -> list[list[_Match]]:
    """Rows of one project found through the same objects: one deployment, several modes."""
    groups: list[list[_Match]] = []
    for match in matches:
        for group in groups:
            head = group[0]
            if head.row.project == match.row.project and head.objects & match.objects:
                group.append(match)
                break
        else:
            groups.append([match])
    return groups


def detect_rows(
    snapshot: Snapshot,
    *,
    rows: Sequence[Row],
    signatures: Mapping[str, Mapping[str, Any]],
    pools: Sequence[NodePool] = (),
    prefer: Iterable[str] = (),
) -> list[Detected]:
    """The rows present in the snapshot. Among rows of one project that the same objects match,
    the one with most corroborating signatures is taken; a tie goes to a row in `prefer` (the
    decision), then to the row that claims least (the plain mode, not the one whose extra
    signatures went unmatched), then to the order of `signatures`; the others that tie are
    listed as its alternatives."""
    cluster = _Cluster(snapshot)
    cluster.closest = closest_signatures(cluster, signatures)
    preferred = set(prefer)
    position = {row_id: i for i, row_id in enumerate(signatures)}
    matches = [
        m
        for row in rows
        if any(signatures.get(row.id, {}).get(k) for k in WORKLOAD_KEYS)
        and (m := _match_row(cluster, row, signatures[row.id])) is not None
    ]
    pool_of = {node: pool.name for pool in pools for node in pool.nodes}

    def rank(m: _Match) -> tuple:
        return (m.score, m.row.id in preferred, -_claims(signatures[m.row.id]), -position[m.row.id])

    found = []
    for whole_group in _group(matches):
        for group, nodes in _modes_by_pool(cluster, whole_group, pools, signatures, rank):
            best = max(group, key=rank)
            signature = signatures[best.row.id]
            found.append(
                Detected(
                    row=best.row.id,
                    version=_version(cluster, signature, best),
                    nodes=nodes,
                    pools=tuple(sorted({pool_of[n] for n in nodes if n in pool_of})),
                    cluster_wide=not nodes and any(m.cluster_wide for m in group),
                    objects=tuple(sorted(set().union(*(m.objects for m in group)))),
                    matched=tuple(dict.fromkeys(best.matched)),
                    alternatives=tuple(
                        m.row.id for m in group if m is not best and m.score == best.score
                    ),
                )
            )
    return found


def _modes_by_pool(cluster, group, pools, signatures, rank):
    """One DaemonSet of several modes (the GPU Operator's device plugin serving a whole-GPU pool
    and a MIG pool): each node pool's evidence is weighed on its own nodes, and each mode that
    wins a pool is detected on that pool's nodes. When one mode wins every pool (or there is a
    single mode or pool), the group is detected as before, once, on all its nodes."""
    nodes = tuple(sorted(set().union(*(m.nodes for m in group))))
    spanned = [p for p in pools if set(p.nodes) & set(nodes)]
    if len(group) < 2 or len(spanned) < 2:
        return [(group, nodes)]
    winners: dict[str, list[str]] = {}
    rescored: dict[str, list[_Match]] = {}
    for pool in spanned:
        here = set(pool.nodes) & set(nodes)
        local = []
        for m in group:
            trial = _Match(m.row, objects=set(m.objects), nodes=here & m.nodes)
            trial.matched = [line for line in m.matched if not line.startswith(SCORED)]
            if trial.nodes:
                _corroborate(cluster, signatures[m.row.id], trial)
                local.append(trial)
        if not local:
            continue
        best = max(local, key=rank)
        winners.setdefault(best.row.id, []).extend(sorted(here))
        rescored.setdefault(best.row.id, local)
    if len(winners) < 2:
        return [(group, nodes)]
    return [(rescored[row_id], tuple(sorted(won))) for row_id, won in winners.items()]
