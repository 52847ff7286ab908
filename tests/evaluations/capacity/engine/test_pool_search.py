"""Sizing a pool by replaying: node counts and MIG geometries (evaluations.capacity.engine)."""

from __future__ import annotations

import time

from evaluations.capacity import (
    Node,
    Task,
    best_mig_geometry,
    mig_geometries,
    nodes_needed,
    simulate,
)

H100 = Node(name="h100", gpu_model="H100", gpus=8, cpu_milli=192_000, memory_mib=2_097_152)


def quarter_tasks(count):
    return [
        Task(name=f"t{i}", gpus=1, gpu_milli=250, cpu_milli=4000, memory_mib=16_384)
        for i in range(count)
    ]


def test_sixty_four_quarter_gpu_tasks_need_two_eight_gpu_nodes_under_a_quota():
    # 64 x 0.25 GPU = 16 GPUs = two 8-GPU nodes when four tasks share each GPU.
    count, result = nodes_needed(H100, quarter_tasks(64), unit="memory_compute_quota")
    assert count == 2
    assert result.unscheduled == 0


def test_the_same_tasks_need_eight_nodes_on_whole_gpus():
    count, _ = nodes_needed(H100, quarter_tasks(64), unit="whole_gpu")
    assert count == 8


def test_when_even_the_largest_pool_is_short_it_says_so():
    count, result = nodes_needed(H100, quarter_tasks(64), unit="whole_gpu", max_nodes=3)
    assert count == 3
    assert result.unscheduled == 64 - 24


def test_the_a100_has_the_maximal_mig_geometries_of_the_nvidia_guide():
    # NVIDIA MIG user guide, A100 40GB: one 7g, 4g + 3g, 3g + 3g, seven 1g are all valid and
    # leave no room for another instance.
    geometries = mig_geometries("A100 40GB")
    for layout in [("7g.40gb",), ("4g.20gb", "3g.20gb"), ("3g.20gb", "3g.20gb"), ("1g.5gb",) * 7]:
        assert layout in geometries
    assert ("3g.20gb",) not in geometries  # another 3g still fits beside it
    assert mig_geometries("T4") == []


def test_the_best_mig_geometry_for_one_seventh_tasks_is_seven_small_instances():
    tasks = [
        Task(name=f"s{i}", gpus=1, gpu_milli=140, cpu_milli=1, memory_mib=1) for i in range(56)
    ]
    geometry, result = best_mig_geometry(H100, 1, tasks, policy="bestfit")
    # Seven one-slice instances (which 1g memory size does not matter: memory is not modelled).
    assert len(geometry) == 7
    assert all(name.startswith("1g.") for name in geometry)
    assert result.unscheduled == 0


def test_a_pool_of_24_nodes_and_a_few_hundred_tasks_replays_well_under_a_second():
    nodes = [H100.__class__(**{**_fields(H100), "name": f"h{i}"}) for i in range(24)]
    tasks = [
        Task(
            name=f"t{i}",
            gpus=1,
            gpu_milli=(100, 250, 500, 1000)[i % 4],
            cpu_milli=4000,
            memory_mib=16_384,
        )
        for i in range(400)
    ]
    for policy in ("fgd", "bestfit", "random"):
        started = time.perf_counter()
        simulate(nodes, tasks, policy)
        assert time.perf_counter() - started < 1.0, policy


def _fields(node):
    return {f: getattr(node, f) for f in node.__slots__}
