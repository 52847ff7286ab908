"""Sizing a pool: how many nodes of one kind a task list needs, and which MIG geometry serves it.

Both answer by replaying (simulate): the smallest node count whose replay leaves at most
`allowed_unscheduled` tasks unplaced (a binary search, then a check of the count below, since a
policy may place a little better or worse on one more node), and among the maximal valid MIG
geometries of a model the one that places the most GPU demand on a given pool.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from itertools import combinations_with_replacement

from catalog.engine.gpus import gpu_model_find, mig_layout_valid
from evaluations.capacity.engine.replay import simulate
from evaluations.capacity.engine.shapes import CapacityError, Node, Result, Task

MAX_POOL_NODES = 4096


def pool_of(template: Node, count: int, *, pool: str | None = None) -> list[Node]:
    """`count` copies of `template`, named after it with a number."""
    return [
        replace(template, name=f"{template.name}-{i + 1}", pool=pool or template.pool)
        for i in range(count)
    ]


def nodes_needed(
    template: Node,
    tasks: Sequence[Task],
    *,
    policy: str = "fgd",
    allowed_unscheduled: int = 0,
    max_nodes: int = 256,
    **options,
) -> tuple[int, Result]:
    """The fewest copies of `template` (at most `max_nodes`) on which replaying `tasks` leaves
    at most `allowed_unscheduled` unplaced, with that replay's result. When even `max_nodes`
    cannot, returns max_nodes and its result (check `result.unscheduled`). `options` go to
    simulate (unit, replicas, seed, order)."""
    if not 1 <= max_nodes <= MAX_POOL_NODES:
        raise CapacityError(f"max_nodes must be 1 … {MAX_POOL_NODES}, got {max_nodes}")
    results: dict[int, Result] = {}

    def fits(count: int) -> bool:
        if count not in results:
            results[count] = simulate(pool_of(template, count), tasks, policy, **options)
        return results[count].unscheduled <= allowed_unscheduled

    if not fits(max_nodes):
        return max_nodes, results[max_nodes]
    low, high = 0, max_nodes  # fits(high); low does not fit or is 0
    while high - low > 1:
        middle = (low + high) // 2
        if fits(middle):
            high = middle
        else:
            low = middle
    return high, results[high]


def mig_geometries(gpu_model: str) -> list[tuple[str, ...]]:
    """Every maximal MIG geometry of one GPU of `gpu_model` (no further instance fits), largest
    instances first; [] when the model has no MIG."""
    model = gpu_model_find(gpu_model)
    if model is None or not model.has_mig:
        return []
    # "+me" profiles only add media engines; for capacity they are their plain twin.
    profiles = sorted(
        (p for p in model.mig_profiles if "+" not in p.name),
        key=lambda p: (-p.compute_slices, -p.memory_gb, p.name),
    )
    names = [p.name for p in profiles]
    limit = model.mig_max_instances or 0
    valid = {
        layout
        for k in range(1, limit + 1)
        for layout in combinations_with_replacement(names, k)
        if mig_layout_valid(model, layout)
    }
    maximal = [
        layout
        for layout in valid
        if not any(tuple(sorted((*layout, extra), key=names.index)) in valid for extra in names)
    ]
    slices = {p.name: p.compute_slices for p in profiles}
    return sorted(maximal, key=lambda g: (-sum(slices[n] for n in g), [names.index(n) for n in g]))


def best_mig_geometry(
    template: Node, count: int, tasks: Sequence[Task], *, policy: str = "fgd", **options
) -> tuple[tuple[str, ...], Result]:
    """The maximal geometry of `template`'s model under which `count` such nodes place the
    most GPU demand (fewest unplaced tasks next, fewer instances after), with its replay."""
    geometries = mig_geometries(template.gpu_model)
    if not geometries:
        raise CapacityError(f"GPU model {template.gpu_model!r} has no MIG")
    model = gpu_model_find(template.gpu_model)
    slices = {p.name: p.compute_slices for p in model.mig_profiles}
    seen: set[tuple[int, ...]] = set()
    best: tuple[tuple[float, int, int], tuple[str, ...], Result] | None = None
    for geometry in geometries:
        # GPU memory is not modelled: layouts with the same compute slices replay the same.
        signature = tuple(sorted(slices[name] for name in geometry))
        if signature in seen:
            continue
        seen.add(signature)
        nodes = pool_of(replace(template, mig_geometry=geometry), count)
        result = simulate(nodes, tasks, policy, unit="mig_slice", **options)
        rank = (-result.requested_pct, result.unscheduled, len(geometry))
        if best is None or rank < best[0]:
            best = (rank, geometry, result)
    return best[1], best[2]
