"""MIG geometry for capacity sizing: the profile a task names (by the compute share and the
memory it needs), every maximal layout of a GPU model, and the layouts per node that serve a
mix's instances in proportion (docs/capacity-sizing.md, "MIG geometry")."""

from __future__ import annotations

import functools
import itertools
import re
from collections import Counter
from collections.abc import Sequence

from catalog.engine.gpus import GpuModel, mig_layout_valid
from catalog.engine.workload_mix import MixEntry
from evaluations.capacity.shares import largest_remainder

# The node count whose layouts a larger MIG pool's are scaled from (mig_geometry).
GEOMETRY_NODES = 64

_PLAIN_MIG = re.compile(r"^\d+g\.\d+gb$")  # 3g.40gb, not the media-extension variants


def _plain_profiles(model: GpuModel):
    return [p for p in model.mig_profiles if _PLAIN_MIG.match(p.name)]


def mig_profile_for(model: GpuModel, gpu_milli: int, gpus: int = 1, memory_gb: float | None = None):
    """The smallest plain MIG profile with the compute slices a task's fraction needs and, when
    the task states it, the GPU memory it needs (a whole GPU, or more, takes the full-GPU
    profile); ties go to the smaller memory. A task needing more memory than any instance has
    takes the full-GPU profile."""
    plain = _plain_profiles(model)
    slices = max(p.compute_slices for p in plain)
    # The fewest slices whose instance (round(s x 1000 / slices) milli, as the engine sizes it)
    # holds the fraction: 143 milli is one slice of seven, not ceil(1.001) = 2.
    needed = (
        slices
        if gpus > 1 or gpu_milli >= 1000
        else next(s for s in range(1, slices + 1) if round(s * 1000 / slices) >= gpu_milli)
    )
    fitting = [p for p in plain if p.compute_slices >= needed]
    if memory_gb:
        fitting = [p for p in fitting if p.memory_gb >= memory_gb] or [
            max(plain, key=lambda p: (p.compute_slices, p.memory_gb))
        ]
    return min(fitting, key=lambda p: (p.compute_slices, p.memory_gb, p.name))


def mig_request(model: GpuModel, entry: MixEntry) -> tuple[str, int]:
    """What a task of `entry` asks for on a MIG pool of the mixed strategy: the profile it names
    (nvidia.com/mig-<profile>) and its per-GPU share, the whole instance (the instance is what
    the pod requests and holds, so held and placed agree)."""
    profile = mig_profile_for(model, entry.gpu_milli, entry.gpus, entry.memory_gb)
    slices = max(p.compute_slices for p in _plain_profiles(model))
    milli = 1000 if entry.gpus > 1 else round(profile.compute_slices * 1000 / slices)
    return profile.name, milli


@functools.cache
def mig_layouts(model: GpuModel) -> list[tuple[str, ...]]:
    """Every maximal layout of plain profiles valid on one GPU of `model` (none can be added)."""
    plain = sorted(_plain_profiles(model), key=lambda p: (-p.compute_slices, p.name))
    limit = model.mig_max_instances or 0
    valid: list[tuple[str, ...]] = []
    for size in range(1, limit + 1):
        for combo in itertools.combinations_with_replacement([p.name for p in plain], size):
            if mig_layout_valid(model, combo):
                valid.append(combo)
    as_sets = [Counter(layout) for layout in valid]
    return [
        layout
        for layout, counts in zip(valid, as_sets, strict=True)
        if not any(other != counts and not counts - other for other in as_sets)
    ]


def mig_geometry(
    model: GpuModel, entries: Sequence[MixEntry], nodes: int, gpus_per_node: int
) -> list[tuple[int, tuple[str, ...]]]:
    """Layouts for `nodes` nodes whose instances follow the mix: the mix's tasks want instances
    of their profile (mig_profile_for) in proportion to the compute slices they take; node by
    node, the layout serving the most slices still wanted is chosen (one layout on every GPU of
    a node). Nodes left once the demand is covered take the first node's layout. Past
    GEOMETRY_NODES nodes the layouts of GEOMETRY_NODES are scaled up (the mix's proportions,
    not the node count, decide them)."""
    if nodes <= 0:
        return []
    if nodes > GEOMETRY_NODES:
        groups = _mig_geometry(model, tuple(entries), GEOMETRY_NODES, gpus_per_node)
        counts = largest_remainder(nodes, [count for count, _layout in groups])
        return [(n, layout) for n, (_count, layout) in zip(counts, groups, strict=True) if n]
    return list(_mig_geometry(model, tuple(entries), nodes, gpus_per_node))


@functools.lru_cache(maxsize=256)
def _mig_geometry(
    model: GpuModel, entries: tuple[MixEntry, ...], nodes: int, gpus_per_node: int
) -> list[tuple[int, tuple[str, ...]]]:
    plain = {p.name: p for p in _plain_profiles(model)}
    slices_per_gpu = max(p.compute_slices for p in plain.values())
    wanted: Counter[str] = Counter()
    for entry in entries:
        profile = mig_profile_for(model, entry.gpu_milli, entry.gpus, entry.memory_gb)
        wanted[profile.name] += entry.tasks * entry.gpus * profile.compute_slices
    layouts = mig_layouts(model)
    if not wanted:
        full = max(plain.values(), key=lambda p: p.compute_slices)
        return [(nodes, (full.name,))]
    capacity = nodes * gpus_per_node * slices_per_gpu
    total = sum(wanted.values())
    # Instances still wanted, per profile, the mix scaled to the pool's compute slices.
    left = {
        name: slices * capacity / total / plain[name].compute_slices
        for name, slices in wanted.items()
    }
    chosen: list[tuple[str, ...]] = []
    for _node in range(nodes):
        if all(value <= 1e-9 for value in left.values()):
            chosen.append(chosen[0])
            continue

        def served(layout: tuple[str, ...]) -> tuple[float, int]:
            counts = Counter(layout)
            slices = sum(
                min(n * gpus_per_node, max(left.get(name, 0.0), 0.0)) * plain[name].compute_slices
                for name, n in counts.items()
            )
            return (slices, -len(layout))

        best = max(layouts, key=served)
        chosen.append(best)
        for name, n in Counter(best).items():
            if name in left:
                left[name] -= n * gpus_per_node
    groups: Counter[tuple[str, ...]] = Counter(chosen)
    # Largest groups first; a layout's profiles biggest first ("3g.40gb, 2g.20gb, 1g.10gb").
    return [
        (count, tuple(sorted(layout, key=lambda n: (-plain[n].compute_slices, n))))
        for layout, count in sorted(groups.items(), key=lambda item: (-item[1], item[0]))
    ]
