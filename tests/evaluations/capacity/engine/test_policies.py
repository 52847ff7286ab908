"""Each policy's choice on hand-built nodes, and the fragmentation measure on a worked example,
per the definitions of Weng et al., "Beware of Fragmentation", USENIX ATC '23 (§4 and §5)."""

from __future__ import annotations

import numpy as np
import pytest

from evaluations.capacity import Node, Task, simulate
from evaluations.capacity.engine.devices import build_devices
from evaluations.capacity.engine.fragmentation import (
    TargetWorkload,
    node_fragmentation,
    target_workload,
)


def node(name, model, gpus=1, cpu=64_000):
    return Node(name=name, gpu_model=model, gpus=gpus, cpu_milli=cpu, memory_mib=262_144)


def task(name, milli, *, gpus=1, cpu=2000, on=None):
    return Task(name=name, gpus=gpus, gpu_milli=milli, cpu_milli=cpu, memory_mib=1024, gpu_type=on)


def where(result, name):
    return next(p[1] for p in result.placements if p[0] == name)


def two_nodes_one_partly_used():
    """Node A's GPU already runs a 400-milli task (pinned by its GPU type), node B is idle;
    then a 500-milli probe, then twenty more 500-milli tasks that make the target workload
    all 500-milli shapes (21 of 22 tasks, above the 95 % cut)."""
    nodes = [node("A", "X"), node("B", "Y")]
    tasks = [task("setup", 400, on="X"), task("probe", 500)]
    tasks += [task(f"later{i}", 500) for i in range(20)]
    return nodes, tasks


def test_fgd_avoids_the_node_where_the_probe_strands_a_gpu_sliver():
    # On A the probe leaves 100 milli no 500-milli task can use (fragmentation +100); on B it
    # leaves 500, which one can (+0). FGD takes the smaller growth: B.
    nodes, tasks = two_nodes_one_partly_used()
    assert where(simulate(nodes, tasks, "fgd", order="given"), "probe") == "B"


@pytest.mark.parametrize("policy", ["bestfit", "packing", "clustering", "dotprod", "firstfit"])
def test_the_packing_policies_put_the_probe_on_the_partly_used_node(policy):
    # Best-fit: least left after placing; packing: a partly used GPU first; clustering: a node
    # already running "share" tasks; dot product: the smaller free-times-request product.
    nodes, tasks = two_nodes_one_partly_used()
    assert where(simulate(nodes, tasks, policy, order="given"), "probe") == "A"


def test_packing_prefers_a_partly_used_gpu_then_a_partly_used_node_then_an_idle_node():
    nodes = [node("idle", "I"), node("busy-node", "N", gpus=2), node("busy-gpu", "G")]
    setup = [task("whole", 1000, on="N"), task("small", 300, on="G")]
    result = simulate(nodes, [*setup, task("probe", 500)], "packing", order="given")
    assert where(result, "probe") == "busy-gpu"
    result = simulate(nodes[:2], [setup[0], task("probe", 500)], "packing", order="given")
    assert where(result, "probe") == "busy-node"


def test_clustering_puts_a_task_with_tasks_of_its_own_shape():
    nodes = [node("shares", "S"), node("wholes", "W", gpus=2)]
    setup = [task("s", 200, on="S"), task("w", 1000, on="W")]
    result = simulate(nodes, [*setup, task("probe-share", 200)], "clustering", order="given")
    assert where(result, "probe-share") == "shares"
    result = simulate(nodes, [*setup, task("probe-whole", 1000)], "clustering", order="given")
    assert where(result, "probe-whole") == "wholes"


def test_best_fit_picks_the_gpu_with_least_left_that_fits_inside_the_node():
    nodes = [node("A", "X", gpus=3)]
    setup = [task("a", 200), task("b", 700), task("c", 500)]  # best-fit puts them on 0, 0, 1
    tasks = [*setup, task("probe", 100)]
    # bestfit's device rule: GPU 0 has 100 left, GPU 1 500, GPU 2 1000: take GPU 0.
    placements = simulate(nodes, tasks, "bestfit", order="given").placements
    assert placements[-1][2] == (0,)


def test_random_places_every_task_that_fits_somewhere():
    nodes = [node(f"n{i}", "X", gpus=2) for i in range(3)]
    result = simulate(nodes, [task(f"t{i}", 1000) for i in range(6)], "random", seed=7)
    assert result.unscheduled == 0
    assert sorted(p[1] for p in result.placements) == ["n0", "n0", "n1", "n1", "n2", "n2"]


def test_a_seed_repeats_its_result_exactly():
    nodes = [node(f"n{i}", "X", gpus=4) for i in range(4)]
    tasks = [task(f"t{i}", 100 * (1 + i % 9)) for i in range(40)]
    first = simulate(nodes, tasks, "random", seed=3, inflation=1.2)
    again = simulate(nodes, tasks, "random", seed=3, inflation=1.2)
    assert first.placements == again.placements
    assert first.alloc_curve == again.alloc_curve


def workload(shapes):
    """A target workload from (cpu, milli, gpus, weight) rows, any GPU model allowed."""
    return TargetWorkload(
        cpu=np.array([s[0] for s in shapes]),
        demand=np.array([s[1] for s in shapes]),
        gpus=np.array([s[2] for s in shapes]),
        weight=np.array([s[3] for s in shapes]),
        access=np.ones((1, len(shapes)), dtype=bool),
        total=sum(s[3] for s in shapes),
    )


def frag_milli(left, cpu_left, target):
    frag = node_fragmentation(np.array([left]), np.array([cpu_left]), np.array([0]), target)
    return frag[0] / target.total


def test_the_fragmentation_of_a_node_on_a_worked_example():
    # §4.1: a task's fragment on a node is the free GPU capacity it cannot use; the node's
    # fragmentation is its expectation over the target workload. A 4-GPU node with
    # (1000, 1000, 500, 200) milli free and 8 cores free; the workload is half 600-milli tasks,
    # half tasks of 3 whole GPUs (each 4 cores).
    # - 600 milli: fits GPU 0 or 1; GPUs with less than 600 free are fragment: 500 + 200 = 700.
    # - 3 whole GPUs: only two GPUs are whole, so all 2,700 free milli are fragment.
    # Expectation: 0.5 x 700 + 0.5 x 2700 = 1700 milli.
    target = workload([(4000, 600, 1, 1), (4000, 1000, 3, 1)])
    assert frag_milli([1000, 1000, 500, 200], 8000, target) == 1700


def test_a_task_that_lacks_cpu_on_the_node_counts_all_its_free_gpu_as_fragment():
    target = workload([(16_000, 600, 1, 1)])
    assert frag_milli([1000, 1000, 500, 200], 8000, target) == 2700
    assert frag_milli([1000, 1000, 500, 200], 16_000, target) == 700


def test_a_cpu_only_task_cannot_use_any_gpu():
    target = workload([(1000, 0, 0, 3), (1000, 500, 1, 1)])
    # CPU tasks: 2,700 each (weight 3); 500-milli tasks: 200 (weight 1) -> (8100 + 200) / 4.
    assert frag_milli([1000, 1000, 500, 200], 8000, target) == 2075


def test_the_target_workload_keeps_the_shapes_that_cover_95_percent_of_tasks():
    devices = build_devices([node("A", "X")], "share")
    tasks = [task(f"a{i}", 500) for i in range(90)] + [task(f"b{i}", 300) for i in range(6)]
    tasks += [task(f"c{i}", 100) for i in range(4)]
    target = target_workload(tasks, devices)
    # 90 + 6 = 96 of 100 tasks reach 95 %: the 100-milli shape is left out.
    assert target.demand.tolist() == [500, 300]
    assert target.weight.tolist() == [90, 6]


def test_fgd_on_mig_puts_a_small_task_on_the_smallest_instance_that_fits():
    # One H100 split 4g + 2g + 1g: a one-slice task on the 4g instance would waste three
    # slices no task can use; FGD counts that waste and takes the 1g instance.
    node_ = Node(
        name="h",
        gpu_model="H100",
        gpus=1,
        cpu_milli=64_000,
        memory_mib=262_144,
        mig_geometry=("4g.40gb", "2g.20gb", "1g.10gb"),
    )
    result = simulate([node_], [task("small", 140)], "fgd", unit="mig_slice")
    assert result.placements[0][2] == (2,)
    assert result.alloc_pct == 14.3


def test_a_long_tailed_workload_keeps_at_most_128_shapes():
    devices = build_devices([node("A", "X")], "share")
    tasks = [task(f"t{i}", 500, cpu=1000 + i) for i in range(1000)]
    assert target_workload(tasks, devices).size == 128
