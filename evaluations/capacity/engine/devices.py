"""How each data-plane unit turns a node's GPUs into devices, and a task's request into a demand.

Every unit is replayed on one model: a node holds devices, each with a capacity in milli-GPU
(1000 = one whole GPU); a task asks for `gpus` devices that each have `demand` milli left.
- memory_compute_quota (HAMi-style, the paper's "GPU sharing"): a device is a GPU; a task takes
  exactly its fraction (`gpu_milli`) of one GPU, any number of tasks share a GPU up to 1000.
- whole_gpu: a device is a GPU and a task holds all of it, whatever fraction it asked for
  (its demand is rounded up to 1000).
- time_slice, mps_share and amd_partition with N replicas (partitions): a device is a GPU cut
  into N equal slots (an AMD compute partition is one, the GPU's compute partition mode gives
  N: 8 under CPX on an MI300X); a task takes
  as many whole slots as cover its fraction (N must divide 1000 so slots are whole milli).
- mig_slice: a device is a MIG instance of the node's fixed geometry (the same on every GPU of
  the node, valid per the GPU facts); a task holds one whole instance with at least the compute
  slices its fraction needs, or, when it names a MIG profile (as a pod of the mixed strategy
  asks for nvidia.com/mig-<profile>), an instance of exactly that profile. Capacity left
  outside the instances is stranded by the geometry.
Tasks of more than one GPU, or of a whole GPU, need devices with a whole GPU free.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from catalog.engine.gpus import gpu_model_find, mig_layout_valid
from evaluations.capacity.engine.shapes import (
    MILLI,
    SLOT_UNITS,
    UNIT_ALIASES,
    UNITS,
    CapacityError,
    Node,
    Task,
)

# Units whose devices go to one task at a time, whatever the task's fraction: a MIG instance
# serves one task however small (whole_gpu rounds demands up to a whole GPU instead).
EXCLUSIVE_UNITS = ("mig_slice",)


def unit_name(unit: str) -> str:
    """The canonical unit for `unit` ("share" is the paper's name for a memory + compute quota)."""
    name = UNIT_ALIASES.get(unit, unit)
    if name not in UNITS:
        known = ", ".join((*UNITS, *UNIT_ALIASES))
        raise CapacityError(f"unknown unit {unit!r}; known: {known}")
    return name


@dataclass(frozen=True, slots=True)
class Devices:
    """The cluster as arrays, one row per node: capacity per device (0 pads short rows)."""

    unit: str
    exclusive: bool
    replicas: int
    mig_slices: int  # compute slices of one GPU under MIG (7 on A100/H100), 0 otherwise
    names: tuple[str, ...]
    pools: tuple[str, ...]
    models: tuple[str, ...]
    model_index: np.ndarray  # [N] index into `models`
    cpu: np.ndarray  # [N] milli-cores
    memory: np.ndarray  # [N] MiB
    capacity: np.ndarray  # [N, D] milli-GPU per device
    gpus: np.ndarray  # [N] physical GPUs
    # MIG only: the profiles of the instances, and each device's index into them (-1: none).
    profiles: tuple[str, ...] = ()
    profile: np.ndarray | None = None  # [N, D]
    profile_milli: tuple[int, ...] = ()  # capacity of an instance of each profile

    @property
    def total_gpus(self) -> int:
        return int(self.gpus.sum())


def _check_node(node: Node) -> None:
    for field in ("gpus", "cpu_milli", "memory_mib"):
        value = getattr(node, field)
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise CapacityError(
                f"node {node.name!r}: {field} must be an integer >= 0, got {value!r}"
            )
    if node.gpus > 64:
        raise CapacityError(f"node {node.name!r}: {node.gpus} GPUs; at most 64 per node")


def _mig_instances(node: Node) -> tuple[list[int], int]:
    """The compute slices of each MIG instance on one GPU of `node`, and the GPU's slices."""
    model = gpu_model_find(node.gpu_model)
    if model is None or not model.has_mig:
        raise CapacityError(f"node {node.name!r}: GPU model {node.gpu_model!r} has no MIG")
    geometry = tuple(node.mig_geometry or ())
    if not geometry:
        raise CapacityError(f"node {node.name!r}: the mig_slice unit needs a mig_geometry")
    if not mig_layout_valid(model, geometry):
        raise CapacityError(
            f"node {node.name!r}: MIG geometry {', '.join(geometry)} is not valid on {model.name}"
        )
    slices = max(profile.compute_slices for profile in model.mig_profiles)
    return [model.mig_profile(name).compute_slices for name in geometry], slices


def build_devices(nodes: Sequence[Node], unit: str, *, replicas: int = 1) -> Devices:
    """The devices of `nodes` under `unit`; CapacityError names the node at fault."""
    unit = unit_name(unit)
    if not nodes:
        raise CapacityError("no nodes to place tasks on")
    if unit in SLOT_UNITS and (
        isinstance(replicas, bool) or not isinstance(replicas, int) or replicas < 1
    ):
        raise CapacityError(f"replicas must be an integer >= 1, got {replicas!r}")
    if unit in SLOT_UNITS and MILLI % replicas:
        raise CapacityError(f"replicas must divide 1000 (2, 4, 5, 8, 10 …), got {replicas}")
    seen: set[str] = set()
    rows: list[list[int]] = []
    named: list[list[str]] = []  # MIG: each device's profile
    milli_of: dict[str, int] = {}
    slices_seen: set[int] = set()
    for node in nodes:
        _check_node(node)
        if node.name in seen:
            raise CapacityError(f"node {node.name!r} is listed twice")
        seen.add(node.name)
        if unit == "mig_slice" and node.gpus:
            instances, slices = _mig_instances(node)
            slices_seen.add(slices)
            per_gpu = [round(s * MILLI / slices) for s in instances]
            rows.append(per_gpu * node.gpus)
            named.append(list(node.mig_geometry or ()) * node.gpus)
            milli_of.update(zip(node.mig_geometry or (), per_gpu, strict=True))
        else:
            rows.append([MILLI] * node.gpus)
            named.append([])
    if len(slices_seen) > 1:
        raise CapacityError("MIG nodes of one replay must have GPUs with the same slice count")
    width = max(1, max(len(row) for row in rows))
    capacity = np.zeros((len(rows), width), dtype=np.int64)
    for i, row in enumerate(rows):
        capacity[i, : len(row)] = row
    models = tuple(sorted({node.gpu_model for node in nodes}))
    profiles = tuple(sorted(milli_of))
    profile = np.full((len(rows), width), -1, dtype=np.int64)
    for i, names in enumerate(named):
        profile[i, : len(names)] = [profiles.index(name) for name in names]
    return Devices(
        unit=unit,
        exclusive=unit in EXCLUSIVE_UNITS,
        replicas=replicas if unit in SLOT_UNITS else 1,
        mig_slices=slices_seen.pop() if slices_seen else 0,
        names=tuple(node.name for node in nodes),
        pools=tuple(node.pool or "" for node in nodes),
        models=models,
        model_index=np.array([models.index(node.gpu_model) for node in nodes], dtype=np.int64),
        cpu=np.array([node.cpu_milli for node in nodes], dtype=np.int64),
        memory=np.array([node.memory_mib for node in nodes], dtype=np.int64),
        capacity=capacity,
        gpus=np.array([node.gpus for node in nodes], dtype=np.int64),
        profiles=profiles,
        profile=profile,
        profile_milli=tuple(milli_of[name] for name in profiles),
    )


def check_task(task: Task) -> None:
    """CapacityError when `task` asks for something no unit can mean."""
    for field in ("gpus", "gpu_milli", "cpu_milli", "memory_mib"):
        value = getattr(task, field)
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise CapacityError(
                f"task {task.name!r}: {field} must be an integer >= 0, got {value!r}"
            )
    if task.gpus and not 1 <= task.gpu_milli <= MILLI:
        raise CapacityError(
            f"task {task.name!r}: gpu_milli must be 1 … 1000 for a GPU task, got {task.gpu_milli}"
        )
    if task.gpus > 1 and task.gpu_milli != MILLI:
        raise CapacityError(f"task {task.name!r}: a task of {task.gpus} GPUs takes whole GPUs")
    if not task.gpus and task.gpu_milli:
        raise CapacityError(f"task {task.name!r}: gpu_milli without GPUs")
    if task.mig_profile is not None and not task.gpus:
        raise CapacityError(f"task {task.name!r}: a MIG profile without GPUs")


def profile_index(task: Task, devices: Devices) -> int:
    """Which instances the task may take: -1 any (it names no profile, or the unit is not MIG),
    else the index of its profile; a profile no node has gets an index no device carries."""
    if task.mig_profile is None or not devices.mig_slices:
        return -1
    if task.mig_profile in devices.profiles:
        return devices.profiles.index(task.mig_profile)
    return len(devices.profiles)


def demand(task: Task, devices: Devices) -> int:
    """Milli-GPU a device must have left to take one of `task`'s GPUs, under the unit."""
    if not task.gpus:
        return 0
    milli = task.gpu_milli
    named = profile_index(task, devices)
    if 0 <= named < len(devices.profiles):
        return devices.profile_milli[named]  # the whole instance of its profile
    if named >= 0:
        return MILLI  # no node has its profile: no device is usable (ClusterState.usable)
    if task.gpus > 1 or milli >= MILLI or devices.unit == "whole_gpu":
        return MILLI
    if devices.replicas > 1:
        slot = MILLI // devices.replicas
        return math.ceil(milli / slot) * slot
    if devices.mig_slices:  # the smallest instance (as build_devices sizes it) that holds it
        per = devices.mig_slices
        return next(
            round(s * MILLI / per) for s in range(1, per + 1) if round(s * MILLI / per) >= milli
        )
    return milli


def type_allows(constraint: str | None, model: str) -> bool:
    """Whether a task with GPU-type `constraint` ("A|B", empty or None: any) may use `model`."""
    wanted = [name for name in (constraint or "").split("|") if name]
    return not wanted or model in wanted
