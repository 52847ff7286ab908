"""Replay a workload on a cluster with one policy: the experiment of the FGD paper (§6.1).

Tasks arrive one by one (shuffled by the seed, in the order given, or by arrival time) and,
as in the paper, are never removed — unless departures are asked for: then tasks arrive at their
`arrival` and leave at `arrival + duration` (those without a duration stay). No preemption, no
retries either way. Before the replay the workload can be tuned to a target
GPU demand ("inflation", 1.3 in the paper): tasks sampled at random from the workload are cloned
until the next one would pass inflation x the cluster's GPU capacity, or tasks dropped at random
until the demand fits under it. After each task the engine records the GPU demand arrived so far
(placed or not), the GPU capacity held by tasks and the fragmented capacity; a curve's value at
x % is the mean over the tasks whose arrived demand rounds to x % of capacity (x ± 1 % when none
does), as the paper's analysis scripts compute Fig. 9.
"""

from __future__ import annotations

import heapq
import random
import time
from collections.abc import Sequence

import numpy as np

from evaluations.capacity.engine.devices import (
    build_devices,
    check_task,
    demand,
    profile_index,
    type_allows,
)
from evaluations.capacity.engine.fragmentation import node_fragmentation, target_workload
from evaluations.capacity.engine.policies import (
    FgdScorer,
    Request,
    bestfit_scores,
    clustering_scores,
    devices_for,
    dotprod_scores,
    packing_scores,
)
from evaluations.capacity.engine.shapes import (
    MILLI,
    POLICIES,
    CapacityError,
    Node,
    Result,
    Task,
)

CURVE_PERCENTS = 131  # 0 … 130 % of the cluster's GPU capacity
MAX_TASKS = 500_000  # after inflation: beyond this a replay is refused, not attempted
SCORERS = {
    "bestfit": bestfit_scores,
    "dotprod": dotprod_scores,
    "packing": packing_scores,
    "clustering": clustering_scores,
}
DEVICE_CHOICE = {"random": "random", "firstfit": "first"}  # others: "best" (fgd: its own)


class ClusterState:
    """What is left on every node while a replay runs."""

    def __init__(self, devices, target, rank: list[int] | None = None):
        self.devices, self.target = devices, target
        self.left = devices.capacity.copy()
        self.cpu_left = devices.cpu.copy()
        self.memory_left = devices.memory.copy()
        self.free = self.left.sum(axis=1)
        self.affinity = np.zeros((len(self.free), self.left.shape[1] + 1), dtype=np.int64)
        self.version = np.zeros(len(self.free), dtype=np.int64)
        self.fragmentation = self._fragmentation(np.arange(len(self.free)))
        self.held = 0  # milli-GPU held by tasks, all nodes
        # Equal scores go to the node ranked first: the order of ties among equal scores.
        self.rank = np.array(rank if rank is not None else range(len(self.free)), dtype=np.int64)

    def _fragmentation(self, nodes: np.ndarray) -> np.ndarray:
        if len(nodes) == 1:
            return node_fragmentation(
                self.left[nodes], self.cpu_left[nodes], self.devices.model_index[nodes], self.target
            )
        rows = np.column_stack(
            (self.devices.model_index[nodes], self.cpu_left[nodes], self.left[nodes])
        )
        unique, inverse = np.unique(rows, axis=0, return_inverse=True)
        frag = node_fragmentation(unique[:, 2:], unique[:, 1], unique[:, 0], self.target)
        return frag[inverse.reshape(-1)]

    def usable(self, task: Request, nodes: np.ndarray | None = None) -> np.ndarray:
        """What is left on each device the task may take (0 on the others): every device, or
        under MIG for a task that names its profile, only the instances of that profile."""
        left = self.left if nodes is None else self.left[nodes]
        if task.profile < 0:
            return left
        profile = self.devices.profile if nodes is None else self.devices.profile[nodes]
        return np.where(profile == task.profile, left, 0)

    def feasible(self, task: Request) -> np.ndarray:
        """Indexes of the nodes that can take `task` now."""
        ok = (self.cpu_left >= task.cpu) & (self.memory_left >= task.memory)
        ok &= task.allowed[self.devices.model_index]
        if task.gpus:
            usable = self.usable(task)
        if task.gpus == 1:
            ok &= (usable >= task.demand).any(axis=1)
        elif task.gpus > 1:
            ok &= (usable >= task.demand).sum(axis=1) >= task.gpus
        return np.flatnonzero(ok)

    def place(self, node: int, task: Request, devices: tuple[int, ...]) -> tuple[int, ...]:
        """Give the task its devices on `node`; returns the milli taken from each device."""
        takes = tuple(
            int(self.left[node, d]) if self.devices.exclusive else task.demand for d in devices
        )
        self._change(node, task, devices, takes, -1)
        return takes

    def release(self, node: int, task: Request, devices: tuple[int, ...], takes) -> None:
        """Give back what `place` took: the task has left."""
        self._change(node, task, devices, takes, +1)

    def _change(self, node, task, devices, takes, sign: int) -> None:
        self.cpu_left[node] += sign * task.cpu
        self.memory_left[node] += sign * task.memory
        for device, take in zip(devices, takes, strict=True):
            self.left[node, device] += sign * take
            self.free[node] += sign * take
            self.held -= sign * take
        if task.tag >= 0:
            self.affinity[node, min(task.tag, self.affinity.shape[1] - 1)] -= sign
        self.version[node] += 1
        self.fragmentation[node] = self._fragmentation(np.array([node]))[0]


def _order(tasks: Sequence[Task], order: str, rng: random.Random) -> list[int]:
    indexes = list(range(len(tasks)))
    if order == "shuffle":
        rng.shuffle(indexes)
    elif order == "arrival":
        indexes.sort(key=lambda i: (tasks[i].arrival is None, tasks[i].arrival or 0.0, i))
    elif order != "given":
        raise CapacityError(f"unknown order {order!r}; known: shuffle, given, arrival")
    return indexes


def _tune(
    tasks: Sequence[Task], indexes: list[int], target: float, rng: random.Random
) -> list[tuple[int, int]]:
    """(task index, clone number) in replay order, the GPU demand tuned to `target` milli."""
    sequence = [(i, 0) for i in indexes]
    total = sum(tasks[i].gpu_demand for i in indexes)
    if total > target:
        while total > target and sequence:
            i, _ = sequence.pop(rng.randrange(len(sequence)))
            total -= tasks[i].gpu_demand
        return sequence
    if not any(task.gpu_demand for task in tasks):
        return sequence
    clone = 0
    while True:
        i = rng.randrange(len(tasks))
        if total + tasks[i].gpu_demand > target:
            return sequence
        clone += 1
        if len(sequence) >= MAX_TASKS:
            raise CapacityError(f"inflation makes more than {MAX_TASKS:,} tasks; lower it")
        sequence.append((i, clone))
        total += tasks[i].gpu_demand


def _curve(arrived: np.ndarray, values: np.ndarray) -> list[float | None]:
    percent = np.round(arrived).astype(np.int64)
    curve: list[float | None] = []
    for x in range(CURVE_PERCENTS):
        exact = values[percent == x]
        if not len(exact):
            exact = values[(percent >= x - 1) & (percent <= x + 1)]
        if not len(exact) and x == 0:
            exact = np.array([0.0])
        curve.append(round(float(exact.mean()), 2) if len(exact) else None)
    return curve


def simulate(
    nodes: Sequence[Node],
    tasks: Sequence[Task],
    policy: str,
    *,
    seed: int = 0,
    inflation: float | None = None,
    unit: str = "share",
    replicas: int = 1,
    order: str = "shuffle",
    departures: bool = False,
) -> Result:
    """Replay `tasks` on `nodes` with `policy`; see the package docstring for the contract."""
    started = time.perf_counter()
    if policy not in POLICIES:
        raise CapacityError(f"unknown policy {policy!r}; known: {', '.join(POLICIES)}")
    devices = build_devices(nodes, unit, replicas=replicas)
    for task in tasks:
        check_task(task)
    if inflation is not None and not 0 < inflation <= 10:
        raise CapacityError(f"inflation must be a number in (0, 10], got {inflation!r}")
    if departures:
        _check_departures(tasks, order, inflation)
    rng = random.Random(seed)  # noqa: S311 -- a replay seed, not a secret
    indexes = _order(tasks, order, rng)
    capacity = devices.total_gpus * MILLI
    sequence = (
        _tune(tasks, indexes, inflation * capacity, rng)
        if inflation is not None and tasks
        else [(i, 0) for i in indexes]
    )
    # Equal scores go to the node ranked first in an order drawn once per seed: the paper's
    # simulator prefixes node names with a random permutation and takes the smallest name.
    rank = list(range(len(nodes)))
    rng.shuffle(rank)
    state = ClusterState(devices, target_workload(tasks, devices), rank)
    requests = [_request(task, devices) for task in tasks]
    fgd = FgdScorer(state) if policy == "fgd" else None
    how = DEVICE_CHOICE.get(policy, "best")

    count = len(sequence)
    arrived_at = np.zeros(count)
    held_at = np.zeros(count)
    frag_at = np.zeros(count)
    arrived = 0
    placements: list[tuple[str, str, tuple[int, ...]]] = []
    placed_at: list[int] = []
    unplaced: list[int] = []
    running = 0  # milli-GPU asked for by the tasks placed and not gone
    leaving: list[tuple[float, int, int, tuple[int, ...], tuple[int, ...]]] = []
    for step, (i, clone) in enumerate(sequence):
        task, request = tasks[i], requests[i]
        while departures and leaving and leaving[0][0] <= task.arrival:
            _, gone, node, chosen, takes = heapq.heappop(leaving)
            state.release(node, requests[sequence[gone][0]], chosen, takes)
            running -= tasks[sequence[gone][0]].gpu_demand
        arrived += task.gpu_demand
        nodes_ok = state.feasible(request)
        if len(nodes_ok):
            node, chosen = _choose(state, request, nodes_ok, policy, how, fgd, rng)
            takes = state.place(node, request, chosen)
            running += task.gpu_demand
            if departures and task.duration is not None:
                end = task.arrival + task.duration
                heapq.heappush(leaving, (end, step, node, chosen, takes))
            name = task.name if not clone else f"{task.name}-clone-{clone}"
            placements.append((name, devices.names[node], chosen))
            placed_at.append(step)
        else:
            unplaced.append(step)
        arrived_at[step] = arrived
        held_at[step] = state.held
        frag_at[step] = state.fragmentation.sum()
    scale = 100.0 / capacity if capacity else 0.0
    per_weight = 1.0 / state.target.total if state.target.total else 0.0
    frag_scale = scale * per_weight
    result = Result(
        policy=policy,
        unit=devices.unit,
        seed=seed,
        total_gpus=devices.total_gpus,
        tasks=count,
        alloc_curve=_curve(arrived_at * scale, held_at * scale),
        frag_curve=_curve(arrived_at * scale, frag_at * frag_scale),
        unscheduled=len(unplaced),
        unscheduled_tasks=[_name(tasks, sequence[s]) for s in unplaced],
        placements=placements,
        alloc_pct=round(state.held * scale, 2),
        requested_pct=round(running * scale, 2),
        frag_pct=round(float(frag_at[-1] * frag_scale), 2) if count else 0.0,
        per_tenant=_per_tenant(tasks, sequence, placed_at),
        per_pool=_per_pool(state, per_weight),
    )
    result.seconds = round(time.perf_counter() - started, 3)
    return result


def _check_departures(tasks: Sequence[Task], order: str, inflation: float | None) -> None:
    """Departures replay the tasks' own times: arrival order, no clones, every arrival known."""
    if order != "arrival":
        raise CapacityError("departures replay tasks in arrival order: pass order='arrival'")
    if inflation is not None:
        raise CapacityError("departures replay the tasks' own times: no inflation with them")
    for task in tasks:
        if task.arrival is None:
            raise CapacityError(f"task {task.name!r}: departures need every task's arrival")
        if task.duration is not None and task.duration < 0:
            raise CapacityError(f"task {task.name!r}: duration must be >= 0")


def _name(tasks: Sequence[Task], item: tuple[int, int]) -> str:
    i, clone = item
    return tasks[i].name if not clone else f"{tasks[i].name}-clone-{clone}"


def _request(task: Task, devices) -> Request:
    # A GPU-type constraint binds GPU tasks only (the simulator's filter skips CPU tasks).
    allowed = np.array(
        [not task.gpus or type_allows(task.gpu_type, model) for model in devices.models]
    )
    need = demand(task, devices)
    profile = profile_index(task, devices)
    key = (task.cpu_milli, need, task.gpus, task.gpu_type or "", profile)
    return Request(
        cpu=task.cpu_milli,
        memory=task.memory_mib,
        gpus=task.gpus,
        demand=need,
        milli=task.gpu_milli,
        allowed=allowed,
        key=key,
        profile=profile,
    )


def _choose(state, request, nodes_ok, policy, how, fgd, rng) -> tuple[int, tuple[int, ...]]:
    """The node and devices `policy` gives the task, ties among nodes broken by `rng`."""
    if policy == "firstfit":
        node = int(nodes_ok[0])
    elif policy == "random":
        node = int(nodes_ok[rng.randrange(len(nodes_ok))])
    else:
        if fgd is not None:
            scores, choice = fgd.scores(request, nodes_ok)
        else:
            scores = SCORERS[policy](state, request, nodes_ok)
        best = np.flatnonzero(scores == scores.max())
        pick = int(best[np.argmin(state.rank[nodes_ok[best]])]) if len(best) > 1 else int(best[0])
        node = int(nodes_ok[pick])
        if fgd is not None:
            chosen = (
                (int(choice[pick]),)
                if request.share
                else devices_for(state, node, request, "first", rng)
            )
            return node, chosen
    return node, devices_for(state, node, request, how, rng)


def _per_tenant(tasks, sequence, placed_at) -> dict[str, dict[str, float | int]]:
    placed = set(placed_at)
    figures: dict[str, dict[str, float | int]] = {}
    for step, (i, _) in enumerate(sequence):
        task = tasks[i]
        row = figures.setdefault(
            task.tenant or "",
            {"tasks": 0, "placed": 0, "unscheduled": 0, "gpu_milli": 0, "gpu_milli_placed": 0},
        )
        row["tasks"] += 1
        row["gpu_milli"] += task.gpu_demand
        if step in placed:
            row["placed"] += 1
            row["gpu_milli_placed"] += task.gpu_demand
        else:
            row["unscheduled"] += 1
    return figures


def _per_pool(state: ClusterState, per_weight: float) -> dict[str, dict[str, float | int]]:
    figures: dict[str, dict[str, float | int]] = {}
    pools = np.array(state.devices.pools)
    held = (state.devices.capacity - state.left).sum(axis=1)
    for pool in sorted(set(state.devices.pools)):
        members = pools == pool
        gpus = int(state.devices.gpus[members].sum())
        milli = gpus * MILLI
        figures[pool] = {
            "nodes": int(members.sum()),
            "gpus": gpus,
            "alloc_pct": round(100.0 * held[members].sum() / milli, 2) if milli else 0.0,
            "frag_pct": round(100.0 * state.fragmentation[members].sum() * per_weight / milli, 2)
            if milli
            else 0.0,
        }
    return figures
