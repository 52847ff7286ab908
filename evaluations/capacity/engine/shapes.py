"""What the capacity engine takes and gives: nodes, tasks, the result of one replay, its error."""

from __future__ import annotations

from dataclasses import dataclass, field

# One GPU is 1,000 milli-GPU, the unit of the Alibaba trace and of the FGD paper.
MILLI = 1000

# How a data-plane unit hands a GPU to tasks (DESIGN's resource units that carry capacity).
UNITS = (
    "whole_gpu",
    "mig_slice",
    "memory_compute_quota",
    "time_slice",
    "mps_share",
    "amd_partition",
)
# Units that cut each GPU into `replicas` equal slots: time-slicing and MPS replicas, and AMD
# compute partitions (CPX: 8 per MI300X, each a logical GPU of its own).
SLOT_UNITS = ("time_slice", "mps_share", "amd_partition")
# "share" is the paper's own model, a fraction of one GPU: the same as a memory + compute quota.
UNIT_ALIASES = {"share": "memory_compute_quota"}

POLICIES = ("fgd", "bestfit", "packing", "clustering", "dotprod", "random", "firstfit")


class CapacityError(ValueError):
    """Input the engine cannot replay: the message names the node, task or value at fault."""


@dataclass(frozen=True, slots=True)
class Node:
    """A GPU node: its model, GPU count, CPU (milli-cores) and memory (MiB).

    `mig_geometry` lists the MIG profiles every GPU of the node is split into (one GPU's
    layout, e.g. ("3g.20gb", "3g.20gb")); it is used, and required, by the mig_slice unit only.
    """

    name: str
    gpu_model: str
    gpus: int
    cpu_milli: int
    memory_mib: int
    pool: str | None = None
    mig_geometry: tuple[str, ...] | None = None


@dataclass(frozen=True, slots=True)
class Task:
    """A task (a pod): `gpus` GPUs, each `gpu_milli` of one GPU (1000 = the whole GPU).

    A task with gpus == 1 and gpu_milli < 1000 shares a GPU; with gpus > 1 it takes whole GPUs.
    `gpu_type` is a constraint: None, or model names separated by "|" ("V100M16|V100M32").
    """

    name: str
    gpus: int
    gpu_milli: int
    cpu_milli: int
    memory_mib: int
    gpu_type: str | None = None
    tenant: str | None = None
    workload: str | None = None
    arrival: float | None = None
    duration: float | None = None
    # Under mig_slice: the MIG profile the pod names (nvidia.com/mig-<profile>, the mixed
    # strategy); it takes only an instance of that profile. None: any instance with the compute
    # slices its fraction needs (the single strategy's nvidia.com/gpu).
    mig_profile: str | None = None

    @property
    def gpu_demand(self) -> int:
        """The milli-GPU this task asks for in all: what "arrived GPU demand" adds up."""
        return self.gpus * self.gpu_milli


@dataclass(slots=True)
class Result:
    """One replay. Curves hold one value per percent of arrived GPU demand, 0 … 130 % of the
    cluster's GPU capacity (None where the workload never reached that demand)."""

    policy: str
    unit: str
    seed: int
    total_gpus: int
    tasks: int
    alloc_curve: list[float | None]
    frag_curve: list[float | None]
    unscheduled: int
    unscheduled_tasks: list[str]
    # Per placed task, in replay order: (task name, node name, device indexes on the node).
    placements: list[tuple[str, str, tuple[int, ...]]]
    alloc_pct: float  # GPU capacity held by tasks at the end, % of all GPUs
    requested_pct: float  # GPU demand of the placed tasks at the end, % of all GPUs
    frag_pct: float  # fragmented GPU capacity at the end, % of all GPUs (the paper's measure)
    per_tenant: dict[str, dict[str, float | int]] = field(default_factory=dict)
    per_pool: dict[str, dict[str, float | int]] = field(default_factory=dict)
    seconds: float = 0.0

    def value_at(self, percent: int, curve: str = "alloc") -> float | None:
        """The allocation (or fragmentation) curve's value at `percent` arrived demand."""
        values = self.alloc_curve if curve == "alloc" else self.frag_curve
        return values[percent] if 0 <= percent < len(values) else None

    def as_dict(self, *, with_placements: bool = False) -> dict:
        """A JSON-ready dict (the `simulate --json` shape)."""
        data = {
            "policy": self.policy,
            "unit": self.unit,
            "seed": self.seed,
            "total_gpus": self.total_gpus,
            "tasks": self.tasks,
            "alloc_curve": self.alloc_curve,
            "frag_curve": self.frag_curve,
            "alloc_at_100": self.value_at(100),
            "frag_at_100": self.value_at(100, "frag"),
            "unscheduled": self.unscheduled,
            "alloc_pct": self.alloc_pct,
            "requested_pct": self.requested_pct,
            "frag_pct": self.frag_pct,
            "per_tenant": self.per_tenant,
            "per_pool": self.per_pool,
            "seconds": self.seconds,
        }
        if with_placements:
            data["placements"] = [list(p[:2]) + [list(p[2])] for p in self.placements]
        return data
