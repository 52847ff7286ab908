"""The round trip: the cluster a generated configuration would give, as an `ecomap.cluster/v1`
snapshot, checked by the cluster check against the decision it came from. Plain Python.

It is a projection, not a cluster (docs/configgen.md, "Round trip"): nodes are the sizing's node
count per pool with the labels, taints and extended resources the generated files give them; each
decided row is installed as its catalog `detect` signature finds it (a Helm release of its chart,
its DaemonSets on the nodes the generated configuration selects, its Deployments, webhooks and
CRDs); every generated Kubernetes object goes into the snapshot list that collects its kind.
"""

from __future__ import annotations

import copy
from collections import Counter
from collections.abc import Mapping, Sequence
from fnmatch import fnmatchcase
from typing import Any

from catalog.engine.cluster import ClusterReport, Decided, check_cluster, parse_snapshot
from catalog.engine.cluster.detect import image_matches
from catalog.engine.rows import Row
from evaluations.configgen.capacity_of import capacity, mig_strategy, presented, sized_pools
from evaluations.configgen.generate import generate
from evaluations.configgen.install import install_steps
from evaluations.configgen.model import POOL_LABEL, DecisionFacts, GeneratedFile, Pool, RowFacts

NAMESPACE = "ecomap-system"
RELEASE = "ecomap"
# The snapshot list that collects each kind, by (API group, kind): what `kubectl get
# <plural>.<group>` lists (docs/cluster-snapshot.md). Kinds no list collects (LocalQueue,
# ResourceFlavor, ...) are left out of the snapshot: the cluster check reads none.
SNAPSHOT_LISTS: dict[tuple[str, str], str] = {
    ("", "Node"): "nodes",
    ("apps", "DaemonSet"): "daemonsets",
    ("apps", "Deployment"): "deployments",
    ("apiextensions.k8s.io", "CustomResourceDefinition"): "crds",
    ("resource.k8s.io", "ResourceSlice"): "resourceslices",
    ("resource.k8s.io", "DeviceClass"): "deviceclasses",
    ("admissionregistration.k8s.io", "MutatingWebhookConfiguration"): (
        "mutatingwebhookconfigurations"
    ),
    ("kueue.x-k8s.io", "ClusterQueue"): "clusterqueues",
    ("scheduling.volcano.sh", "Queue"): "queues",
    ("scheduling.run.ai", "Queue"): "kaiqueues",
}
# The node selectors of DaemonSets at the pinned releases, where a chart or an operator sets one.
# GPU Operator v26.7.0 runs its device plugin on nodes labelled
# nvidia.com/gpu.deploy.device-plugin=true: https://github.com/NVIDIA/gpu-operator/blob/v26.7.0/
# assets/state-device-plugin/0500_daemonset.yaml (spec.template.spec.nodeSelector).
OPERATOR_DEVICE_PLUGIN_LABEL = "nvidia.com/gpu.deploy.device-plugin"
OPERATOR_DEVICE_PLUGIN_DAEMONSET = "nvidia-device-plugin-daemonset"  # the same manifest
# HAMi chart v2.10.0 runs its NVIDIA device plugin on nodes labelled gpu=on:
# https://github.com/Project-HAMi/HAMi/blob/v2.10.0/charts/hami/values.yaml
# (devicePlugin.nvidiaNodeSelector).
HAMI_DEVICE_PLUGIN_SELECTOR = {"gpu": "on"}
HAMI_SCHEDULER_RESOURCES = (
    "nvidia.com/gpumem",
    "nvidia.com/gpumem-percentage",
    "nvidia.com/gpucores",
)
# The GPU Operator labels every GPU node nvidia.com/gpu.present=true and each operand's
# nvidia.com/gpu.deploy.<operand>=true unless the label is already set (false keeps an operand
# off a node): https://github.com/NVIDIA/gpu-operator/blob/v26.7.0/controllers/state_manager.go
# (L40-L107, the labels it manages).
OPERATOR_PROJECT = "nvidia-gpu-operator"
OPERATOR_LABELS = ("nvidia.com/gpu.present", OPERATOR_DEVICE_PLUGIN_LABEL)
# GPU feature discovery labels a node with the device plugin's MIG strategy
# (nvidia.com/mig.strategy: https://github.com/NVIDIA/k8s-device-plugin/blob/v0.20.0/internal/lm/
# mig-strategy_test.go).
MIG_STRATEGY_LABEL = "nvidia.com/mig.strategy"
# With MIG Manager on, the operator labels a MIG-capable node without nvidia.com/mig.config with
# the configured default (all-disabled here): https://github.com/NVIDIA/gpu-operator/blob/
# v26.7.0/controllers/nodelabeling_controller.go#L306-L316.
MIG_CONFIG_LABEL = "nvidia.com/mig.config"
MIG_RESOURCE_PREFIX = "nvidia.com/mig-"


def _group_kind(document: Mapping[str, Any]) -> tuple[str, str]:
    api = str(document.get("apiVersion", ""))
    group = api.rpartition("/")[0] if "/" in api else ""
    return group, str(document.get("kind", ""))


def _concrete(pattern: str) -> str:
    """A name a `detect` glob matches: `*` as nothing or as the release name, `?` one letter."""
    for fill in ("", RELEASE):
        name = pattern.replace("*", fill).replace("?", "x")
        if name and name[0].isalnum() and name[-1].isalnum() and fnmatchcase(name, pattern):
            return name
    return RELEASE


def _matches(signature: Mapping[str, Any], workload: Mapping[str, Any]) -> bool:
    """Whether a workload already in the projection is one the signature finds a row by."""
    names = signature.get("daemonsets" if workload["kind"] == "DaemonSet" else "deployments", ())
    images = [
        str(c.get("image", "")) for c in workload["spec"]["template"]["spec"].get("containers", [])
    ]
    return any(fnmatchcase(workload["metadata"]["name"], p) for p in names) or any(
        image_matches(p, i) for p in signature.get("images", ()) for i in images
    )


def _merge_nodes(existing: dict[str, Any], pod_spec: Mapping[str, Any]) -> None:
    """One DaemonSet decided for several pools (a row per pool) runs on all of them."""
    spec = existing["spec"]["template"]["spec"]
    if "affinity" not in spec:
        return  # already on every node, or on the nodes its chart selects
    if not pod_spec:
        del spec["affinity"]
        return
    if "affinity" in pod_spec:
        have = _affinity_values(spec)
        for value in _affinity_values(pod_spec):
            if value not in have:
                have.append(value)


def _document_values(files: Sequence[GeneratedFile], kind: str) -> list[dict[str, Any]]:
    return [doc.data for f in files if f.kind == kind for doc in f.documents]


def _operator_device_plugin_on(files: Sequence[GeneratedFile]) -> bool:
    values = _document_values(files, "gpu-operator-values")
    return bool(values) and bool(values[0].get("devicePlugin", {}).get("enabled"))


def _nodes(
    facts: DecisionFacts, pools: list[Pool], files: Sequence[GeneratedFile]
) -> list[dict[str, Any]]:
    """Each pool's nodes with the generated labels and taints, the labels the decided components
    set, and status.allocatable of what the pool's generated configuration presents."""
    node_docs = {doc["pool"]: doc for doc in _document_values(files, "node-pool")}
    strategies = {
        f.path.rpartition("/")[2].removesuffix(".yaml"): f.documents[0].data["flags"]["migStrategy"]
        for f in files
        if f.kind == "device-plugin-config"
    }
    operator = facts.row(f"{OPERATOR_PROJECT}/clusterpolicy") is not None
    values = _document_values(files, "gpu-operator-values")
    manager = values[0].get("migManager", {}) if values else {}
    mig_default = manager.get("config", {}).get("default") if manager.get("enabled") else None
    nodes = []
    for pool in pools:
        doc = node_docs.get(pool.name, {})
        count = pool.size.nodes
        mig_labels: list[dict[str, str]] = []
        for group in doc.get("mig_configs", []):
            mig_labels += [dict(group["labels"])] * group["nodes"]
        per_node = _per_node(pool, count)
        for index in range(count):
            labels = {str(k): str(v) for k, v in doc.get("labels", {POOL_LABEL: pool.name}).items()}
            if index < len(mig_labels):
                labels.update(mig_labels[index])
            if operator:
                for key in OPERATOR_LABELS:
                    labels.setdefault(key, "true")
                if mig_default and pool.cluster.model is not None and pool.cluster.model.has_mig:
                    labels.setdefault(MIG_CONFIG_LABEL, mig_default)
            if pool.name in strategies and labels.get(OPERATOR_DEVICE_PLUGIN_LABEL) != "false":
                labels[MIG_STRATEGY_LABEL] = strategies[pool.name]
            nodes.append(
                {
                    "apiVersion": "v1",
                    "kind": "Node",
                    "metadata": {"name": f"{pool.name}-{index + 1}", "labels": labels},
                    "spec": {"taints": list(doc.get("taints", []))},
                    "status": {
                        "allocatable": {
                            name: str(amounts[index])
                            for name, amounts in per_node.items()
                            if amounts[index]
                        }
                    },
                }
            )
    return nodes


def _per_node(pool: Pool, count: int) -> dict[str, list[int]]:
    """Each presented resource's pool capacity spread over its nodes (summing to it exactly).
    HAMi's device plugin registers one resource with the kubelet (nvidia.com/gpu); its memory
    and cores are the scheduler extender's, not node allocatable (HAMi v2.10.0
    pkg/device-plugin/nvidiadevice/nvinternal/plugin/server.go#L582-L586, catalog row
    hami/device-plugin's detect note)."""
    mig = _mig_per_node(pool, count) if pool.is_mig else None
    spread = {}
    for resource in presented(pool):
        if pool.serves("hami") and resource in HAMI_SCHEDULER_RESOURCES:
            continue
        total, _why = capacity(pool, resource)
        if mig is not None and resource.startswith(MIG_RESOURCE_PREFIX):
            spread[resource] = [node[resource.removeprefix(MIG_RESOURCE_PREFIX)] for node in mig]
        elif mig is not None and resource == "nvidia.com/gpu" and mig_strategy(pool) == "single":
            spread[resource] = [sum(node.values()) for node in mig]  # one per MIG instance
        else:
            base, extra = divmod(total, max(count, 1))
            spread[resource] = [base + (1 if i < extra else 0) for i in range(count)]
    return spread


def _mig_per_node(pool: Pool, count: int) -> list[Counter[str]]:
    """The MIG instances each node of a MIG pool presents: the layout of its geometry group (the
    node file labels the first nodes of each group with its MIG configuration, in this order) on
    every GPU of the node."""
    nodes: list[Counter[str]] = []
    for group_nodes, layout in pool.size.mig_geometry or []:
        per_gpu = Counter(layout)
        node = Counter({p: n * pool.cluster.gpus_per_node for p, n in per_gpu.items()})
        nodes += [node] * group_nodes
    return (nodes + [Counter()] * count)[:count]


def _where(row: RowFacts, pools: list[Pool]) -> list[str]:
    return [pool.name for pool in pools if any(r.ref == row.ref for r in pool.rows)]


def _pod_spec(row: RowFacts, pools: list[Pool], files: Sequence[GeneratedFile]) -> dict[str, Any]:
    """Where a row's DaemonSet runs: the chart's own node selector at the pinned release when it
    has one, else the nodes of the pools the row was decided for."""
    if row.project == "hami":
        return {"nodeSelector": dict(HAMI_DEVICE_PLUGIN_SELECTOR)}
    if row.project == "nvidia-device-plugin" and _operator_device_plugin_on(files):
        return {"nodeSelector": {OPERATOR_DEVICE_PLUGIN_LABEL: "true"}}
    names = _where(row, pools)
    if len(names) == len(pools):
        return {}
    term = {"matchExpressions": [{"key": POOL_LABEL, "operator": "In", "values": names}]}
    required = {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [term]}}
    return {"affinity": {"nodeAffinity": required}}


def _affinity_values(pod_spec: Mapping[str, Any]) -> list[str]:
    terms = pod_spec["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]
    return terms["nodeSelectorTerms"][0]["matchExpressions"][0]["values"]


def _turned_off(row: RowFacts, facts: DecisionFacts, files: Sequence[GeneratedFile]) -> bool:
    """A part a generated value turns off: the NVIDIA device plugin, when it would come from the
    GPU Operator whose generated values disable it (HAMi serves the GPUs)."""
    values = _document_values(files, "gpu-operator-values")
    return (
        row.project == "nvidia-device-plugin"
        and bool(values)
        and not values[0].get("devicePlugin", {}).get("enabled")
    )


def _workload(kind: str, name: str, row: RowFacts, pod_spec: Mapping[str, Any]) -> dict[str, Any]:
    return {
        "apiVersion": "apps/v1",
        "kind": kind,
        "metadata": {
            "name": name,
            "namespace": NAMESPACE,
            "annotations": {"ecomap.io/row": row.ref},
        },
        "spec": {"template": {"spec": {"containers": [], **pod_spec}}},
    }


def _installed(
    facts: DecisionFacts,
    pools: list[Pool],
    files: Sequence[GeneratedFile],
    rows_by_id: Mapping[str, Row],
    signatures: Mapping[str, Mapping[str, Any]],
) -> tuple[dict[str, dict[str, dict[str, Any]]], list[dict[str, Any]]]:
    """Each decided row's objects as its detect signature finds them, keyed by list and name
    (two rows of one chart share its objects), and the Helm releases."""
    lists: dict[str, dict[str, dict[str, Any]]] = {}
    releases: dict[str, dict[str, Any]] = {}
    charted = {
        step.release["project"]: {
            **{k: v for k, v in step.release.items() if k != "project"},
            "status": "deployed",
        }
        for step in install_steps(facts, files)
        if step.release
    }

    def put(key: str, document: dict[str, Any]) -> None:
        lists.setdefault(key, {}).setdefault(document["metadata"]["name"], document)

    def served_by_another(row: RowFacts, signature: Mapping[str, Any]) -> bool:
        # A library (HAMi-core) is found through the DaemonSet that installs it (HAMi's or the
        # Volcano vGPU device plugin): another decided project's workload already stands for it.
        return any(
            _matches(signature, w)
            and w["metadata"]["annotations"]["ecomap.io/row"].split("/")[0] != row.project
            for key in ("daemonsets", "deployments")
            for w in lists.get(key, {}).values()
        )

    # Rows with a chart or resources of their own first, so that a row only found through
    # another's workload (a library) is seen to be installed by it.
    ordered = sorted(
        facts.rows,
        key=lambda r: (
            not any(
                (signatures.get(r.ref) or {}).get(k) for k in ("helm_charts", "extended_resources")
            )
        ),
    )

    def pod_spec_of(row: RowFacts) -> dict[str, Any]:
        return _pod_spec(row, pools, files)

    for row in ordered:
        signature = signatures.get(row.ref) or {}
        if not signature or _turned_off(row, facts, files):
            continue
        if served_by_another(row, signature):
            continue
        installer = _installer(row, signature, facts, signatures)
        if installer is not None:  # e.g. HAMi-core under Koordinator: its hami-daemon
            other, pattern = installer
            put("daemonsets", _workload("DaemonSet", _concrete(pattern), other, pod_spec_of(other)))
            continue
        version = row.version.removeprefix("v") if row.version else "0.0.0"
        by_operator = row.project == "nvidia-device-plugin" and _operator_device_plugin_on(files)
        if row.project in charted:  # install.sh's own release of the project's chart
            release = charted[row.project]
            releases.setdefault(release["name"], release)
        for chart in (
            () if by_operator or row.project in charted else signature.get("helm_charts", ())[:1]
        ):
            name = _concrete(chart)
            releases.setdefault(
                name,
                {
                    "name": name,
                    "namespace": NAMESPACE,
                    "chart": f"{name}-{version}",
                    "app_version": row.version,
                    "status": "deployed",
                },
            )
        pod_spec = _pod_spec(row, pools, files)
        daemonsets = list(signature.get("daemonsets", ()))[:1]
        if by_operator:  # the operator's DaemonSet, as its manifest names it (see above)
            daemonsets = [OPERATOR_DEVICE_PLUGIN_DAEMONSET]
        deployments = list(signature.get("deployments", ()))[:1]
        images = list(signature.get("images", ()))[:1]
        for pattern in daemonsets:
            name = _concrete(pattern)
            if name in lists.get("daemonsets", {}):
                _merge_nodes(lists["daemonsets"][name], pod_spec)
            put("daemonsets", _workload("DaemonSet", name, row, pod_spec))
        for pattern in deployments:
            put("deployments", _workload("Deployment", _concrete(pattern), row, {}))
        if images and not daemonsets and not deployments:
            # Found by its image only: a DaemonSet on the nodes for a node component, else a
            # Deployment, running that image.
            kind = "DaemonSet" if row.layer == "data_plane" else "Deployment"
            name = _concrete(images[0].rpartition("/")[2])
            document = _workload(kind, name, row, pod_spec if kind == "DaemonSet" else {})
            document["spec"]["template"]["spec"]["containers"] = [
                {"name": name, "image": f"{images[0]}:{row.version or 'latest'}"}
            ]
            put("daemonsets" if kind == "DaemonSet" else "deployments", document)
        for pattern in signature.get("webhooks", ())[:1]:
            put(
                "mutatingwebhookconfigurations",
                {
                    "apiVersion": "admissionregistration.k8s.io/v1",
                    "kind": "MutatingWebhookConfiguration",
                    "metadata": {"name": _concrete(pattern)},
                },
            )
        for crd in _crds(rows_by_id.get(row.ref), signature):
            put("crds", crd)
        for name in row.device_classes:  # the DeviceClasses its chart installs (row provides)
            put(
                "deviceclasses",
                {
                    "apiVersion": "resource.k8s.io/v1",
                    "kind": "DeviceClass",
                    "metadata": {"name": name},
                },
            )
        for driver in signature.get("dra_drivers", ()):
            for pool in pools:
                if pool.name not in _where(row, pools):
                    continue
                for index in range(pool.size.nodes):
                    node = f"{pool.name}-{index + 1}"
                    put(
                        "resourceslices",
                        {
                            "apiVersion": "resource.k8s.io/v1",
                            "kind": "ResourceSlice",
                            "metadata": {"name": f"{node}-{driver}"},
                            "spec": {"driver": driver, "nodeName": node},
                        },
                    )
    return lists, list(releases.values())


def _installer(
    row: RowFacts,
    signature: Mapping[str, Any],
    facts: DecisionFacts,
    signatures: Mapping[str, Mapping[str, Any]],
) -> tuple[RowFacts, str] | None:
    """Another decided project's row whose signature names one of this row's DaemonSets: the
    row (a library) is installed by that project's DaemonSet, not one of its own."""
    for pattern in signature.get("daemonsets", ()):
        for other in facts.rows:
            if other.project == row.project:
                continue
            if pattern in (signatures.get(other.ref) or {}).get("daemonsets", ()):
                return other, pattern
    return None


def _crds(row: Row | None, signature: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The CRDs a row installs: each `crd:<group>/<version>/<Kind>` it provides, named as its
    signature names it (`<plural>.<group>`) where the signature lists one of that group."""
    named = list(signature.get("crds", ()))
    provided = sorted(i for i in (row.provides if row else ()) if i.startswith("crd:"))
    found = []
    for ident in provided:
        group, version, kind = ident.removeprefix("crd:").split("/", 2)
        name = next(
            (n for n in named if n.endswith("." + group) and n.startswith(kind.lower())),
            f"{kind.lower()}.{group}",
        )
        found.append(
            {
                "apiVersion": "apiextensions.k8s.io/v1",
                "kind": "CustomResourceDefinition",
                "metadata": {"name": name},
                "spec": {"group": group, "names": {"kind": kind}, "versions": [{"name": version}]},
            }
        )
    known = {c["metadata"]["name"] for c in found}
    for name in named:  # listed by name only: no kind is known for it
        if name not in known:
            group = name.partition(".")[2]
            found.append(
                {
                    "apiVersion": "apiextensions.k8s.io/v1",
                    "kind": "CustomResourceDefinition",
                    "metadata": {"name": name},
                    "spec": {"group": group},
                }
            )
    return found


def snapshot_of(
    facts: DecisionFacts,
    files: Sequence[GeneratedFile],
    rows: Sequence[Row],
    signatures: Mapping[str, Mapping[str, Any]],
) -> dict[str, Any]:
    """The `ecomap.cluster/v1` snapshot of the cluster this configuration would give."""
    pools, _notes = sized_pools(facts)
    rows_by_id = {row.id: row for row in rows}
    lists, releases = _installed(facts, pools, files, rows_by_id, signatures)
    lists["nodes"] = {n["metadata"]["name"]: n for n in _nodes(facts, pools, files)}
    for file in files:
        for doc in file.documents:
            key = SNAPSHOT_LISTS.get(_group_kind(doc.data))
            if key is not None and key != "nodes":
                # a copy: the snapshot is edited as a cluster would be, the file stays as generated
                lists.setdefault(key, {})[doc.data["metadata"]["name"]] = copy.deepcopy(doc.data)
    document: dict[str, Any] = {
        "format": "ecomap.cluster/v1",
        "cluster": f"{facts.name}-round-trip",
        "collector": "EcoMap round trip (a projection of the generated configuration)",
        "helm_releases": releases,
    }
    if facts.profile.kubernetes_version:
        document["kubernetes_version"] = f"v{facts.profile.kubernetes_version.removeprefix('v')}"
    for key in dict.fromkeys(SNAPSHOT_LISTS.values()):
        items = list(lists.get(key, {}).values())
        document[key] = {"apiVersion": "v1", "kind": "List", "items": items}
    return document


def decided_of(facts: DecisionFacts) -> Decided:
    return Decided(
        rows=tuple(row.ref for row in facts.rows),
        pools={name: tuple(refs) for name, refs in facts.pools.items()},
    )


def round_trip(
    facts: DecisionFacts,
    *,
    rows: Sequence[Row],
    signatures: Mapping[str, Mapping[str, Any]],
    files: Sequence[GeneratedFile] | None = None,
    evidence: Mapping[str, Sequence[str]] | None = None,
) -> ClusterReport:
    """The cluster check of the snapshot the decision's generated configuration would give,
    against the decision itself."""
    files = generate(facts) if files is None else files
    snapshot = parse_snapshot(snapshot_of(facts, files, rows, signatures))
    return check_cluster(
        snapshot, rows=rows, signatures=signatures, decision=decided_of(facts), evidence=evidence
    )
