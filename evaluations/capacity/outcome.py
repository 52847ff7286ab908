"""The simulated outcome of sized stacks (issue 29 item 3): the workload mix replayed on each
pool with the capacity engine, under the pool's data-plane unit and the stack's policy.

Each partition of a pool (the pool, or one tenant's nodes of it) receives tasks drawn from its
mix, in proportion to the mix's counts, in a seeded order, until the work that arrived asks for
130 % of its GPUs (the paper's experiment). The headline figures are read where the arrived work
asks for 100 %: GPUs held by tasks, the fragmented GPUs (the paper's measure), the tasks that
could not be placed, per tenant. A stack's curve is its pools' curves weighted by their GPUs.
Plain Python; `capacity_outcome` is what the Celery job and the shell call.
"""

from __future__ import annotations

import random
import time
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from typing import Any

from catalog.engine.fleet import NodeGroup
from catalog.engine.profile import Profile
from catalog.engine.text import _, joined
from catalog.engine.workload_mix import WORKLOADS, MixEntry
from evaluations.capacity import Node, Task, simulate
from evaluations.capacity.demand import demand_fit
from evaluations.capacity.engine.shapes import SLOT_UNITS
from evaluations.capacity.sizing import (
    Cluster,
    PoolSize,
    cluster_of,
    mig_request,
    mix_of,
    size_pools,
    stack_policy,
    tenant_entries,
    tenant_names,
)

OUTCOME_VERSION = 8  # part of the cache key: bump with any change that changes a figure
INFLATION = 1.3
# The fragmentation-aware policy of the FGD paper, replayed beside each stack's own as a reference.
REFERENCE_POLICY = "fgd"
SEED = 0
CURVE = 131  # 0 … 130 % of the GPUs
# Bounds per replay (memory and time): a partition larger than this is replayed on a copy of
# the same shape scaled down to it (the percentages stay; task counts are scaled back).
REPLAY_MAX_GPUS = 1024
# And all of one pool's partitions together (a pool of one tenant each replays every tenant's
# nodes): each partition is scaled down to its share of this.
POOL_REPLAY_MAX_GPUS = 8192
# Nodes of the replay are given more CPU and memory than any task asks: sizing is about GPUs.
_ROOMY_CPU = 10**9
_ROOMY_MEMORY = 10**9

Progress = Callable[[int], None]


def _draw(
    entries: Sequence[MixEntry], tenants: list[str], capacity: int, rng, mig_model=None
) -> list[Task]:
    """Tasks drawn from `entries` by their counts until their GPU demand passes INFLATION x
    `capacity` milli-GPU. An entry without a tenant gives each task to a tenant at random. On a
    MIG pool (`mig_model`) each task names its profile, as a pod of the mixed strategy does."""
    if not entries or capacity <= 0:
        return []
    named = {entry: mig_request(mig_model, entry) for entry in entries} if mig_model else {}
    weights = [entry.tasks for entry in entries]
    target = INFLATION * capacity
    tasks: list[Task] = []
    arrived = 0
    while arrived < target:
        entry = rng.choices(entries, weights)[0]
        tenant = (
            tenants[entry.tenant - 1]
            if entry.tenant is not None and entry.tenant <= len(tenants)
            else rng.choice(tenants)
        )
        profile, milli = named.get(entry, (None, entry.gpu_milli))
        task = Task(
            name=f"t{len(tasks)}",
            gpus=entry.gpus,
            gpu_milli=milli,
            cpu_milli=0,
            memory_mib=0,
            gpu_type="|".join(entry.gpu_types) or None,
            tenant=tenant,
            workload=entry.workload,
            mig_profile=profile,
        )
        tasks.append(task)
        arrived += task.gpu_demand
    return tasks


Memo = dict[tuple[Any, ...], dict[str, Any]]
ONE = "_"  # the tenant of a partition of its own, named once the replay is reused


def _replay(
    pool: PoolSize,
    cluster: Cluster,
    tenant: str | None,
    layouts: list[tuple[str, ...] | None],
    tenants: list[str],
    policy: str,
    memo: Memo,
    limit: int = REPLAY_MAX_GPUS,
) -> dict[str, Any]:
    """One partition replayed: its curves, and what happened up to 100 % per tenant.

    Partitions alike in everything the replay reads (unit, policy, nodes and layouts, the work
    drawn) are replayed once and the answer reused: a pool of one tenant each with the same
    share of work per tenant, or the same pool in several stacks. The draw is seeded by that
    input, so the reuse changes no figure."""
    nodes = len(layouts)
    sizes = [cluster.gpus_per_node] * nodes
    if pool.carved and tenant is not None and nodes:  # its GPUs: whole nodes, the last partly
        sizes[-1] = pool.quotas[tenant] - (nodes - 1) * cluster.gpus_per_node
    scale = 1.0
    if sum(sizes) > limit:
        kept = max(1, limit // cluster.gpus_per_node)
        scale = sum(sizes) / (kept * cluster.gpus_per_node)
        step = nodes / kept  # every step-th node keeps the layouts' proportions
        layouts = [layouts[int(i * step)] for i in range(kept)]
        sizes = [cluster.gpus_per_node] * kept
    if tenant is None:
        entries = list(pool.entries)
        names = tenants
    else:
        mine = tenant_entries(pool.entries, tenants.index(tenant) + 1, len(tenants))
        entries = [replace(entry, tenant=None) for entry in mine]
        names = [ONE]
    key = (pool.unit, policy, cluster.model_name, tuple(sizes), nodes, tuple(layouts),
           tuple(entries), tuple(names))  # fmt: skip
    if key not in memo:
        memo[key] = _replayed(pool, cluster, layouts, sizes, entries, names, policy, key, scale)
    answer = memo[key]
    if tenant is None:
        return answer
    return {**answer, "per_tenant": {tenant: dict(answer["per_tenant"][ONE])}}


def _replayed(pool, cluster, layouts, sizes, entries, names, policy, key, scale) -> dict:
    engine_nodes = [
        Node(
            name=f"n{index}",
            gpu_model=cluster.model_name,
            gpus=sizes[index],
            cpu_milli=_ROOMY_CPU,
            memory_mib=_ROOMY_MEMORY,
            pool=pool.name,
            mig_geometry=layout,
        )
        for index, layout in enumerate(layouts)
    ]
    capacity = sum(sizes) * 1000
    # Seeded by the partition's input: adding a pool never changes another pool's draw, and
    # alike partitions draw alike (see _replay).
    rng = random.Random(f"{SEED}:{key!r}")  # noqa: S311 (a replay, not a secret)
    mig_model = cluster.model if pool.unit == "mig_slice" else None
    tasks = _draw(entries, names, capacity, rng, mig_model)
    per_tenant = {name: {"tasks": 0, "placed_gpus": 0.0, "unplaced": 0} for name in names}
    gpus = sum(sizes)
    if not tasks:
        flat = [0.0] * CURVE
        return {"gpus": gpus, "scale": scale, "alloc": flat, "held": flat, "frag": flat,
                "per_tenant": per_tenant}  # fmt: skip
    result = simulate(
        engine_nodes,
        tasks,
        policy,
        seed=SEED,
        unit=pool.unit,
        replicas=pool.replicas if pool.unit in SLOT_UNITS else 1,
        order="given",
    )
    unplaced = set(result.unscheduled_tasks)
    # The work placed (what placed tasks asked, % of the GPUs) at each percent of arrived work:
    # a unit that rounds a request up holds more than this (the `held` curve).
    placed_curve = [0.0] * CURVE
    arrived = placed = 0
    for task in tasks:
        before, placed_before = arrived, placed
        arrived += task.gpu_demand
        if task.name not in unplaced:
            placed += task.gpu_demand
        for percent in range(int(100 * before / capacity) + 1, CURVE):
            if percent * capacity > 100 * arrived:
                break
            # At x % arrived, the work of the tasks that had all arrived by then: a task is
            # placed once all of it has arrived, so placed never exceeds arrived.
            done = placed if percent * capacity == 100 * arrived else placed_before
            placed_curve[percent] = round(100 * done / capacity, 2)
        if before < capacity:  # the tasks that arrived by 100 % of the GPUs
            counts = per_tenant[task.tenant]
            counts["tasks"] += 1
            if task.name in unplaced:
                counts["unplaced"] += 1
            else:
                counts["placed_gpus"] += task.gpu_demand / 1000
    if scale != 1.0:
        for counts in per_tenant.values():
            counts["tasks"] = round(counts["tasks"] * scale)
            counts["unplaced"] = round(counts["unplaced"] * scale)
            counts["placed_gpus"] *= scale
    return {
        "gpus": sum(sizes),
        "scale": scale,
        "alloc": placed_curve,
        "held": _filled(result.alloc_curve),
        "frag": _filled(result.frag_curve),
        "per_tenant": per_tenant,
        "seconds": result.seconds,
    }


def _filled(curve: Sequence[float | None]) -> list[float]:
    """The curve with gaps (demand the replay never reached) held at the last value."""
    values, last = [], 0.0
    for value in list(curve)[:CURVE]:
        last = last if value is None else float(value)
        values.append(round(last, 2))
    return values + [round(last, 2)] * (CURVE - len(values))


def _weighted(parts: Sequence[tuple[int, Sequence[float]]]) -> list[float]:
    total = sum(gpus for gpus, _curve in parts)
    if not total:
        return [0.0] * CURVE
    return [round(sum(gpus * curve[i] for gpus, curve in parts) / total, 2) for i in range(CURVE)]


def _pool_outcome(
    pool: PoolSize, cluster: Cluster, tenants: list[str], policy: str, memo: Memo
) -> dict[str, Any]:
    cluster = pool.on(cluster)  # its node group's nodes, when step 1 has groups
    limit = min(REPLAY_MAX_GPUS, POOL_REPLAY_MAX_GPUS // max(1, len(pool.partitions)))
    replays = [
        _replay(pool, cluster, tenant, layouts, tenants, policy, memo, limit)
        for tenant, layouts in pool.partitions
    ]
    per_tenant = {
        name: {"quota": pool.quotas.get(name, 0), "tasks": 0, "placed_gpus": 0.0, "unplaced": 0}
        for name in tenants
    }
    for replay in replays:
        for name, counts in replay["per_tenant"].items():
            for key in ("tasks", "placed_gpus", "unplaced"):
                per_tenant[name][key] += counts[key]
    weights = [
        (pool.gpus * r["gpus"] / max(1, sum(x["gpus"] for x in replays)), r) for r in replays
    ]
    alloc = _weighted([(w, r["alloc"]) for w, r in weights])
    held = _weighted([(w, r["held"]) for w, r in weights])
    frag = _weighted([(w, r["frag"]) for w, r in weights])
    # Tenants without nodes of their own hold nothing: their GPUs (none) weigh nothing.
    data = pool.to_dict()
    data.update(
        alloc_curve=alloc,
        frag_curve=frag,
        alloc_at_100=alloc[100],
        frag_at_100=frag[100],
        tasks=sum(t["tasks"] for t in per_tenant.values()),
        unplaced=sum(t["unplaced"] for t in per_tenant.values()),
        held_curve=held,
        held_at_100=held[100],
        per_tenant={
            name: {**counts, "placed_gpus": round(counts["placed_gpus"], 1)}
            for name, counts in per_tenant.items()
        },
        scaled=any(r["scale"] != 1.0 for r in replays),
    )
    data["notes"] += shortfall(pool, cluster, data)
    if data["scaled"]:
        data["notes"].append(
            _(
                "replayed on a copy scaled down to %(gpus)s GPUs per partition",
                gpus=max(cluster.gpus_per_node, limit),
            )
        )
    return data


def stack_outcome(
    recommendation: Mapping[str, Any],
    cluster: Cluster,
    mix: Sequence[MixEntry],
    memo: Memo | None = None,
    groups: Sequence[NodeGroup] = (),
) -> dict[str, Any]:
    """One stack: its sized pools, each replayed, and the stack's figures; `fgd` is what the
    same pools give under Fragmentation Gradient Descent, the paper's fragmentation-aware
    policy (what a scheduler change alone would win)."""
    memo = {} if memo is None else memo
    tenants = tenant_names(cluster.tenants)
    policy, policy_note = stack_policy(recommendation.get("rows") or ())
    sized = size_pools(recommendation, cluster, mix, groups)
    pools = [_pool_outcome(pool, cluster, tenants, policy, memo) for pool in sized]
    details = recommendation.get("pool_details") or {}
    for pool, data in zip(sized, pools, strict=True):  # the tenants' demand, as stated
        fit = demand_fit(pool, pool.on(cluster), details.get(pool.name, {}).get("demand"), policy)
        if fit is not None:
            data["demand_fit"] = fit
            data["notes"] += fit["notes"]
    fgd = [
        _pool_outcome(pool, cluster, tenants, REFERENCE_POLICY, memo) if policy != REFERENCE_POLICY
        else outcome
        for pool, outcome in zip(sized, pools, strict=True)
    ]  # fmt: skip
    weighted = [(p["gpus"], p) for p in pools]
    alloc = _weighted([(g, p["alloc_curve"]) for g, p in weighted])
    held = _weighted([(g, p["held_curve"]) for g, p in weighted])
    frag = _weighted([(g, p["frag_curve"]) for g, p in weighted])
    per_tenant = {
        name: {
            "quota": sum(p["quotas"].get(name, 0) for p in pools),
            "tasks": sum(p["per_tenant"][name]["tasks"] for p in pools),
            "placed_gpus": round(sum(p["per_tenant"][name]["placed_gpus"] for p in pools), 1),
            "unplaced": sum(p["per_tenant"][name]["unplaced"] for p in pools),
        }
        for name in tenants
    }
    return {
        "rank": recommendation.get("rank"),
        "shape": recommendation.get("shape"),
        "rows": list(recommendation.get("rows") or ()),
        "policy": policy,
        "policy_note": policy_note,
        "gpus": sum(p["gpus"] for p in pools),
        "alloc_curve": alloc,
        "frag_curve": frag,
        "alloc_at_100": alloc[100],
        "held_at_100": held[100],
        "frag_at_100": frag[100],
        "held_curve": held,
        "tasks": sum(p["tasks"] for p in pools),
        "unplaced": sum(p["unplaced"] for p in pools),
        "per_tenant": per_tenant,
        "pools": pools,
        "fgd": {
            "alloc_at_100": _weighted([(p["gpus"], p["alloc_curve"]) for p in fgd])[100],
            "frag_at_100": _weighted([(p["gpus"], p["frag_curve"]) for p in fgd])[100],
            "unplaced": sum(p["unplaced"] for p in fgd),
        },
    }


# The units a comparison row is judged by: each replayed on the whole cluster as one shared pool.
COMPARED_UNITS = ("whole_gpu", "mig_slice", "memory_compute_quota", "time_slice", "mps_share")


def units_outcome(
    cluster: Cluster, mix: Sequence[MixEntry], memo: Memo | None = None
) -> dict[str, dict[str, Any]]:
    """Per data-plane unit, the mix replayed on all of step 1's nodes as one pool (best-fit):
    the figure the comparison of same-layer, same-unit rows shows beside isolation and cost."""
    figures = {}
    for unit in COMPARED_UNITS:
        if unit == "mig_slice" and (cluster.model is None or not cluster.model.has_mig):
            continue
        whole = {
            "rank": 0,
            "rows": [],
            "pools": {"all": []},
            "pool_details": {
                "all": {"units": [unit], "workloads": list(WORKLOADS),
                        "tenant_sharing": "across_tenants"}
            },
        }  # fmt: skip
        outcome = stack_outcome(whole, cluster, mix, memo)
        figures[unit] = {
            key: outcome[key]
            for key in ("alloc_at_100", "held_at_100", "frag_at_100", "tasks", "unplaced")
        }
    return figures


def capacity_outcome(
    profile: Profile,
    recommendations: Sequence[Mapping[str, Any]],
    *,
    progress: Progress | None = None,
) -> dict[str, Any]:
    """Every recommended stack sized and replayed (JSON-ready); ValueError when step 1 does
    not say enough to size (no node count)."""
    started = time.perf_counter()
    cluster = cluster_of(profile)
    mix, source = mix_of(profile)
    stacks = []
    memo: Memo = {}
    for number, recommendation in enumerate(recommendations):
        stacks.append(stack_outcome(recommendation, cluster, mix, memo, profile.node_groups))
        if progress is not None:
            progress(10 + 75 * (number + 1) // max(1, len(recommendations)))
    units = units_outcome(cluster, mix, memo)
    notes = []
    if cluster.model is None:
        notes.append(
            _(
                "Step 1's GPU model is not in EcoMap's GPU facts (or not said): MIG pools are "
                "replayed as whole GPUs"
            )
        )
    if not profile.gpus_per_node:
        notes.append(_("Step 1 does not say the GPUs per node: 8 assumed"))
    return {
        "version": OUTCOME_VERSION,
        "cluster": {
            "gpu_model": cluster.model.name if cluster.model is not None else cluster.model_text,
            "nodes": cluster.nodes,
            "gpus_per_node": cluster.gpus_per_node,
            "gpus": cluster.gpus,
            "tenants": tenant_names(cluster.tenants),
        },
        "mix_source": source,
        "mix": [entry.to_dict() for entry in mix],
        "inflation": INFLATION,
        "seed": SEED,
        "stacks": stacks,
        "units": units,
        "notes": notes,
        "seconds": round(time.perf_counter() - started, 3),
    }


def shortfall(pool: PoolSize, cluster: Cluster, data: Mapping[str, Any]) -> list:
    """A warning when the pool places less than the work that arrived by 100 % of its GPUs,
    with each cause the sizing can tell: work for another GPU model, MIG profiles no layout of
    the pool has, and otherwise (or besides) too few GPUs for the work."""
    tasks, unplaced = data["tasks"], data["unplaced"]
    if not unplaced or not pool.gpus:
        return []
    causes = []
    model = cluster.model_name
    foreign = sorted(
        {key for e in pool.entries if e.gpu_types and model not in e.gpu_types
         for key in e.gpu_types}
    )  # fmt: skip
    if foreign:
        causes.append(
            _(
                "part of its work asks for %(wanted)s and its nodes are %(model)s: name that "
                "GPU model's nodes in step 1 (a node group)",
                wanted=", ".join(foreign),
                model=cluster.model_text or model,
            )
        )
    if pool.unit == "mig_slice" and cluster.model is not None:
        cut = {name for _t, layouts in pool.partitions for one in layouts if one for name in one}
        missing = sorted({mig_request(cluster.model, e)[0] for e in pool.entries} - cut)
        if missing:
            causes.append(
                _(
                    "its MIG layouts have no %(profiles)s instance that part of its work names",
                    profiles=", ".join(missing),
                )
            )
        surplus = _mig_surplus(pool, cluster.model)
        if surplus:
            causes.append(
                _(
                    "its MIG layouts give some profiles more of its GPUs than its work asks "
                    "of them (profile: %% of the GPUs / %% of the work: %(profiles)s); a valid "
                    "layout must fill each GPU",
                    profiles=", ".join(f"{n}: {offer} / {ask}" for n, offer, ask in surplus),
                )
            )
    if pool.unit == "whole_gpu":
        fractions = sum(e.tasks for e in pool.entries if e.gpus == 1 and e.gpu_milli < 1000)
        if fractions:
            causes.append(
                _(
                    "its unit gives each task a whole GPU, and %(share)s %% of its tasks ask for "
                    "part of one (a sharing unit would place more of them)",
                    share=round(100 * fractions / sum(e.tasks for e in pool.entries), 1),
                )
            )
    if not causes:
        causes.append(
            _(
                "its %(gpus)s GPUs are fewer than the work asks: add nodes, or let it borrow "
                "from a shared pool where the tenants' sharing allows",
                gpus=pool.gpus,
            )
        )
    return [
        _(
            "places %(placed)s %% of the work that arrived; %(unplaced)s of %(tasks)s tasks "
            "wait: %(causes)s",
            placed=data["alloc_at_100"],
            unplaced=unplaced,
            tasks=tasks,
            causes=joined("; ", causes),
        )
    ]


SURPLUS_POINTS = 5.0  # a profile offered this many points of the GPUs beyond its demand


def _mig_surplus(pool: PoolSize, model) -> list[tuple[str, float, float]]:
    """Each MIG profile whose instances take a larger share of the pool's GPUs (compute slices)
    than the work naming it asks for: (profile, % offered, % asked), largest surplus first."""
    slices = {p.name: p.compute_slices for p in model.mig_profiles}
    per_gpu = max(slices.values())
    layouts = [one for _t, partition in pool.partitions for one in partition if one]
    wanted: Counter[str] = Counter()
    for entry in pool.entries:
        name, _milli = mig_request(model, entry)
        wanted[name] += entry.tasks * entry.gpus * slices[name]
    offered = Counter(name for one in layouts for name in one)
    if not layouts or not wanted:
        return []
    asked_total, offered_total = sum(wanted.values()), per_gpu * len(layouts)
    found = []
    for name, count in offered.items():
        offer = 100 * count * slices[name] / offered_total
        ask = 100 * wanted[name] / asked_total
        if offer - ask >= SURPLUS_POINTS:
            found.append((name, round(offer, 1), round(ask, 1)))
    return sorted(found, key=lambda item: item[2] - item[1])
