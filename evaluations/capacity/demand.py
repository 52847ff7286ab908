"""The named tenants' stated demand, replayed as stated (issue 40: absolute demand).

The sizing's experiment draws work in the mix's proportions until it asks 130 % of a pool's
GPUs; it says how well a unit and a policy pack, not whether what the tenants said they run
fits. This replays, on each pool's sized nodes, exactly the demand the recommendation landed
there (step 1's tenants: replicas of whole GPUs, MIG instances of a named profile, GPUs), the
always-on demand first, then the windowed (the peak, as if every window overlapped), and says
per tenant how much of it was placed. Plain Python, bounded: a demand or a pool past the
bounds below is not replayed, and the pool says so.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from catalog.engine.text import _
from evaluations.capacity import Node, Task, simulate
from evaluations.capacity.engine.shapes import SLOT_UNITS
from evaluations.capacity.sizing import Cluster, PoolSize

MAX_TASKS = 20_000  # tasks of one pool's stated demand replayed at most
MAX_NODES = 2_048  # nodes of one pool replayed at most
_ROOMY = 10**9  # CPU and memory beyond any task: the fit is about GPUs


def _tasks(
    item: Mapping[str, Any], cluster: Cluster, pool: PoolSize, first: int
) -> tuple[list[Task], int]:
    """The tasks of one demand line, and how many of its units no node of the pool can ever
    take (a MIG instance on a pool that cuts none of that profile, or no MIG at all)."""
    tenant, workload = str(item.get("tenant") or ""), str(item.get("workload") or "")
    base = {"cpu_milli": 0, "memory_mib": 0, "tenant": tenant, "workload": workload}
    profile = item.get("mig_profile")
    count = int(item.get("replicas") or item.get("gpus") or 0)
    if profile:
        model = cluster.model
        found = None if model is None else next(
            (p for p in model.mig_profiles if p.name == profile), None
        )  # fmt: skip
        if pool.unit != "mig_slice" or found is None:
            return [], count
        slices = max(p.compute_slices for p in model.mig_profiles)
        milli = round(found.compute_slices * 1000 / slices)
        made = [Task(f"d{first + i}", 1, milli, mig_profile=profile, **base) for i in range(count)]
        return made, 0
    per = int(item.get("gpus_per_replica") or 1) if item.get("replicas") else 1
    return [Task(f"d{first + i}", per, 1000, **base) for i in range(count)], 0


def demand_fit(
    pool: PoolSize, cluster: Cluster, landed: Sequence[Mapping[str, Any]], policy: str
) -> dict[str, Any] | None:
    """Per tenant, the stated demand that landed in the pool and what of it was placed, in
    replicas (a GPU of a `gpus` demand counts as one): {"asked", "placed", "tenants": {name:
    {"asked", "placed"}}, "notes"}; None without any."""
    if not landed or not pool.nodes:
        return None
    ordered = sorted(landed, key=lambda item: item.get("when") != "always")  # always-on first
    tasks: list[Task] = []
    never: dict[str, int] = {}
    for item in ordered:
        made, impossible = _tasks(item, cluster, pool, len(tasks))
        tasks += made
        if impossible:
            never[str(item.get("tenant") or "")] = (
                never.get(str(item.get("tenant")), 0) + impossible
            )
    layouts = [one for _tenant, partition in pool.partitions for one in partition]
    if len(tasks) > MAX_TASKS or len(layouts) > MAX_NODES:
        return {
            "asked": len(tasks) + sum(never.values()),
            "placed": None,
            "tenants": {},
            "notes": [
                _(
                    "the tenants' stated demand (%(tasks)s tasks on %(nodes)s nodes) is past "
                    "what is replayed as stated",
                    tasks=len(tasks),
                    nodes=len(layouts),
                )
            ],
        }
    figures: dict[str, dict[str, int]] = {}
    for task in tasks:
        figures.setdefault(task.tenant or "", {"asked": 0, "placed": 0})["asked"] += 1
    for tenant, count in never.items():
        figures.setdefault(tenant, {"asked": 0, "placed": 0})["asked"] += count
    if tasks:
        nodes = [
            Node(f"n{i}", cluster.model_name, cluster.gpus_per_node, _ROOMY, _ROOMY,
                 pool=pool.name, mig_geometry=layout)
            for i, layout in enumerate(layouts)
        ]  # fmt: skip
        result = simulate(
            nodes,
            tasks,
            policy,
            unit=pool.unit,
            replicas=pool.replicas if pool.unit in SLOT_UNITS else 1,
            order="given",
        )
        unplaced = set(result.unscheduled_tasks)
        for task in tasks:
            if task.name not in unplaced:
                figures[task.tenant or ""]["placed"] += 1
    notes = [
        _(
            "%(tenant)s's stated demand here: %(placed)s of %(asked)s replicas placed",
            tenant=name,
            placed=counts["placed"],
            asked=counts["asked"],
        )
        for name, counts in figures.items()
        if counts["placed"] < counts["asked"]
    ]
    return {
        "asked": sum(c["asked"] for c in figures.values()),
        "placed": sum(c["placed"] for c in figures.values()),
        "tenants": figures,
        "notes": notes,
    }
