"""Drift: a cluster snapshot against the configuration generated from the decision, listed per
generated file (a ClusterQueue that does not cover a resource or has no quota for it, a node's
MIG configuration or geometry, the device plugin's MIG strategy and replicas, pool labels and
taints). Plain Python: generated files and a parsed snapshot in, (path, message, severity) out.

What a snapshot cannot show (ResourceFlavors, LocalQueues, Helm values: not collected) is said
once per file, never guessed. Labels read at the releases the catalog pins: GFD v0.20.0 writes
`nvidia.com/mig.strategy` (internal/lm/strategy.go#L20-L27), `nvidia.com/gpu.replicas` and
`nvidia.com/gpu.sharing-strategy` (internal/lm/resource.go#L159-L178), and under the single
strategy `nvidia.com/gpu.product` ends in `-MIG-<profile>` (resource.go#L75-L108,
https://github.com/NVIDIA/k8s-device-plugin/blob/v0.20.0/internal/lm/resource.go).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from catalog.engine.cluster.detect import as_list, as_mapping, node_labels, node_resources
from catalog.engine.cluster.report import INFO, WARNING
from catalog.engine.cluster.snapshot import Snapshot
from catalog.engine.text import Text, _
from evaluations.configgen.dra_drift import dra_drift
from evaluations.configgen.generate import MIG_CONFIG_LABEL
from evaluations.configgen.generate_amd import (
    AMD_VALUES_KIND,
    DCM_PATH,
    DEVICE_CONFIGS_PATH,
    PROFILE_LABEL,
)
from evaluations.configgen.model import POOL_LABEL, Drift, GeneratedFile
from evaluations.configgen.queue_drift import (
    cluster_queue_drift,
    kai_queue_drift,
    quantity_value,
    volcano_queue_drift,
)

MIG_STRATEGY_LABEL = "nvidia.com/mig.strategy"
REPLICAS_LABEL = "nvidia.com/gpu.replicas"
SHARING_LABEL = "nvidia.com/gpu.sharing-strategy"
PRODUCT_LABEL = "nvidia.com/gpu.product"
MIG_RESOURCE_PREFIX = "nvidia.com/mig-"
NODES_NAMED = 5  # nodes named in one message before "and N more"
_MIG_PRODUCT = re.compile(r"-MIG-(?P<profile>[^-]+?)(?:-SHARED)?$")
_SHARING = {"timeSlicing": "time-slicing", "mps": "mps"}
# What a snapshot holds nothing of (docs/cluster-snapshot.md: no ConfigMaps, no Helm values, no
# ResourceFlavors or LocalQueues), by file kind or path.
NOT_COLLECTED_TEXT = _("A cluster snapshot does not collect what this file sets: not compared.")
NOT_YET_TEXT = _("EcoMap does not compare this file with a snapshot yet.")
NOT_COLLECTED = frozenset(
    {"hami-values", "gpu-operator-values", "nvidia-device-plugin-values", "kueue-values"}
    | {"workload-example", "volcano-values"}
    | {"kueue/resource-flavors.yaml", "kueue/local-queues.yaml"}
    | {AMD_VALUES_KIND, DEVICE_CONFIGS_PATH}  # DeviceConfigs are not collected either
)


def config_drift(files: Sequence[GeneratedFile], snapshot: Snapshot) -> list[Drift]:
    """Every difference between the snapshot and the generated files, in the files' order."""
    members = _pool_members(files, snapshot)
    found: list[Drift] = []
    for file in files:
        if file.kind == "node-pool":
            found += _node_pool_drift(file, members)
        elif file.kind == "device-plugin-config":
            found += _device_plugin_drift(file, members)
        elif file.kind == "mig-parted-config":
            found += _mig_geometry_drift(file, files, members)
        elif file.path == DCM_PATH:
            found += _amd_partition_drift(file, files, members)
        elif file.path == "kueue/cluster-queues.yaml":
            found += cluster_queue_drift(file, snapshot)
        elif file.path == "volcano/queues.yaml":
            found += volcano_queue_drift(file, snapshot)
        elif file.path == "kai-scheduler/queues.yaml":
            found += kai_queue_drift(file, snapshot)
        elif file.kind == "dra":
            found += dra_drift(file, snapshot, members)
        elif file.kind in NOT_COLLECTED or file.path in NOT_COLLECTED:
            found.append(Drift(file.path, NOT_COLLECTED_TEXT, INFO, compared=False))
        else:  # a newer kind of file than this comparison knows
            found.append(Drift(file.path, NOT_YET_TEXT, INFO, compared=False))
    return found


# ---- which nodes a generated pool is ------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Members:
    nodes: tuple[Mapping[str, Any], ...]
    by_label: bool  # found by EcoMap's pool label (else: every GPU node, one pool only)


def _pool_members(files: Sequence[GeneratedFile], snapshot: Snapshot) -> dict[str, _Members]:
    """Each generated pool's nodes: those labelled with it; a single pool that no node is
    labelled with yet is compared with every node that advertises an NVIDIA resource."""
    pools = [str(f.documents[0].data.get("pool")) for f in files if f.kind == "node-pool"]
    nodes = snapshot.items("nodes")
    members = {
        pool: _Members(
            tuple(n for n in nodes if node_labels(n).get(POOL_LABEL) == pool), by_label=True
        )
        for pool in pools
    }
    if len(pools) == 1 and not members[pools[0]].nodes:
        gpu_nodes = tuple(
            n for n in nodes if any(r.startswith("nvidia.com/") for r in node_resources(n))
        )
        members[pools[0]] = _Members(gpu_nodes, by_label=False)
    return members


def _names(nodes: Sequence[str]) -> Text:
    """`node a` or `nodes a, b, c, d, e (+3)`, in the reader's language."""
    shown = ", ".join(nodes[:NODES_NAMED])
    shown += f" (+{len(nodes) - NODES_NAMED})" if len(nodes) > NODES_NAMED else ""
    return (
        _("node %(names)s", names=shown) if len(nodes) == 1 else _("nodes %(names)s", names=shown)
    )


def _grouped(path: str, severity: str, findings: dict[tuple, list[str]], say) -> list[Drift]:
    """One item per kind of difference, naming its nodes (a thousand nodes, one line)."""
    return [Drift(path, say(key, _names(nodes)), severity) for key, nodes in findings.items()]


# ---- nodes/<pool>.yaml ---------------------------------------------------------------------------


def _node_pool_drift(file: GeneratedFile, members: Mapping[str, _Members]) -> list[Drift]:
    data = file.documents[0].data
    pool = str(data.get("pool"))
    found = members.get(pool, _Members((), True))
    if not found.nodes:
        message = _(
            "No node carries %(label)s=%(pool)s: the pool's labels and taints are not applied.",
            label=POOL_LABEL,
            pool=pool,
        )
        return [Drift(file.path, message, WARNING)]
    items = []
    if not found.by_label:
        items.append(
            Drift(
                file.path,
                _(
                    "No node carries %(label)s=%(pool)s yet: compared with the cluster's "
                    "%(count)s GPU nodes.",
                    label=POOL_LABEL,
                    pool=pool,
                    count=len(found.nodes),
                ),
                INFO,
            )
        )
    elif len(found.nodes) != data.get("nodes"):
        items.append(
            Drift(
                file.path,
                _(
                    "%(count)s nodes carry %(label)s=%(pool)s; the configuration was generated "
                    "for %(generated)s.",
                    count=len(found.nodes),
                    label=POOL_LABEL,
                    pool=pool,
                    generated=data.get("nodes"),
                ),
                WARNING,
            )
        )
    wanted = {k: str(v) for k, v in as_mapping(data.get("labels")).items()}
    if not found.by_label:
        wanted.pop(POOL_LABEL, None)  # said once above
    mig_names = [
        str(as_mapping(group.get("labels")).get(MIG_CONFIG_LABEL))
        for group in as_list(data.get("mig_configs"))
    ]
    if mig_names:
        wanted[MIG_CONFIG_LABEL] = " | ".join(mig_names)
    missing: dict[tuple, list[str]] = {}
    different: dict[tuple, list[str]] = {}
    untainted: dict[tuple, list[str]] = {}
    for node in found.nodes:
        labels, name = node_labels(node), str(as_mapping(node.get("metadata")).get("name"))
        for key, value in wanted.items():
            have = labels.get(key)
            allowed = mig_names if key == MIG_CONFIG_LABEL else [value]
            if have is None:
                missing.setdefault((key, value), []).append(name)
            elif have not in allowed:
                different.setdefault((key, have, value), []).append(name)
        taints = as_list(as_mapping(node.get("spec")).get("taints"))
        for taint in as_list(data.get("taints")):
            if not any(_same_taint(taint, t) for t in taints):
                shown = f"{taint['key']}={taint['value']}:{taint['effect']}"
                untainted.setdefault((shown,), []).append(name)
    items += _grouped(
        file.path,
        WARNING,
        missing,
        lambda key, nodes: _(
            "Label %(label)s=%(generated)s is missing on %(nodes)s.",
            nodes=nodes,
            label=key[0],
            generated=key[1],
        ),
    )
    items += _grouped(
        file.path,
        WARNING,
        different,
        lambda key, nodes: _(
            "%(label)s is %(cluster)s on %(nodes)s; generated %(generated)s.",
            nodes=nodes,
            label=key[0],
            cluster=key[1],
            generated=key[2],
        ),
    )
    items += _grouped(
        file.path,
        WARNING,
        untainted,
        lambda key, nodes: _("Taint %(taint)s is missing on %(nodes)s.", nodes=nodes, taint=key[0]),
    )
    return items


def _same_taint(wanted: Mapping[str, Any], have: Any) -> bool:
    have = as_mapping(have)
    return all(str(have.get(k, "")) == str(wanted.get(k, "")) for k in ("key", "value", "effect"))


# ---- nvidia-device-plugin/<pool>.yaml ------------------------------------------------------------


def _device_plugin_drift(file: GeneratedFile, members: Mapping[str, _Members]) -> list[Drift]:
    data = file.documents[0].data
    pool = file.path.rsplit("/", 1)[-1].removesuffix(".yaml")
    strategy = str(as_mapping(data.get("flags")).get("migStrategy", "none"))
    sharing = as_mapping(data.get("sharing"))
    mode = next((_SHARING[k] for k in _SHARING if k in sharing), "none")
    resources = as_list(as_mapping(sharing.get(next(iter(sharing), ""))).get("resources"))
    replicas = str(as_mapping(resources[0]).get("replicas", 1)) if resources else "1"
    differences: dict[tuple, list[str]] = {}
    for node in members.get(pool, _Members((), True)).nodes:
        labels, name = node_labels(node), str(as_mapping(node.get("metadata")).get("name"))
        if SHARING_LABEL not in labels:
            continue  # no GPU feature discovery labels: nothing to compare with
        # GFD writes no strategy label for migStrategy none (internal/lm/strategy.go#L21-L23).
        have = labels.get(MIG_STRATEGY_LABEL, "none")
        if have != strategy:
            differences.setdefault(("migStrategy", MIG_STRATEGY_LABEL, have, strategy), []).append(
                name
            )
        if labels[SHARING_LABEL] != mode:
            differences.setdefault(
                ("sharing", SHARING_LABEL, labels[SHARING_LABEL], mode), []
            ).append(name)
        elif mode != "none" and labels.get(REPLICAS_LABEL, replicas) != replicas:
            differences.setdefault(
                ("replicas", REPLICAS_LABEL, labels[REPLICAS_LABEL], replicas), []
            ).append(name)
    return _grouped(
        file.path,
        WARNING,
        differences,
        lambda key, nodes: _(
            "%(setting)s differs on %(nodes)s: %(label)s is %(cluster)s, generated %(generated)s.",
            nodes=nodes,
            setting=key[0],
            label=key[1],
            cluster=key[2],
            generated=key[3],
        ),
    )


# ---- mig-parted/config.yaml ----------------------------------------------------------------------


def _mig_geometry_drift(
    file: GeneratedFile, files: Sequence[GeneratedFile], members: Mapping[str, _Members]
) -> list[Drift]:
    """Each node of a MIG pool whose MIG configuration is one of the generated layouts: the MIG
    devices it advertises against that layout per GPU (the label itself is the node file's)."""
    configs = as_mapping(file.documents[0].data.get("mig-configs"))
    differences: dict[tuple, list[str]] = {}
    for node_file in files:
        if node_file.kind != "node-pool" or not node_file.documents[0].data.get("mig_configs"):
            continue
        pool = str(node_file.documents[0].data.get("pool"))
        for node in members.get(pool, _Members((), True)).nodes:
            labels, name = node_labels(node), str(as_mapping(node.get("metadata")).get("name"))
            config = labels.get(MIG_CONFIG_LABEL, "")
            if config not in configs and len(pool_configs := _pool_configs(node_file)) == 1:
                config = pool_configs[0]  # another layout's name: measured against the pool's
            layout = _layout(configs.get(config))
            if not layout:
                continue  # MIG disabled on purpose, or several layouts: the label is said
            have = _advertised_geometry(node)
            if have is None or not _same_geometry(have, layout):
                shown = _shown(have) if have else _("whole GPUs")
                differences.setdefault((config, shown, _shown(layout)), []).append(name)
    return _grouped(
        file.path,
        WARNING,
        differences,
        lambda key, nodes: _(
            "MIG devices on %(nodes)s: %(cluster)s; MIG configuration %(config)s gives "
            "%(generated)s per GPU.",
            nodes=nodes,
            config=key[0],
            cluster=key[1],
            generated=key[2],
        ),
    )


# ---- amd-gpu-operator/dcm-config.yaml -----------------------------------------------------------


def _amd_partition_drift(
    file: GeneratedFile, files: Sequence[GeneratedFile], members: Mapping[str, _Members]
) -> list[Drift]:
    """Each node of a partitioned pool advertises its DCM profile's partitions under the name the
    device plugin's mixed strategy gives them, amd.com/<compute>_<memory> (k8s-device-plugin
    v1.31.0.10 docs/user-guide/configuration.md#L183-L199); amd.com/gpu instead means unpartitioned
    GPUs or the single strategy. The profile label itself is the node file's."""
    data = as_mapping(file.documents[0].data.get("data"))
    try:
        profiles = as_mapping(
            json.loads(str(data.get("config.json", ""))).get("gpu-config-profiles")
        )
    except ValueError:
        return []
    differences: dict[tuple, list[str]] = {}
    for node_file in files:
        labels = (
            as_mapping(node_file.documents[0].data.get("labels")) if node_file.documents else {}
        )
        if node_file.kind != "node-pool" or PROFILE_LABEL not in labels:
            continue
        profile = str(labels[PROFILE_LABEL])
        wanted = sorted(
            f"amd.com/{str(e.get('computePartition')).lower()}_{str(e.get('memoryPartition')).lower()}"
            for e in map(as_mapping, as_list(as_mapping(profiles.get(profile)).get("profiles")))
        )
        pool = str(node_file.documents[0].data.get("pool"))
        for node in members.get(pool, _Members((), True)).nodes:
            resources = node_resources(node)
            if all(name in resources for name in wanted):
                continue
            have = ", ".join(
                f"{k}: {v}" for k, v in sorted(resources.items()) if k.startswith("amd.com/")
            )
            name = str(as_mapping(node.get("metadata")).get("name"))
            differences.setdefault((profile, have or "-", ", ".join(wanted)), []).append(name)
    return _grouped(
        file.path,
        WARNING,
        differences,
        lambda key, nodes: _(
            "AMD resources on %(nodes)s: %(cluster)s; DCM profile %(profile)s gives "
            "%(generated)s (the device plugin's mixed naming strategy).",
            nodes=nodes,
            profile=key[0],
            cluster=key[1],
            generated=key[2],
        ),
    )


def _pool_configs(node_file: GeneratedFile) -> list[str]:
    groups = as_list(node_file.documents[0].data.get("mig_configs"))
    return [str(as_mapping(g.get("labels")).get(MIG_CONFIG_LABEL)) for g in groups]


def _layout(entries: Any) -> dict[str, int]:
    layout: dict[str, int] = {}
    for entry in as_list(entries):
        for profile, count in as_mapping(as_mapping(entry).get("mig-devices")).items():
            layout[str(profile)] = layout.get(str(profile), 0) + int(count)
    return layout


def _advertised_geometry(node: Mapping[str, Any]) -> dict[str, int] | None:
    """MIG devices by profile: `nvidia.com/mig-<profile>` resources (mixed strategy), or the
    profile in the product label with `nvidia.com/gpu` (single); None for whole GPUs."""
    resources = node_resources(node)
    mixed = {
        name.removeprefix(MIG_RESOURCE_PREFIX): _count(quantity)
        for name, quantity in resources.items()
        if name.startswith(MIG_RESOURCE_PREFIX) and not name.endswith(".shared")
    }
    if mixed:
        return mixed
    match = _MIG_PRODUCT.search(node_labels(node).get(PRODUCT_LABEL, ""))
    if match and "nvidia.com/gpu" in resources:
        return {match["profile"]: _count(resources["nvidia.com/gpu"])}
    return None


def _same_geometry(have: Mapping[str, int], layout: Mapping[str, int]) -> bool:
    """The same profiles in the same proportion: `have` is the layout times the node's GPUs."""
    if set(have) != set(layout):
        return False
    ratios = {Fraction(have[p], layout[p]) for p in layout if layout[p]}
    return len(ratios) == 1 and next(iter(ratios)).denominator == 1


def _shown(geometry: Mapping[str, int]) -> str:
    return ", ".join(f"{profile} x{count}" for profile, count in sorted(geometry.items()))


def _count(quantity: Any) -> int:
    value = quantity_value(quantity)
    return int(value) if value is not None else 0
