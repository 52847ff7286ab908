"""The decision's pools, each sized by the capacity sizing (evaluations/capacity/sizing.py): its
nodes, GPUs, MIG geometry and per-tenant GPU quotas; and each advertised resource's capacity."""

from __future__ import annotations

from collections import Counter
from dataclasses import replace

from catalog.engine.fleet import NodeGroup
from catalog.engine.gpus import gpu_model_find
from catalog.engine.profile import WORKLOAD_TYPES
from catalog.engine.text import _
from evaluations.capacity.sizing import (
    DEFAULT_GPUS_PER_NODE,
    MAX_TENANTS,
    REPLICAS,
    Cluster,
    PoolSize,
    cluster_of,
    largest_remainder,
    mig_layouts,
    mix_of,
    size_pools,
    tenant_names,
)
from evaluations.configgen.generate_amd import amd_layout
from evaluations.configgen.model import ConfigRefused, DecisionFacts, Pool
from evaluations.configgen.names import k8s_name

DEFAULT_POOL = "shared"
# HAMi chart v2.10.0 defaults (charts/hami/values.yaml): each GPU shows deviceSplitCount vGPUs as
# nvidia.com/gpu, its memory in MiB times deviceMemoryScaling as nvidia.com/gpumem, and 100 per
# GPU as nvidia.com/gpucores and nvidia.com/gpumem-percentage.
HAMI_SPLIT = 10
HAMI_MEMORY_SCALING = 1
PERCENT = 100
MIB_PER_GB = 1024
UNKNOWN_CAPACITY = "no capacity of this resource follows from the decision: 0 until you set it"
# HAMi's device plugin for Volcano v1.12.0 (volcano-vgpu-device-plugin.yml L33-L35, README.md
# L152-L185): deviceSplitCount 10 vGPUs per GPU as volcano.sh/vgpu-number, the GPU's memory in MiB
# (deviceMemoryScaling 1) as volcano.sh/vgpu-memory, and volcano.sh/vgpu-cores in percent of a GPU.
VOLCANO_VGPU = "volcano-vgpu-device-plugin"
VOLCANO_VGPU_SPLIT = 10
VOLCANO_VGPU_README = (
    "https://github.com/Project-HAMi/volcano-vgpu-device-plugin/blob/v1.12.0/"
    "volcano-vgpu-device-plugin.yml#L33-L35"
)


# Rows that list MIG among their units but whose pool EcoMap sizes without a MIG layout:
# - HAMi's device plugin for Volcano runs HAMi-core by default (its MIG mode is a per-node setting
#   of its own ConfigMap, `operatingmode`, doc/config.md at v1.12.0): sized as vGPUs;
# - the DRA driver's GPU plugin (and its shared claims) hands out existing MIG devices but its
#   claims name the whole-GPU class gpu.nvidia.com (generate_dra.claim_class), which a GPU cut
#   into MIG instances no longer offers: sized as whole GPUs.
UNSLICED = (
    VOLCANO_VGPU,
    "nvidia-dra-driver-gpu/gpu-kubelet-plugin",
    "nvidia-dra-driver-gpu/shared-claims",
)


def _sized_units(row) -> tuple[str, ...]:
    """The units a row's pool is sized by (UNSLICED rows: without MIG)."""
    if row.project in UNSLICED or row.ref in UNSLICED:
        return tuple(unit for unit in row.units if unit != "mig_slice")
    return row.units


def tenants_of(facts: DecisionFacts, count: int) -> list[str]:
    names = list(facts.tenants) if facts.tenants is not None else tenant_names(count)
    for name in names:
        k8s_name(_("tenant"), name)
    if len(set(names)) != len(names):
        raise ConfigRefused(_("two tenants have the same name"))
    return names


def sized_pools(facts: DecisionFacts) -> tuple[list[Pool], list[str]]:
    """The pools (a decision without pools has one, `shared`) and notes on what was assumed."""
    names = list(facts.pools) or [DEFAULT_POOL]
    for name in names:
        k8s_name(_("pool"), name)
    profile = facts.profile
    notes: list[str] = []
    tenant_count = len(facts.tenants) if facts.tenants is not None else profile.tenant_count or 1
    if tenant_count > MAX_TENANTS:
        raise ConfigRefused(
            _("configuration is generated for at most %(most)s tenants", most=MAX_TENANTS)
        )
    groups = pool_groups(facts, names)
    try:
        cluster = cluster_of(profile)
    except ValueError:
        cluster = Cluster(
            model=gpu_model_find(profile.gpu_model),
            model_text=profile.gpu_model,
            nodes=len(names),
            gpus_per_node=profile.gpus_per_node or DEFAULT_GPUS_PER_NODE,
            tenants=tenant_count,
        )
        if not groups:  # with node groups, each pool is sized on its group below
            notes.append(
                "ASSUMED: step 1 does not say how many GPU nodes there are, so each pool is "
                f"sized as one node of {cluster.gpus_per_node} GPUs: set the node count in "
                "step 1 and generate again before applying these quotas"
            )
    cluster = replace(cluster, tenants=tenant_count)
    if not profile.gpus_per_node and not groups:
        notes.append(
            f"step 1 does not say the GPUs per node: {DEFAULT_GPUS_PER_NODE} assumed (the "
            "capacity sizing's default, an HGX board)"
        )
    if cluster.model is None and not groups:
        notes.append(
            f"step 1's GPU model ({profile.gpu_model or 'not said'}) is not in EcoMap's GPU "
            "facts: no MIG geometry, and GPU memory capacities are 0 until it is said"
        )
    tenants = tenants_of(facts, tenant_count)
    mix, _source = mix_of(profile)
    if groups:
        shares, parts = _group_shares(names, groups, cluster)
        notes += [
            f"pool {name} lives on node group {groups[name].name} "
            f"({groups[name].gpu_model or 'GPU model not said'}): {nodes} of its "
            f"{groups[name].nodes or '?'} nodes"
            for name, nodes in zip(names, shares, strict=True)
        ]
    else:
        shares = largest_remainder(cluster.nodes, [1.0] * len(names), minimum=1)
        parts = [cluster] * len(names)
    if len(names) > len({group.name for group in groups.values()} or {""}):
        notes.append(
            "the decision does not say which work runs in which pool: the nodes are split "
            f"evenly between the {len(names)} pools ({', '.join(map(str, shares))})"
        )
    pooled = {ref for refs in facts.pools.values() for ref in refs}
    common = [row for row in facts.rows if row.ref not in pooled]
    pools = []
    for name, nodes, group_cluster in zip(names, shares, parts, strict=True):
        own = [row for ref in facts.pools.get(name, []) if (row := facts.row(ref)) is not None]
        rows = own + common if facts.pools else list(facts.rows)
        units = [u for row in rows if row.layer == "data_plane" for u in _sized_units(row)]
        units = units or [u for row in rows for u in row.units]
        recommendation = {
            "rows": [row.ref for row in rows],
            "pools": [name],
            "pool_details": {
                name: {
                    "units": list(dict.fromkeys(units)),
                    "workloads": list(WORKLOAD_TYPES),
                    "tenant_sharing": facts.pool_tenant_sharing.get(name) or "across_tenants",
                }
            },
        }
        serving = serving_tenants(facts, name, tenants)
        part = replace(group_cluster, nodes=nodes, tenants=len(serving))
        size = size_pools(recommendation, part, mix)[0]
        if any(row.ref == MIG_SINGLE for row in rows):
            _one_profile(size, part, notes)
        by_default = tenant_names(len(serving))
        quotas = dict.fromkeys(tenants, 0)
        quotas |= {serving[i]: size.quotas.get(by_default[i], 0) for i in range(len(serving))}
        if len(serving) < len(tenants) and not size.per_tenant_nodes:
            quotas = by_work(facts, name, size.gpus, serving, quotas, notes)
        pools.append(Pool(name=name, rows=rows, size=size, cluster=part, quotas=quotas))
    strategy = operator_strategy(facts, pools)
    if strategy is not None:
        for pool in pools:
            if pool.is_mig and not pool.shares_vgpus:
                pool.strategy = strategy
    return pools, notes


# The pools the recommender names by the work they run (evaluations.engine.drafting's keys).
POOL_WORK = {
    "training": ("training", "batch"),
    "inference": ("online_inference",),
    "interactive": ("interactive",),
}


def serving_tenants(facts: DecisionFacts, pool: str, tenants: list[str]) -> list[str]:
    """The tenants a pool serves: with tenants named in step 1 and a pool named for its work,
    those who run that work; otherwise (or when none does) every tenant."""
    kinds = POOL_WORK.get(pool)
    named = {tenant.name: tenant for tenant in facts.profile.tenants}
    if kinds is None or not named or set(tenants) != set(named):
        return list(tenants)
    serving = [name for name in tenants if set(named[name].workloads) & set(kinds)]
    return serving or list(tenants)


def by_work(
    facts: DecisionFacts,
    pool: str,
    gpus: int,
    serving: list[str],
    quotas: dict[str, int],
    notes: list[str],
) -> dict[str, int]:
    """A shared pool's GPUs for the tenants it serves (serving_tenants), in proportion to what
    their demand of its work asks in step 1 (GPUs, or replicas; 1 where none is said), and none
    for the others: a clinical tenant that only serves gets the inference pool, not a third of
    every pool."""
    kinds = POOL_WORK[pool]
    named = {tenant.name: tenant for tenant in facts.profile.tenants}
    weights = [
        float(
            sum(
                item.whole_gpus or item.replicas or 1
                for item in named[name].demand
                if item.workload in kinds
            )
            or 1
        )
        for name in serving
    ]
    shares = dict(zip(serving, largest_remainder(gpus, weights), strict=True))
    notes.append(
        f"pool {pool} runs {', '.join(kinds)}: its {gpus} GPUs go to the tenants who run that "
        f"work ({', '.join(f'{n} {shares[n]}' for n in serving)}), by their demand in step 1"
    )
    return {name: shares.get(name, 0) for name in quotas}


OPERATOR_ROW = "nvidia-gpu-operator/clusterpolicy"
MIG_RESOURCE_PREFIX = "nvidia.com/mig-"


def operator_strategy(facts: DecisionFacts, pools: list[Pool]) -> str | None:
    """The MIG strategy the GPU Operator puts in force on every node, when it runs the device
    plugin: its `mig.strategy` becomes the MIG_STRATEGY environment variable of the device plugin
    and GFD, and a flag set from the environment overrides the config file's flags.migStrategy
    (k8s-device-plugin v0.20.0 api/config/v1/config.go, NewConfig: flags from the command line
    or environment are applied over the file). `mixed` when any MIG pool needs it, else `single`;
    None without the operator or without a MIG pool it serves."""
    if facts.row(OPERATOR_ROW) is None:
        return None
    mig = [pool for pool in pools if pool.is_mig and not pool.shares_vgpus]
    if not mig:
        return None
    return "mixed" if any(mig_strategy(pool, own=True) == "mixed" for pool in mig) else "single"


MIG_SINGLE = "nvidia-device-plugin/mig-single"


def _one_profile(size: PoolSize, cluster: Cluster, notes: list[str]) -> None:
    """Under the MIG single strategy every GPU of the pool has one profile (NVIDIA device plugin
    README, MIG strategies): the sizing's geometry becomes the full layout of the profile its
    mix wants most, so the files present what was decided."""
    profiles = Counter(
        {
            profile: count * len(layout)
            for count, layout in size.mig_geometry or []
            for profile in set(layout)
        }
    )
    if len(profiles) <= 1 or cluster.model is None:
        return
    wanted = Counter()
    for count, layout in size.mig_geometry or []:
        for profile in layout:
            wanted[profile] += count
    choice = max(wanted, key=lambda profile: (wanted[profile], profile))
    single = [layout for layout in mig_layouts(cluster.model) if set(layout) == {choice}]
    if not single:
        return
    layout = max(single, key=len)
    size.mig_geometry = [(size.nodes, layout)]
    notes.append(
        f"pool {size.name}: the MIG single strategy gives every GPU one profile, so each GPU is "
        f"{'+'.join(layout)} (the profile its work wants most) instead of the mixed layouts the "
        "sizing found; decide the mixed strategy to keep them"
    )


def pool_groups(facts: DecisionFacts, names: list[str]) -> dict[str, NodeGroup]:
    """Each pool's node group, for a profile of several groups: as the decision says, else the
    group named by the pool (`a100`, `inference-a100`), else the only group whose GPU model can
    run the pool's units (MIG slices only where the model has MIG). {} for one group."""
    groups = {group.name: group for group in facts.profile.node_groups}
    if len(groups) < 2:
        return {}
    placed: dict[str, NodeGroup] = {}
    for name in names:
        said = facts.pool_groups.get(name)
        if said in groups:
            placed[name] = groups[said]
            continue
        named = [g for g in groups.values() if name == g.name or name.endswith(f"-{g.name}")]
        if len(named) == 1:
            placed[name] = named[0]
            continue
        fit = [g for g in groups.values() if _can_run(facts, name, g)]
        if len(fit) != 1:
            raise ConfigRefused(
                _(
                    "pool %(pool)s: step 1 has %(count)s node groups and the decision does not "
                    "say which one the pool lives on (%(groups)s): adopt a recommendation, "
                    "which places each pool on a group, or name the group in the decision",
                    pool=name,
                    count=len(groups),
                    groups=", ".join(groups),
                )
            )
        placed[name] = fit[0]
    return placed


def _can_run(facts: DecisionFacts, pool: str, group: NodeGroup) -> bool:
    model = group.model
    units = {
        unit
        for ref in facts.pools.get(pool, [])
        if (row := facts.row(ref)) is not None and row.layer == "data_plane"
        for unit in row.units
    }
    if "mig_slice" in units and (model is None or not model.has_mig):
        return False
    return "amd_partition" not in units or (model is not None and model.has_partitions)


def _group_shares(
    names: list[str], groups: dict[str, NodeGroup], cluster: Cluster
) -> tuple[list[int], list[Cluster]]:
    """Nodes per pool (each group's nodes split between the pools on it) and each pool's
    cluster: its group's GPU model and node shape."""
    shares: dict[str, int] = {}
    for group in {g.name: g for g in groups.values()}.values():
        on = [name for name in names if groups[name].name == group.name]
        split = largest_remainder(group.nodes or len(on), [1.0] * len(on), minimum=1)
        shares.update(zip(on, split, strict=True))
    parts = [
        replace(
            cluster,
            model=groups[name].model,
            model_text=groups[name].gpu_model,
            gpus_per_node=groups[name].gpus_per_node or DEFAULT_GPUS_PER_NODE,
        )
        for name in names
    ]
    return [shares[name] for name in names], parts


def mig_instances(pool: Pool) -> Counter[str]:
    """MIG instances of each profile in the pool, by its geometry."""
    counts: Counter[str] = Counter()
    for nodes, layout in pool.size.mig_geometry or []:
        for profile in layout:
            counts[profile] += nodes * pool.cluster.gpus_per_node
    return counts


def mig_strategy(pool: Pool, own: bool = False) -> str:
    """`single` when every GPU of the pool has one profile and the decision chose the single
    strategy's row, else `mixed` (NVIDIA device plugin README: MIG strategies); the strategy in
    force over it (the GPU Operator's) unless `own`."""
    if pool.strategy is not None and not own:
        return pool.strategy
    profiles = {p for _nodes, layout in pool.size.mig_geometry or [] for p in layout}
    if pool.has("nvidia-device-plugin/mig-single") and len(profiles) == 1:
        return "single"
    return "mixed"


def capacity(pool: Pool, resource: str) -> tuple[int, str]:
    """The pool's capacity of one advertised resource and where the figure comes from."""
    gpus = pool.size.gpus
    base = pool.cites_gpus()
    model = pool.cluster.model
    hami = pool.serves("hami")
    if pool.is_mig:
        counts = mig_instances(pool)
        geometry = "; ".join(
            f"{nodes} nodes x {pool.cluster.gpus_per_node} GPUs of {'+'.join(layout)}"
            for nodes, layout in pool.size.mig_geometry or []
        )
        if resource.startswith("nvidia.com/mig-") and not resource.endswith((".shared", ".me")):
            profile = resource.removeprefix("nvidia.com/mig-")
            return counts.get(profile, 0), f"MIG geometry of the capacity sizing ({geometry})"
        if resource == "nvidia.com/gpu":
            if mig_strategy(pool) == "single":
                return sum(counts.values()), f"MIG single strategy: one per instance ({geometry})"
            return 0, "MIG mixed strategy: every GPU of the pool is MIG-enabled"
    if resource == "nvidia.com/gpu":
        if hami:
            return gpus * HAMI_SPLIT, f"{base}; HAMi deviceSplitCount {HAMI_SPLIT} vGPUs per GPU"
        if pool.has("nvidia-device-plugin/time-slicing") or pool.has("nvidia-device-plugin/mps"):
            return gpus * REPLICAS, f"{base}; {REPLICAS} replicas per GPU"
        return gpus, base
    if resource.startswith("nvidia.com/mig-") and not pool.is_mig:
        return 0, f"pool {pool.name} has no MIG geometry (step 1's GPU model, or no MIG unit)"
    if hami and resource == "nvidia.com/gpumem":
        if model is None:
            return 0, "GPU model unknown: its memory is not in EcoMap's GPU facts"
        per_gpu = model.memory_gb * MIB_PER_GB * HAMI_MEMORY_SCALING
        return gpus * per_gpu, f"{base}; {per_gpu} MiB per {model.name}"
    if hami and resource in ("nvidia.com/gpucores", "nvidia.com/gpumem-percentage"):
        return gpus * PERCENT, f"{base}; {PERCENT} per GPU"
    if pool.serves(VOLCANO_VGPU) and resource.startswith("volcano.sh/vgpu-"):
        return _volcano_vgpu(pool, resource, base)
    # AMD partitions under the mixed naming strategy: the layout and its count per GPU come from
    # the GPU facts (generate_amd.layout_of, catalog/data/facts/gpus.yaml)
    layout = amd_layout(pool)
    if layout is not None and resource.startswith("amd.com/"):
        if resource == layout.resource:
            return gpus * layout.per_gpu, f"{base}; {layout.cites()}"
        return 0, f"every GPU of the pool is partitioned ({layout.cites()})"
    whole = whole_gpu_resource(pool, resource)
    if whole is not None:
        return (gpus, f"{base}; {whole}") if whole else (0, _NOT_THIS_MODEL)
    return 0, UNKNOWN_CAPACITY


_NOT_THIS_MODEL = "the row advertises it for another model than step 1's: not on these nodes"
WHOLE_GPU_UNIT = "whole_gpu"


def _squashed(text: str) -> str:
    return "".join(ch for ch in text.lower() if ch.isalnum())


def whole_gpu_resource(pool: Pool, resource: str) -> str | None:
    """Why `resource` counts the pool's whole GPUs (one per GPU, any vendor: `amd.com/gpu`,
    `huawei.com/Ascend910`), "" when a whole-GPU row advertises it for another model, None when
    no whole-GPU row of the pool advertises it. A row advertising one resource per model (the
    Ascend device plugin) presents the one whose name starts step 1's model (longest match)."""
    model = _squashed(pool.cluster.model_text or pool.cluster.model_name)
    for row in pool.data_plane:
        if WHOLE_GPU_UNIT not in row.units or resource not in row.resources:
            continue
        names = [n for n in row.resources if n.split("/")[0] == resource.split("/")[0]]
        if len(names) == 1:
            return f"{row.cites()}: one {resource} per GPU"
        fits = [n for n in names if model.startswith(_squashed(n.rpartition("/")[2]))]
        best = max(fits, key=len, default=None)
        if best != resource:
            return ""
        return f"{row.cites()}: one {resource} per {pool.cluster.model_name}"
    return None


def presented(pool: Pool) -> list[str]:
    """The resources a pool's nodes present: what its data-plane rows advertise, except MIG
    profile names (a row lists every profile of every model), and under the MIG mixed strategy
    one `nvidia.com/mig-<profile>` per profile of the pool's geometry: a queue covers what the
    GPUs advertise, not what they never will."""
    names = {name for name in pool.resources if not name.startswith(MIG_RESOURCE_PREFIX)}
    if pool.is_mig and mig_strategy(pool) == "mixed":
        names |= {f"nvidia.com/mig-{profile}" for profile in mig_instances(pool)}
    return sorted(names)


def split(total: int, quotas: dict[str, int], turn: int = 0) -> dict[str, int]:
    """`total` shared between tenants in proportion to their GPU quotas, summing to `total`;
    equal tenants get the odd unit in turn from tenant `turn` on (one turn per resource)."""
    names = list(quotas)
    parts = largest_remainder(total, [float(quotas[n]) for n in names], rotate=turn)
    return dict(zip(names, parts, strict=True))


def _volcano_vgpu(pool: Pool, resource: str, base: str) -> tuple[int, str]:
    gpus, model = pool.size.gpus, pool.cluster.model
    if resource == "volcano.sh/vgpu-number":
        return gpus * VOLCANO_VGPU_SPLIT, (
            f"{base}; deviceSplitCount {VOLCANO_VGPU_SPLIT} vGPUs per GPU ({VOLCANO_VGPU_README})"
        )
    if resource == "volcano.sh/vgpu-cores":
        return gpus * PERCENT, f"{base}; {PERCENT} (percent of a GPU) per GPU"
    if resource == "volcano.sh/vgpu-memory":
        if model is None:
            return 0, "GPU model unknown: its memory is not in EcoMap's GPU facts"
        per_gpu = model.memory_gb * MIB_PER_GB
        return gpus * per_gpu, f"{base}; {per_gpu} MiB per {model.name} (deviceMemoryScaling 1)"
    return 0, UNKNOWN_CAPACITY
