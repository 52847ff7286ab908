"""What a resource unit can give, aspect by aspect (METHOD step 2): the ceiling of its memory,
compute and fault isolation, and whether parts of one device go to different pods.

A row's own isolation is what its project promises; a row presenting several units promises it
for the strongest of them. What one unit gives is the lower of the row's promise and the unit's
ceiling, so a row presenting time slices next to memory quotas never lends the quota's memory
isolation to its time slices.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from functools import lru_cache
from types import MappingProxyType

ASPECTS: tuple[str, ...] = ("memory", "compute", "fault")
LEVELS: Mapping[str, int] = MappingProxyType({"none": 0, "soft": 1, "hard": 2})
_NAMES = {rank: level for level, rank in LEVELS.items()}


def _ceiling(memory: str, compute: str, fault: str) -> Mapping[str, str]:
    return MappingProxyType({"memory": memory, "compute": compute, "fault": fault})


# The strongest isolation each unit can give, whoever presents it:
# - a whole GPU and a claim of one whole device: nothing else runs on it;
# - a MIG slice: its own memory, SMs and error containment (NVIDIA MIG user guide, "MIG
#   provides ... fault isolation");
# - an AMD partition (an Instinct GPU in a compute/memory partition mode, CPX-NPS4 ...): a
#   logical GPU with its own XCDs (compute) and, under NPS4, its own memory quadrant (AMD Instinct
#   GPU partitioning docs); AMD promises no per-partition error containment, so fault is soft;
# - a vGPU: fixed framebuffer, compute time-sliced by the vGPU scheduler, one GPU reset for all
#   VMs (NVIDIA vGPU software user guide);
# - a memory and compute quota (HAMi-style): an enforced memory limit, a soft share of cores,
#   one device context, so one fault reaches every pod on it;
# - MPS: memory and SM limits per client, one MPS server whose fault hits all clients
#   (k8s-device-plugin README, "MPS ... does not provide fault isolation");
# - a time slice: turns on the device, no memory isolation at all (k8s-device-plugin README).
UNIT_CEILINGS: Mapping[str, Mapping[str, str]] = MappingProxyType(
    {
        "whole_gpu": _ceiling("hard", "hard", "hard"),
        "dra_claim": _ceiling("hard", "hard", "hard"),
        "mig_slice": _ceiling("hard", "hard", "hard"),
        "amd_partition": _ceiling("hard", "hard", "soft"),
        "vgpu": _ceiling("hard", "soft", "soft"),
        "memory_compute_quota": _ceiling("hard", "soft", "none"),
        "mps_share": _ceiling("soft", "soft", "none"),
        "time_slice": _ceiling("none", "soft", "none"),
    }
)
# Units whose parts of one device go to different pods (and so, maybe, to different tenants).
SHARING_UNITS: frozenset[str] = frozenset(
    {"mig_slice", "amd_partition", "vgpu", "memory_compute_quota", "mps_share", "time_slice"}
)
# Hardware partitions, each with the sharing feature (catalog/data/facts/gpus.yaml) a GPU model
# needs for it: MIG on NVIDIA, compute partitions on AMD Instinct.
PARTITION_FEATURES: Mapping[str, str] = MappingProxyType(
    {"mig_slice": "mig", "amd_partition": "amd_compute_partition"}
)
PARTITION_UNITS: frozenset[str] = frozenset(PARTITION_FEATURES)
# The partition unit of each vendor whose partitions the GPU facts describe. Another vendor's
# partitions (Ascend vNPU templates) are not judged against the facts.
VENDOR_PARTITIONS: Mapping[str, str] = MappingProxyType(
    {"nvidia": "mig_slice", "amd": "amd_partition"}
)
# Units that give a pod whole devices.
WHOLE_UNITS: frozenset[str] = frozenset({"whole_gpu", "dra_claim"})


def weakest(levels: Iterable[str]) -> str:
    return _NAMES[min((LEVELS[level] for level in levels), default=LEVELS["hard"])]


def weakest_per_aspect(levels: Iterable[Mapping[str, str]]) -> dict[str, str]:
    """The weakest of several isolations, aspect by aspect ("none" everywhere for none)."""
    levels = list(levels)
    if not levels:
        return dict.fromkeys(ASPECTS, "none")
    return {aspect: weakest(level[aspect] for level in levels) for aspect in ASPECTS}


def unit_isolation(unit: str, promised: Mapping[str, str]) -> dict[str, str]:
    """What `unit` gives, per aspect, when presented by a row promising `promised`."""
    ceiling = UNIT_CEILINGS.get(unit)
    return {
        aspect: weakest((promised.get(aspect, "none"), ceiling[aspect] if ceiling else "none"))
        for aspect in ASPECTS
    }


def units_isolation(units: Iterable[str], promised: Mapping[str, str]) -> dict[str, str]:
    """What a pool giving its work any of `units` guarantees: the weakest of them, per aspect."""
    key = tuple(promised.get(aspect, "none") for aspect in ASPECTS)
    return dict(_units_isolation(frozenset(units), key))


@lru_cache(maxsize=4096)
def _units_isolation(units: frozenset[str], promised: tuple[str, ...]) -> tuple[tuple[str, str]]:
    row = dict(zip(ASPECTS, promised, strict=True))
    given = [unit_isolation(unit, row) for unit in sorted(units) if unit in UNIT_CEILINGS]
    return tuple(weakest_per_aspect(given).items())


def short_of(isolation: Mapping[str, str], demanded: str) -> list[str]:
    """The aspects where `isolation` falls below a demand: "hard" means hard on memory, compute
    and fault; "soft" means at least soft on memory and compute (no fault containment is soft)."""
    if demanded == "hard":
        aspects = ASPECTS
    elif demanded == "soft":
        aspects = ("memory", "compute")
    else:
        return []
    return [a for a in aspects if LEVELS[isolation.get(a, "none")] < LEVELS[demanded]]


def hard_partition(isolation: Mapping[str, str]) -> bool:
    """Hard on memory, compute and fault: what may be shared between tenants that must not see
    each other's data."""
    return not short_of(isolation, "hard")
