"""Capacity sizing of a recommended stack (issue 29 item 3): from step 1's GPU model, nodes,
tenants and workload mix, each pool of the stack gets its nodes, its MIG geometry per node (MIG
pools) and per-tenant quotas that sum to its GPUs. `capacity/outcome.py` then replays the mix on
the sized pools with the capacity engine.

Plain Python: a recommendation comes in as its dict (`Recommendation.to_dict()`), the profile as
`catalog.engine.profile.Profile`. Every rule here is written out in docs/capacity-sizing.md.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from catalog.engine.fleet import NodeGroup
from catalog.engine.gpus import GpuModel, gpu_model_find
from catalog.engine.profile import Profile
from catalog.engine.text import Text, _
from catalog.engine.workload_mix import MixEntry, default_mix
from evaluations.capacity.engine.shapes import SLOT_UNITS
from evaluations.capacity.mig_geometry import (  # noqa: F401 (re-exported)
    GEOMETRY_NODES,
    mig_geometry,
    mig_layouts,
    mig_profile_for,
    mig_request,
)
from evaluations.capacity.shares import at_least_one, largest_remainder  # noqa: F401

# Tenants whose quotas and partitions are sized; more is refused, not attempted (a pool of one
# tenant each is replayed once per tenant).
MAX_TENANTS = 256

# An HGX / DGX board: the node most GPU clusters are built of, when step 1 does not say.
DEFAULT_GPUS_PER_NODE = 8

# The unit a pool is replayed under when it presents several: MIG's fixed geometry decides a
# pool it is in; then the finest sharing unit. vGPU is replayed as a memory + compute quota (a
# fraction of one GPU), a DRA claim as a whole device (partitionable devices are not modelled),
# and an AMD partition as a whole GPU for now (its CPX/NPS layouts are not modelled; the pool
# says so).
UNIT_ORDER = (
    "mig_slice",
    "amd_partition",
    "memory_compute_quota",
    "vgpu",
    "mps_share",
    "time_slice",
    "dra_claim",
    "whole_gpu",
)
ENGINE_UNIT = {
    "vgpu": "memory_compute_quota",
    "dra_claim": "whole_gpu",
    "none": "whole_gpu",
}
# Time-slicing and MPS replicas per GPU: the NVIDIA device plugin's documented example (4).
REPLICAS = 4

# The placement helper of a stack, by project, as the simulator's nearest policy: each of these
# scores nodes by binpacking by default, which best-fit is. A stack without one is replayed with
# best-fit too, and the page says so.
PLACEMENT_POLICIES: dict[str, Text] = {
    "hami": _("HAMi's scheduler binpacks nodes by default"),
    "volcano": _("Volcano's binpack plugin"),
    "kai-scheduler": _("KAI Scheduler binpacks by default"),
    "gpushare-scheduler-extender": _("the GPU share scheduler extender binpacks"),
    "koordinator": _("Koordinator's device share scheduling binpacks"),
}
DEFAULT_POLICY = "bestfit"


@dataclass(frozen=True, slots=True)
class Cluster:
    """What step 1 says the GPUs are."""

    model: GpuModel | None
    model_text: str | None
    nodes: int
    gpus_per_node: int
    tenants: int

    @property
    def gpus(self) -> int:
        return self.nodes * self.gpus_per_node

    @property
    def model_name(self) -> str:
        """How the engine's nodes name the model: its key, or the text step 1 holds."""
        return self.model.key if self.model is not None else (self.model_text or "gpu")


@dataclass(slots=True)
class PoolSize:
    """One pool, sized."""

    name: str
    label: str  # an engine sentence (Text) when the recommendation gives one
    workloads: tuple[str, ...]
    units: tuple[str, ...]
    unit: str  # the unit the replay uses (UNIT_ORDER, ENGINE_UNIT)
    tenant_sharing: str
    nodes: int = 0
    gpus: int = 0
    # (nodes, one GPU's MIG profiles) per group of nodes with the same layout; MIG pools only.
    mig_geometry: list[tuple[int, tuple[str, ...]]] | None = None
    # tenant name -> GPUs; nominal shares of the pool, or each tenant's own nodes
    quotas: dict[str, int] = field(default_factory=dict)
    # True: each tenant has nodes of its own (a pool per tenant); False: tenants share the pool.
    per_tenant_nodes: bool = False
    # The node group the pool lives on (step 1's node_groups) and its shape; None: step 1's
    # cluster as a whole.
    group: str | None = None
    cluster: Cluster | None = None
    # Slots per GPU under a slot unit: time-slicing / MPS replicas, or AMD partitions per GPU.
    replicas: int = REPLICAS
    # True: nodes are too coarse for a node per tenant, so each tenant has GPUs of its own
    # instead (tenants share nodes, never a GPU); `quotas` are those GPUs.
    carved: bool = False
    entries: list[MixEntry] = field(default_factory=list)
    # What a replay runs on: (tenant, or None for all tenants, each node's MIG layout or None).
    partitions: list[tuple[str | None, list[tuple[str, ...] | None]]] = field(default_factory=list)
    notes: list[Text] = field(default_factory=list)

    def on(self, cluster: Cluster) -> Cluster:
        """The nodes the pool is sized on: its node group's, else step 1's cluster."""
        return self.cluster or cluster

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "node_group": self.group,
            "gpu_model": None
            if self.cluster is None
            else (self.cluster.model.name if self.cluster.model else self.cluster.model_text),
            "gpus_per_node": None if self.cluster is None else self.cluster.gpus_per_node,
            "label": self.label,
            "workloads": list(self.workloads),
            "units": list(self.units),
            "unit": self.unit,
            "replicas": self.replicas if self.unit in SLOT_UNITS else None,
            "tenant_sharing": self.tenant_sharing,
            "nodes": self.nodes,
            "gpus": self.gpus,
            "mig_geometry": None
            if self.mig_geometry is None
            else [{"nodes": n, "layout": list(layout)} for n, layout in self.mig_geometry],
            "quotas": dict(self.quotas),
            "per_tenant_nodes": self.per_tenant_nodes,
            "carved": self.carved,
            "notes": list(self.notes),
        }


def tenant_names(count: int) -> list[str]:
    return [f"tenant-{number}" for number in range(1, count + 1)]


def cluster_of(profile: Profile) -> Cluster:
    """The cluster step 1 describes; ValueError when it does not say enough to size. With node
    groups of different shapes (an A100 and an L4 group) there is no one model: each pool is
    sized on its own group (size_pools), the cluster stands for all their nodes."""
    if (profile.tenant_count or 1) > MAX_TENANTS:
        raise ValueError(_("Capacity sizing covers at most %(count)s tenants.", count=MAX_TENANTS))
    groups = profile.node_groups
    if not profile.node_count and groups and all(group.nodes for group in groups):
        shapes = {group.gpus_per_node for group in groups}
        return Cluster(
            model=gpu_model_find(profile.gpu_model),
            model_text=profile.gpu_model,
            nodes=sum(group.nodes or 0 for group in groups),
            gpus_per_node=shapes.pop() if len(shapes) == 1 and None not in shapes
            else DEFAULT_GPUS_PER_NODE,
            tenants=profile.tenant_count or 1,
        )  # fmt: skip
    if not profile.node_count:
        raise ValueError(_("Say how many GPU nodes there are in step 1 to size the pools."))
    return Cluster(
        model=gpu_model_find(profile.gpu_model),
        model_text=profile.gpu_model,
        nodes=profile.node_count,
        gpus_per_node=profile.gpus_per_node or DEFAULT_GPUS_PER_NODE,
        tenants=profile.tenant_count or 1,
    )


def mix_of(profile: Profile) -> tuple[tuple[MixEntry, ...], str]:
    """The mix to size for, and where it comes from: the workload mix step 1 gives
    ("profile"), else the named tenants' absolute demand ("demand": 12 always-on replicas of
    one GPU weigh 12 GPUs, not a share of a default mix), else a default per workload type."""
    if profile.workload_mix:
        return profile.workload_mix, "profile"
    demanded = mix_from_demand(profile)
    if demanded:
        return demanded, "demand"
    return default_mix(profile.workload_types), "default"


def mix_from_demand(profile: Profile) -> tuple[MixEntry, ...]:
    """One mix entry per demand line of each named tenant (tenant-1 … in step 1's order): its
    replicas (or its GPUs, one task each) of gpus_per_replica whole GPUs, or of the named MIG
    profile (its compute share and memory, from the GPU facts of a model that has it). Always-on
    and window demand both count: the sizing is for the peak."""
    entries = []
    for number, tenant in enumerate(profile.tenants, start=1):
        for item in tenant.demand:
            if item.mig_profile is not None:
                found = _mig_share(item.mig_profile)
                if found is None:
                    continue  # a profile no GPU fact has: step 1 says so already
                milli, memory = found
                entries.append(
                    MixEntry(item.workload, item.replicas or 1, gpu_milli=milli,
                             memory_gb=memory, tenant=number)
                )  # fmt: skip
            elif item.replicas is not None:
                per = item.gpus_per_replica or 1
                entries.append(MixEntry(item.workload, item.replicas, gpus=per, tenant=number))
            elif item.gpus:
                entries.append(MixEntry(item.workload, item.gpus, tenant=number))
    return tuple(entries)


def _mig_share(name: str) -> tuple[int, float] | None:
    """A MIG profile's share of its GPU (milli, by compute slices) and memory, from the first
    GPU model of the facts that has it."""
    from catalog.engine.gpus import gpu_models

    for model in gpu_models():
        for profile in model.mig_profiles:
            if profile.name == name:
                slices = max(p.compute_slices for p in model.mig_profiles)
                return round(profile.compute_slices * 1000 / slices), profile.memory_gb
    return None


def stack_policy(rows: Iterable[str]) -> tuple[str, Text]:
    """The simulator policy a stack's placement maps to, and why."""
    for ref in rows:
        project = ref.split("/", 1)[0]
        if project in PLACEMENT_POLICIES:
            return DEFAULT_POLICY, _(
                "best-fit: %(reason)s, which best-fit is", reason=PLACEMENT_POLICIES[project]
            )
    return DEFAULT_POLICY, _(
        "best-fit: no placement helper of this stack maps to one of the simulator's policies"
    )


def amd_partitions_per_gpu(model: GpuModel | None) -> int:
    """Logical GPUs per GPU in the finest documented partition mode of an AMD Instinct model
    (CPX: 8 on an MI300X, AMD's partitioning matrix in the GPU facts); 0 when none is given."""
    if model is None:
        return 0
    counts = [
        model.amd_partitions_per_gpu(compute) or 0 for compute, _memory in model.amd_combinations
    ]
    return max(counts, default=0)


def _replay_unit(units: Iterable[str]) -> str:
    present = set(units)
    chosen = next((unit for unit in UNIT_ORDER if unit in present), "whole_gpu")
    return ENGINE_UNIT.get(chosen, chosen)


def _entry_weight(entry: MixEntry) -> float:
    return entry.gpu_demand


def tenant_entries(entries: Sequence[MixEntry], number: int, tenants: int) -> list[MixEntry]:
    """Tenant `number`'s entries: its own, and its share of those spread over every tenant."""
    own = []
    for entry in entries:
        if entry.tenant == number:
            own.append(entry)
        elif entry.tenant is None:
            share = entry.tasks / tenants
            if share >= 0.5:
                own.append(replace(entry, tasks=max(1, round(share)), tenant=number))
    return own


def _tenant_weights(entries: Sequence[MixEntry], tenants: list[str]) -> list[float]:
    """GPU demand per tenant: an entry without a tenant is spread evenly over all."""
    weights = dict.fromkeys(tenants, 0.0)
    for entry in entries:
        if entry.tenant is None:
            for name in tenants:
                weights[name] += entry.gpu_demand / len(tenants)
        elif 1 <= entry.tenant <= len(tenants):
            weights[tenants[entry.tenant - 1]] += entry.gpu_demand
    return [weights[name] for name in tenants]


# ---- a stack's pools ---------------------------------------------------------------------------


def size_pools(
    recommendation: Mapping[str, Any],
    cluster: Cluster,
    mix: Sequence[MixEntry],
    groups: Sequence[NodeGroup] = (),
) -> list[PoolSize]:
    """The pools of one recommended stack, sized: each entry of the mix goes to the first pool
    serving its workload type (and, when it names GPU models, on nodes of one of them; else to
    the first pool), nodes to pools in proportion to the GPUs their work asks (at least one each
    while nodes last) — with node groups (step 1, profile v2), each pool on the group the
    recommendation places it on, sharing that group's nodes with the pools on it — quotas to
    tenants in proportion to theirs; a pool of one tenant each (`within_tenant`) gives each
    tenant whole nodes."""
    details = recommendation.get("pool_details") or {}
    names = list(recommendation.get("pools") or details) or ["shared"]
    tenants = tenant_names(cluster.tenants)
    by_name = {group.name: group for group in groups} if len(groups) > 1 else {}
    pools = []
    for name in names:
        pool = details.get(name, {})
        units = tuple(pool.get("units") or ("whole_gpu",))
        size = PoolSize(
            name=name,
            label=pool.get("label") or name,
            workloads=tuple(pool.get("workloads") or ()),
            units=units,
            unit=_replay_unit(units),
            tenant_sharing=pool.get("tenant_sharing") or "across_tenants",
        )
        group = by_name.get(pool.get("node_group") or "")
        if group is not None:
            size.group = group.name
            size.cluster = replace(
                cluster,
                model=group.model,
                model_text=group.gpu_model,
                nodes=group.nodes or 0,
                gpus_per_node=group.gpus_per_node or DEFAULT_GPUS_PER_NODE,
            )
        if size.unit == "amd_partition":
            per_gpu = amd_partitions_per_gpu(size.on(cluster).model)
            if per_gpu:
                size.replicas = per_gpu
            else:
                size.unit = "whole_gpu"
                size.notes.append(
                    _(
                        "AMD partitions need an Instinct GPU model whose partition modes EcoMap's "
                        "GPU facts give; step 1's is not one: replayed as whole GPUs"
                    )
                )
        pools.append(size)
    for entry in mix:
        serving = [p for p in pools if entry.workload in p.workloads]
        home = next((p for p in serving if _runs_on(entry, p.on(cluster))), None)
        home = home or next(iter(serving), None)
        if home is None:
            home = pools[0]
            note = _(
                "%(workload)s work is served by no pool of this stack: replayed on this pool",
                workload=_(entry.workload),
            )
            if note not in home.notes:
                home.notes.append(note)
        home.entries.append(entry)
    nodes = _nodes_per_pool(pools, cluster)
    for turn, (pool, count) in enumerate(zip(pools, nodes, strict=True)):
        where = pool.on(cluster)
        pool.nodes, pool.gpus = count, count * where.gpus_per_node
        if not count:
            pool.notes.append(_("no GPU node is left for this pool: step 1 names too few nodes"))
        elif not pool.entries:
            pool.notes.append(
                _("no work of the mix goes to this pool: its nodes stay idle in the replay")
            )
        weights = _tenant_weights(pool.entries, tenants)
        pool.per_tenant_nodes = pool.tenant_sharing == "within_tenant" and len(tenants) > 1
        if pool.per_tenant_nodes:
            own = largest_remainder(count, weights)
            pool.quotas = {t: n * where.gpus_per_node for t, n in zip(tenants, own, strict=True)}
            short = [t for t, n, w in zip(tenants, own, weights, strict=True) if not n and w > 0]
            if short and count:
                _carve(pool, tenants, weights, short)
        else:
            pool.quotas = _shared_quotas(pool, tenants, weights, turn)
        if pool.unit == "mig_slice" and (where.model is None or not where.model.has_mig):
            pool.notes.append(
                _(
                    "no MIG geometry: step 1's GPU model has no MIG in EcoMap's GPU facts; "
                    "replayed as whole GPUs"
                )
            )
            pool.unit = "whole_gpu"
        _partition(pool, where, tenants)
    return pools


def _runs_on(entry: MixEntry, cluster: Cluster) -> bool:
    """Whether the entry's GPU-type constraint admits the cluster's model (none: any)."""
    return not entry.gpu_types or cluster.model_name in entry.gpu_types


def _nodes_per_pool(pools: list[PoolSize], cluster: Cluster) -> list[int]:
    """Nodes per pool: each node group's nodes (or step 1's, without groups) split between the
    pools on it in proportion to the GPUs their work asks, at least one each while they last."""
    counts = [0] * len(pools)
    places: dict[str | None, list[int]] = {}
    for index, pool in enumerate(pools):
        places.setdefault(pool.group, []).append(index)
    for members in places.values():
        total = pools[members[0]].on(cluster).nodes
        weights = [sum(_entry_weight(e) for e in pools[i].entries) for i in members]
        shares = largest_remainder(total, weights, minimum=1)
        for index, count in zip(members, shares, strict=True):
            counts[index] = count
    return counts


def _shared_quotas(
    pool: PoolSize, tenants: list[str], weights: list[float], turn: int = 0
) -> dict[str, int]:
    """A shared pool's GPUs in proportion to each tenant's work, every tenant with work getting
    at least one while the GPUs last (a small tenant is never rounded down to nothing); those
    left with none, when the pool has fewer GPUs than tenants with work, are named."""
    asking, quotas = _with_work(pool.gpus, tenants, weights, turn)
    left_out = [t for t in asking if not quotas[t]]
    if left_out and pool.gpus:
        pool.notes.append(
            _(
                "%(names)s get no GPU quota: the pool's %(gpus)s GPUs are fewer than its "
                "%(count)s tenants with work; they borrow idle quota where their sharing rule "
                "allows, or add at least %(more)s GPUs",
                names=_names(left_out),
                gpus=pool.gpus,
                count=len(asking),
                more=len(left_out),
            )
        )
    return quotas


def _with_work(
    gpus: int, tenants: list[str], weights: list[float], turn: int = 0
) -> tuple[list[str], dict[str, int]]:
    """The tenants with work, and every tenant's GPUs: those with work in proportion to it, at
    least one while the GPUs last (at_least_one), the others none."""
    asking = [t for t, w in zip(tenants, weights, strict=True) if w > 0]
    shares = at_least_one(gpus, [w for w in weights if w > 0], rotate=turn) if asking else []
    return asking, dict.fromkeys(tenants, 0) | dict(zip(asking, shares, strict=True))


def _names(tenants: list[str]) -> str:
    """Tenants named in a note: the first eight, then an ellipsis."""
    return ", ".join(tenants[:8]) + (" …" if len(tenants) > 8 else "")


def _carve(pool: PoolSize, tenants: list[str], weights: list[float], short: list[str]) -> None:
    """Nodes too coarse for a node per tenant: each tenant with work gets GPUs of its own
    instead, at least one while the pool's GPUs last, the rest in proportion to its work;
    tenants share nodes, never a GPU. Tenants still left with none are named, with what would
    give them some."""
    asking, pool.quotas = _with_work(pool.gpus, tenants, weights)
    pool.carved = True
    pool.notes.append(
        _(
            "%(nodes)s nodes for %(tenants)s tenants with work: each tenant gets GPUs of its own "
            "instead of nodes (%(count)s would have had none), sharing nodes but never a GPU",
            nodes=pool.nodes,
            tenants=len(asking),
            count=len(short),
        )
    )
    left_out = [t for t in asking if not pool.quotas[t]]
    if left_out:
        pool.notes.append(
            _(
                "%(names)s get no GPU: the pool's %(gpus)s GPUs are fewer than its %(count)s "
                "tenants with work; add at least %(more)s GPUs, or let them share a pool across "
                "tenants where their sharing rule allows",
                names=_names(left_out),
                gpus=pool.gpus,
                count=len(asking),
                more=len(left_out),
            )
        )


def _partition(pool: PoolSize, cluster: Cluster, tenants: list[str]) -> None:
    """The pool's partitions (one, or one per tenant) and, for MIG, each node's layout."""
    if pool.carved:  # a tenant's GPUs fill whole nodes, the last node partly (replay: outcome)
        parts = [
            (name, -(-pool.quotas[name] // cluster.gpus_per_node),
             tenant_entries(pool.entries, number, len(tenants)))
            for number, name in enumerate(tenants, start=1)
        ]  # fmt: skip
    elif pool.per_tenant_nodes:
        parts = [
            (name, pool.quotas[name] // cluster.gpus_per_node,
             tenant_entries(pool.entries, number, len(tenants)))
            for number, name in enumerate(tenants, start=1)
        ]  # fmt: skip
    else:
        parts = [(None, pool.nodes, list(pool.entries))]
    groups: Counter[tuple[str, ...]] = Counter()
    for tenant, nodes, entries in parts:
        if not nodes:
            continue
        layouts: list[tuple[str, ...] | None] = [None] * nodes
        if pool.unit == "mig_slice" and cluster.model is not None:
            geometry = mig_geometry(cluster.model, entries, nodes, cluster.gpus_per_node)
            layouts = [layout for count, layout in geometry for _node in range(count)]
            for count, layout in geometry:
                groups[layout] += count
        pool.partitions.append((tenant, layouts))
    if pool.unit == "mig_slice":
        pool.mig_geometry = [
            (count, layout)
            for layout, count in sorted(groups.items(), key=lambda item: (-item[1], item[0]))
        ]
