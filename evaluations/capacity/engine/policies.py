"""The scheduling policies of the FGD paper (Weng et al., ATC '23, §5 and §6.1), scored on every
node that can take the task at once.

Each policy gives each feasible node an integer score; the task goes to a node of the highest
score, ties going to the node ranked first in an order drawn once per seed (the paper's
simulator names nodes with a random prefix and takes the smallest name among equals), then to
devices on that node by the policy's own rule. Scores follow the definitions the paper's
simulator uses, computed in exact integers:
- bestfit: least CPU and GPU left after placing (each normalised by 128 cores / 8 GPUs, 50/50);
- dotprod: smallest dot product of the node's free (CPU, GPU) and the task's request, same norms;
- packing: partly used GPUs first, then GPUs of partly used nodes, then idle nodes;
- clustering: nodes already running tasks of the same GPU shape ("share", "1-gpu", "2-gpu" …);
- random: any feasible node, any device that fits;
- fgd: the node, and the GPU inside it, whose fragmentation grows least (measured against the
  workload's popular task shapes, see fragmentation.py), through the paper's sigmoid; on MIG
  the part of an instance a smaller task leaves unused counts as fragment too;
- firstfit (not in the paper): the first feasible node in the order given, the first device.
Devices inside the node: "best" (the device with least left that fits) for bestfit, dotprod,
packing and clustering; whole-GPU and multi-GPU tasks take the lowest-numbered free GPUs.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass

import numpy as np

from evaluations.capacity.engine.fragmentation import CHUNK_CELLS, node_fragmentation
from evaluations.capacity.engine.shapes import MILLI

MAX_CPU = 128_000  # the simulator's normalisers: the largest node spec, 128 cores …
MAX_GPU = 8 * MILLI  # … and 8 GPUs
# FGD's score is int(100 * sigmoid(x)); it is k exactly when x >= ln(k / (100 - k)). Comparing
# against these thresholds gives the same integers with no rounding of exp near the edges.
FGD_THRESHOLDS = np.array([math.log(k / (100 - k)) for k in range(1, 100)])
DEDUPLICATE_FROM = 64  # nodes to rescore at once before looking for repeated states pays
SHARE_TAG = 0  # clustering's shape column for tasks sharing a GPU; column g is "g-gpu"


def _trunc_div(num: np.ndarray, den: int) -> np.ndarray:
    """Integer division toward zero, as Go's int64 conversion truncates."""
    return np.where(num >= 0, num // den, -((-num) // den))


def fgd_quantize(delta: np.ndarray, total: int) -> np.ndarray:
    """int(100 * sigmoid(delta milli-GPU / 1000)) for fragmentation deltas kept times `total`."""
    x = delta / (total * 1000.0)
    return np.searchsorted(FGD_THRESHOLDS, x, side="right").astype(np.int64)


@dataclass(frozen=True, slots=True)
class Request:
    """One task as the policies see it under the unit: what it needs from a node."""

    cpu: int
    memory: int
    gpus: int
    demand: int  # milli a device must have left, per GPU, under the unit
    milli: int  # the task's own per-GPU share (clustering tells shapes apart by it)
    allowed: np.ndarray  # [models] the GPU models its type constraint accepts
    key: tuple  # what FGD's scores depend on: (cpu, demand, gpus, type constraint, profile)
    profile: int = -1  # MIG: the only instances it may take (devices.profile_index); -1 any

    @property
    def share(self) -> bool:
        """Whether the task takes part of one device (else whole devices, or none)."""
        return self.gpus == 1 and self.demand < MILLI

    @property
    def tag(self) -> int:
        """Clustering's shape column: -1 none, SHARE_TAG a shared GPU, g for g whole GPUs."""
        if not self.gpus:
            return -1
        return SHARE_TAG if self.gpus == 1 and self.milli < MILLI else self.gpus


def best_device(left_row: np.ndarray, need: int) -> int:
    """The device with least left that still fits `need` (the first of equals)."""
    masked = np.where(left_row >= need, left_row, np.iinfo(np.int64).max)
    return int(np.argmin(masked))


def first_devices(left_row: np.ndarray, need: int, count: int) -> tuple[int, ...]:
    """The `count` lowest-numbered devices with at least `need` left."""
    return tuple(int(i) for i in np.flatnonzero(left_row >= need)[:count])


def devices_for(state, node: int, task: Request, how: str, rng: random.Random) -> tuple[int, ...]:
    """The devices of `node` the task takes: "best", "first" or "random" for a shared device."""
    row = state.usable(task, np.array([node]))[0]
    if not task.gpus:
        return ()
    if not task.share:
        return first_devices(row, task.demand, task.gpus)
    if how == "best":
        return (best_device(row, task.demand),)
    fitting = np.flatnonzero(row >= task.demand)
    if how == "random" and len(fitting) > 1:
        return (int(fitting[rng.randrange(len(fitting))]),)
    return (int(fitting[0]),)


def bestfit_scores(state, task: Request, nodes: np.ndarray) -> np.ndarray:
    cpu_after = state.cpu_left[nodes] - task.cpu
    gpu_after = state.free[nodes] - task.demand * task.gpus
    num = 100 * MAX_CPU * MAX_GPU - 50 * MAX_GPU * cpu_after - 50 * MAX_CPU * gpu_after
    return _trunc_div(num, MAX_CPU * MAX_GPU)


def dotprod_scores(state, task: Request, nodes: np.ndarray) -> np.ndarray:
    ratio = (MAX_CPU // MAX_GPU) ** 2  # 256: both terms over MAX_CPU squared
    dot = state.cpu_left[nodes] * task.cpu + ratio * state.free[nodes] * task.demand * task.gpus
    return _trunc_div(100 * MAX_CPU * MAX_CPU - 50 * dot, MAX_CPU * MAX_CPU)


def packing_scores(state, task: Request, nodes: np.ndarray) -> np.ndarray:
    if not task.gpus:
        return np.zeros(len(nodes), dtype=np.int64)
    left, cap = state.left[nodes], state.devices.capacity[nodes]
    whole = (left == cap) & (cap > 0)
    count = whole.sum(axis=1)
    idle_node = count == (cap > 0).sum(axis=1)
    if task.share:
        usable = state.usable(task, nodes)
        masked = np.where(usable >= task.demand, left, np.iinfo(np.int64).max)
        pick = np.argmin(masked, axis=1)
        picked_left = masked[np.arange(len(nodes)), pick]
        picked_whole = whole[np.arange(len(nodes)), pick]
        partial = np.maximum(100 - (picked_left * 100 // MILLI) // 10, 50)
        used = np.where(picked_whole, np.maximum(50 - 1, 33), partial)
    else:  # whole GPUs come only from fully free devices
        used = np.full(len(nodes), max(50 - task.gpus, 33), dtype=np.int64)
    return np.where(idle_node, np.maximum(33 - count, count), used)


def clustering_scores(state, task: Request, nodes: np.ndarray) -> np.ndarray:
    if not task.gpus:
        return np.zeros(len(nodes), dtype=np.int64)
    base = _trunc_div(25 * (MAX_GPU - state.free[nodes]), MAX_GPU)
    shapes = state.affinity[nodes]
    kinds = (shapes > 0).sum(axis=1)
    same = shapes[:, task.tag] > 0
    bonus = np.where(same, np.where(kinds == 1, 75, 50), np.where(kinds == 0, 25, 0))
    return base + bonus


class FgdScorer:
    """FGD's node scores per task shape, recomputed only for nodes changed since last asked."""

    def __init__(self, state):
        self.state = state
        self.cache: dict[tuple, tuple[np.ndarray, np.ndarray, np.ndarray]] = {}
        width = state.left.shape[1]
        self.eye = np.eye(width, dtype=np.int64)

    def scores(self, task: Request, nodes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Scores of `nodes` (feasible for the task) and the device each would use (-1: none)."""
        state = self.state
        n = len(state.cpu_left)
        entry = self.cache.get(task.key)
        if entry is None:
            entry = (
                np.zeros(n, dtype=np.int64),
                np.full(n, -1, dtype=np.int64),
                np.full(n, -1, dtype=np.int64),
            )
            self.cache[task.key] = entry
        score, device, seen = entry
        stale = nodes[seen[nodes] != state.version[nodes]]
        if len(stale):
            score[stale], device[stale] = self._compute(task, stale)
            seen[stale] = state.version[stale]
        return score[nodes], device[nodes]

    def _compute(self, task: Request, nodes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        state = self.state
        target = state.target
        width = state.left.shape[1]
        rows = np.column_stack(
            (state.devices.model_index[nodes], state.cpu_left[nodes], state.left[nodes])
        )
        if task.profile >= 0:  # the instances it may take are part of the node's state for it
            rows = np.column_stack((rows, state.usable(task, nodes)))
        if len(nodes) > DEDUPLICATE_FROM:
            # Nodes in the same state score the same: compute each distinct state once.
            unique, inverse = np.unique(rows, axis=0, return_inverse=True)
            inverse = inverse.reshape(-1)
        else:
            unique, inverse = rows, np.arange(len(nodes))
        model, cpu, left = unique[:, 0], unique[:, 1], unique[:, 2 : 2 + width]
        usable = unique[:, 2 + width :] if task.profile >= 0 else left
        before = node_fragmentation(left, cpu, model, target)
        cpu_after = cpu - task.cpu
        if task.share:
            b, d = left.shape
            fits = usable >= task.demand
            take = left if state.devices.exclusive else np.full_like(left, task.demand)
            frag = np.empty((b, d), dtype=np.int64)
            step = max(1, CHUNK_CELLS // (d * d * max(1, target.size)))
            for i in range(0, b, step):  # in chunks: [states, D, D] grows with D squared
                part = slice(i, i + step)
                after = left[part, None, :] - self.eye[None, :, :] * take[part, :, None]
                n = len(after)
                frag[part] = node_fragmentation(
                    after.reshape(n * d, d),
                    np.repeat(cpu_after[part], d),
                    np.repeat(model[part], d),
                    target,
                ).reshape(n, d)
            if state.devices.exclusive:
                # A MIG instance held by a smaller task wastes the rest of it: no other task
                # can use that part either, so FGD counts it as fragment (the paper's
                # definition; its simulator has no exclusive devices).
                frag += (left - task.demand).clip(min=0) * target.total
            per_device = np.where(fits, fgd_quantize(before[:, None] - frag, target.total), -1)
            best = np.argmax(per_device, axis=1)
            scores = per_device[np.arange(b), best]
            devices = best
        else:
            after = left
            if task.gpus:
                fits = usable >= task.demand
                take = fits & (np.cumsum(fits, axis=1) <= task.gpus)
                after = left - np.where(take, task.demand, 0)
            frag = node_fragmentation(after, cpu_after, model, target)
            scores = fgd_quantize(before - frag, target.total)
            devices = np.full(len(unique), -1, dtype=np.int64)
        return scores[inverse], devices[inverse]
