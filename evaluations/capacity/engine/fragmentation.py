"""The fragmentation measure of Weng et al. (USENIX ATC '23, "Beware of Fragmentation"), §4.

The target workload is the task mix itself: its most popular task shapes (CPU, fraction of a
GPU, GPU count, GPU-type constraint) covering 95 % of the tasks, each weighted by how many tasks
have it. For one node and one shape m, the GPU capacity m cannot use is fragment:
- all the node's free GPU capacity when m asks no GPU, may not use the node's GPU model, lacks
  CPU on the node, or finds fewer devices with enough left than it needs GPUs;
- otherwise the free capacity of the devices with less left than m needs per GPU.
A node's fragmentation is the weighted mean over the shapes. Weights are whole task counts, so
the engine keeps fragmentation times the total weight as an exact integer and compares exactly.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from evaluations.capacity.engine.devices import Devices, demand, type_allows
from evaluations.capacity.engine.shapes import Task

POPULARITY = 0.95  # the shapes kept cover this share of all tasks (the simulator's default, 95 %)
# A long-tailed workload could need thousands of shapes to reach 95 %: keep at most this many
# (the openb default trace needs 35), so one node's measure stays a small array.
MAX_SHAPES = 128
CHUNK_CELLS = 2_000_000  # node states x devices x shapes computed at once (memory bound)


@dataclass(frozen=True, slots=True)
class TargetWorkload:
    """The popular task shapes: per shape its CPU, per-device demand, GPU count and weight."""

    cpu: np.ndarray  # [K]
    demand: np.ndarray  # [K] milli per device (0: asks no GPU)
    gpus: np.ndarray  # [K]
    weight: np.ndarray  # [K] task counts
    access: np.ndarray  # [models, K] whether the shape may use each GPU model
    total: int  # sum of weights

    @property
    def size(self) -> int:
        return len(self.weight)


def shape_of(task: Task) -> tuple[int, int, int, str]:
    """What the target workload tells tasks apart by (memory is not part of the measure)."""
    return (task.cpu_milli, task.gpu_milli if task.gpus else 0, task.gpus, task.gpu_type or "")


def target_workload(tasks: Sequence[Task], devices: Devices) -> TargetWorkload:
    """The shapes of `tasks` that cover 95 % of them, most popular first."""
    counts = Counter(shape_of(task) for task in tasks)
    # Most popular first; equal counts in a fixed order (larger shapes first), so runs repeat.
    ranked = sorted(counts.items(), key=lambda item: (item[1], item[0]), reverse=True)
    wanted = POPULARITY * len(tasks)
    kept: list[tuple[tuple[int, int, int, str], int]] = []
    covered = 0
    for shape, count in ranked:
        if (covered >= wanted and kept) or len(kept) == MAX_SHAPES:
            break
        kept.append((shape, count))
        covered += count
    samples = [
        Task(name="", gpus=g, gpu_milli=milli, cpu_milli=cpu, memory_mib=0, gpu_type=kind or None)
        for (cpu, milli, g, kind), _ in kept
    ]
    return TargetWorkload(
        cpu=np.array([t.cpu_milli for t in samples], dtype=np.int64),
        demand=np.array([demand(t, devices) for t in samples], dtype=np.int64),
        gpus=np.array([t.gpus for t in samples], dtype=np.int64),
        weight=np.array([count for _, count in kept], dtype=np.int64),
        access=np.array(
            [[type_allows(t.gpu_type, model) for t in samples] for model in devices.models],
            dtype=bool,
        ).reshape(len(devices.models), len(samples)),
        total=int(sum(count for _, count in kept)),
    )


def node_fragmentation(
    left: np.ndarray, cpu_left: np.ndarray, model_index: np.ndarray, target: TargetWorkload
) -> np.ndarray:
    """Fragmented milli-GPU times `target.total` of each node state: left [B, D] per device,
    cpu_left [B], model_index [B]. Exact integers."""
    step = max(1, CHUNK_CELLS // max(1, left.shape[1] * target.size))
    if len(left) > step:
        return np.concatenate(
            [
                _fragmentation(
                    left[i : i + step], cpu_left[i : i + step], model_index[i : i + step], target
                )
                for i in range(0, len(left), step)
            ]
        )
    return _fragmentation(left, cpu_left, model_index, target)


def _fragmentation(
    left: np.ndarray, cpu_left: np.ndarray, model_index: np.ndarray, target: TargetWorkload
) -> np.ndarray:
    free = left.sum(axis=1)  # [B]
    fits = left[:, :, None] >= target.demand[None, None, :]  # [B, D, K]
    hosts = fits.sum(axis=1) >= target.gpus[None, :]  # [B, K]
    stranded = np.where(fits, 0, left[:, :, None]).sum(axis=1)  # [B, K]
    usable = (
        hosts
        & (cpu_left[:, None] >= target.cpu[None, :])
        & target.access[model_index]
        & (target.demand > 0)[None, :]
    )
    per_shape = np.where(usable, stranded, free[:, None])  # [B, K]
    return per_shape @ target.weight
