"""Node groups and named tenants in a drafted stack: which group each pool lives on, and the
demand of the tenants it serves.

A pool lives on one node group. The pools a shape calls for (training, inference, interactive,
or one pool for all work) are placed so that every group hosts a pool (no GPUs vanish) and each
pool's work sits where its GPU model serves it best: training where the memory per GPU and the
GPUs per node are largest (and always where the model needs an NVLink domain for jobs across
nodes), interactive fractions where the model can be partitioned, online inference on the other
groups; among placements as good, the one whose always-on demand fits the groups' GPUs wins. A
pool placed on several groups is one pool per group (`<pool>-<group>`, or the group's name for
the single pool of shapes A and B).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import replace
from itertools import permutations, product
from types import MappingProxyType
from typing import Any, Protocol, TypeVar

from catalog.engine.fleet import Demand, NodeGroup, Tenant
from catalog.engine.profile import Profile
from catalog.engine.stack import DEFAULT_POOL

BATCH_KINDS = frozenset({"training", "batch"})
SERVING_KINDS = frozenset({"online_inference", "interactive"})

# Placements examined per shape at most: node groups beyond a handful are placed by the best
# of the first this many (a cluster of 32 groups would otherwise be 29,760 placements per shape).
PLACEMENTS_MAX = 2_000


class _Plan(Protocol):
    name: str
    workloads: tuple[str, ...]
    tenants: tuple[Tenant, ...] | None


Plan = TypeVar("Plan", bound=_Plan)


def _size(group: NodeGroup) -> tuple[float, int, int]:
    model = group.model
    return (
        float(model.memory_gb) if model is not None else 0.0,
        group.gpus_per_node or 0,
        group.gpus or 0,
    )


def _partitions(group: NodeGroup) -> bool:
    model = group.model
    return model is not None and model.has_partitions


def always_gpus(tenants: Iterable[Tenant], kinds: Iterable[str]) -> int:
    """Whole GPUs the tenants' always-on demand for work of `kinds` holds."""
    kinds = set(kinds)
    return sum(
        item.whole_gpus or 0
        for tenant in tenants
        for item in tenant.demand
        if item.workload in kinds and item.when == "always"
    )


def _affinity(plan: _Plan, group: NodeGroup, biggest: NodeGroup) -> float:
    kinds = set(plan.workloads)
    model = group.model
    score = 0.0
    if kinds & BATCH_KINDS:
        score += 2.0 if group is biggest else 0.0
        if model is not None and model.multi_node_requires:
            score += 3.0  # an NVLink domain across nodes is what it is for
    if "interactive" in kinds and _partitions(group):
        score += 2.0
    if "online_inference" in kinds and not kinds & BATCH_KINDS and group is not biggest:
        score += 1.0
    if group.gpu_model and model is None:
        score -= 1.0  # a model outside the GPU facts: vendor rows are withheld there
    return score


def _placements(plan_count: int, group_count: int) -> Iterable[tuple[tuple[int, int], ...]]:
    """(plan, group) pairs of each placement where every plan and every group is used once at
    least: plans onto groups when there are as many plans or more, else one group per plan and
    the remaining groups left to `_fill`."""
    if plan_count >= group_count:
        for choice in product(range(group_count), repeat=plan_count):
            if len(set(choice)) == group_count:
                yield tuple(enumerate(choice))
    else:
        for choice in permutations(range(group_count), plan_count):
            yield tuple(enumerate(choice))


def _fill(
    pairs: tuple[tuple[int, int], ...], plans: Sequence[_Plan], groups: Sequence[NodeGroup]
) -> tuple[tuple[int, int], ...]:
    """Each group no plan is on takes the plan it suits best (the first such plan on a tie)."""
    biggest = max(groups, key=_size)
    used = {group for _plan, group in pairs}
    extra = tuple(
        (max(range(len(plans)), key=lambda p: (_affinity(plans[p], groups[g], biggest), -p)), g)
        for g in range(len(groups))
        if g not in used
    )
    return pairs + extra


def _judge(
    pairs: tuple[tuple[int, int], ...], plans: Sequence[_Plan], groups: Sequence[NodeGroup]
) -> float:
    biggest = max(groups, key=_size)
    score = sum(_affinity(plans[p], groups[g], biggest) for p, g in pairs)
    # Demand that cannot fit: a plan on one group whose tenants' always-on GPUs exceed it.
    spread = {p for p, _g in pairs}
    for p in spread:
        hosts = [g for q, g in pairs if q == p]
        capacity = [groups[g].gpus for g in hosts]
        if None in capacity:
            continue
        demand = always_gpus(plans[p].tenants or (), plans[p].workloads)
        if demand > sum(capacity):  # type: ignore[arg-type]
            score -= 2.0
    return score


def _pool_name(plan: _Plan, group: NodeGroup, spread: bool, taken: set[str]) -> str:
    if not spread:
        name = plan.name
    elif plan.name == DEFAULT_POOL:
        name = group.name
    else:
        name = f"{plan.name}-{group.name}"
    if name in taken:
        name = f"{plan.name}-{group.name}"
    return name


def place_on_groups(plans: tuple[Plan, ...], profile: Profile) -> tuple[Plan, ...]:
    """The plans, each placed on a node group (as one pool per group it is placed on)."""
    groups = profile.groups
    if len(groups) == 1:
        group = groups[0]
        return tuple(_on(plan, group, plan.name) for plan in plans)
    best: tuple[float, int, tuple[tuple[int, int], ...]] | None = None
    for number, pairs in enumerate(_placements(len(plans), len(groups))):
        if number >= PLACEMENTS_MAX:
            break
        filled = _fill(pairs, plans, groups)
        key = (_judge(filled, plans, groups), -number, filled)
        if best is None or key[:2] > best[:2]:
            best = key
    assert best is not None  # at least one placement exists for one plan or more
    pairs = sorted(best[2])
    placed: list[Plan] = []
    taken: set[str] = set()
    biggest = max(groups, key=_size)
    for p, g in pairs:
        hosts = [groups[h] for q, h in pairs if q == p]
        name = _pool_name(plans[p], groups[g], len(hosts) > 1, taken)
        taken.add(name)
        kinds = plans[p].workloads
        if len(hosts) > 1:
            # A plan on several groups trains only where training suits best: a copy on an
            # inference card (L40S beside H100s) serves its other work.
            home = max(hosts, key=lambda h: _affinity(_Kinds(BATCH_KINDS), h, biggest))
            kinds = tuple(k for k in kinds if k not in BATCH_KINDS or groups[g] is home)
        placed.append(_on(plans[p], groups[g], name, kinds or plans[p].workloads))
    return tuple(placed)


class _Kinds:
    """Work of some kinds, for asking `_affinity` where it suits best."""

    def __init__(self, kinds: Iterable[str]) -> None:
        self.workloads = tuple(kinds)
        self.name = ""
        self.tenants = None


def _on(plan: Plan, group: NodeGroup, name: str, kinds: tuple[str, ...] | None = None) -> Plan:
    model = group.model
    changes: dict[str, Any] = {}
    if kinds is not None and kinds != plan.workloads:
        units = plan.units  # type: ignore[attr-defined]
        changes = {
            "workloads": kinds,
            "units": MappingProxyType({kind: units[kind] for kind in kinds}),
            "tenants": None
            if plan.tenants is None
            else tuple(t for t in plan.tenants if set(t.workloads) & set(kinds)),
        }
    return replace(
        plan,  # type: ignore[type-var]
        name=name,
        group=group.name,
        model=model,
        unknown_model=bool(group.gpu_model) and model is None,
        **changes,
    )


def landed_demand(plans: Sequence[Any], profile: Profile) -> dict[str, list[tuple[Tenant, Demand]]]:
    """Per pool name, the tenants' demand that lands there: each demand line in the first pool
    serving that tenant's work of its type whose group has GPUs left for it (whole GPUs), or
    whose model has its MIG profile; else in the first pool serving it."""
    landed: dict[str, list[tuple[Tenant, Demand]]] = {plan.name: [] for plan in plans}
    free = {plan.name: _group_gpus(plan, profile) for plan in plans}
    for tenant in profile.tenants:
        for item in tenant.demand:
            serving = [
                plan
                for plan in plans
                if item.workload in plan.workloads
                and (plan.tenants is None or tenant in plan.tenants)
            ]
            if not serving:
                continue
            target = next((plan for plan in serving if _takes(plan, item, free)), serving[0])
            landed[target.name].append((tenant, item))
            if item.whole_gpus is not None and free[target.name] is not None:
                free[target.name] -= item.whole_gpus
    return landed


def _group_gpus(plan: Any, profile: Profile) -> int | None:
    group = next((g for g in profile.groups if g.name == plan.group), None)
    return group.gpus if group is not None else None


def _takes(plan: Any, item: Demand, free: dict[str, int | None]) -> bool:
    if item.mig_profile is not None:
        return plan.model is not None and plan.model.mig_profile(item.mig_profile) is not None
    left = free[plan.name]
    return left is None or item.whole_gpus is None or item.whole_gpus <= left
