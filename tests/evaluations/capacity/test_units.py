"""Each data-plane unit's allocation semantics on hand-computed cases (evaluations.capacity)."""

from __future__ import annotations

import pytest

from evaluations.capacity import CapacityError, Node, Task, simulate


def gpu_node(name="n1", *, gpus=1, model="T4", geometry=None, pool=None):
    return Node(
        name=name,
        gpu_model=model,
        gpus=gpus,
        cpu_milli=64_000,
        memory_mib=262_144,
        pool=pool,
        mig_geometry=geometry,
    )


def tasks_of(count, milli, *, gpus=1, prefix="t"):
    return [
        Task(name=f"{prefix}{i}", gpus=gpus, gpu_milli=milli, cpu_milli=1000, memory_mib=1024)
        for i in range(count)
    ]


def test_a_quota_sharing_gpu_packs_four_quarter_tasks():
    # HAMi-style quota: each task holds exactly its fraction, four quarters fill one GPU.
    result = simulate([gpu_node()], tasks_of(4, 250), "firstfit", unit="memory_compute_quota")
    assert result.unscheduled == 0
    assert result.alloc_pct == 100.0
    assert result.requested_pct == 100.0


def test_a_fifth_quarter_task_does_not_fit_a_full_quota_gpu():
    result = simulate([gpu_node()], tasks_of(5, 250), "firstfit", unit="share")
    assert result.unscheduled == 1


def test_whole_gpu_gives_each_fractional_task_a_whole_gpu():
    # One GPU, four quarter tasks: the first holds the GPU, three wait; 75 % of it idles.
    result = simulate([gpu_node()], tasks_of(4, 250), "firstfit", unit="whole_gpu")
    assert result.unscheduled == 3
    assert result.alloc_pct == 100.0
    assert result.requested_pct == 25.0


def test_time_slicing_with_four_replicas_fits_four_quarter_tasks_and_no_fifth():
    result = simulate(
        [gpu_node()], tasks_of(5, 250), "firstfit", unit="time_slice", replicas=4, order="given"
    )
    assert result.unscheduled == 1
    assert result.unscheduled_tasks == ["t4"]


def test_time_slicing_rounds_a_task_up_to_whole_replicas():
    # 300 milli needs two of four 250-milli replicas: two such tasks fill the GPU.
    result = simulate([gpu_node()], tasks_of(3, 300), "firstfit", unit="time_slice", replicas=4)
    assert result.unscheduled == 1
    assert result.alloc_pct == 100.0
    assert result.requested_pct == 60.0


def test_mps_replicas_must_divide_a_gpu_into_whole_milli():
    with pytest.raises(CapacityError, match="replicas must divide 1000"):
        simulate([gpu_node()], tasks_of(1, 250), "firstfit", unit="mps_share", replicas=3)


def test_mig_three_g_twice_strands_what_small_demands_cannot_use():
    # A100-40GB split 3g.20gb + 3g.20gb (NVIDIA MIG user guide: 7 compute slices). A 1g.5gb-sized
    # demand (1/7 of the GPU) must take a whole 3g instance: two such tasks fill the GPU, a
    # third waits, though the tasks asked for 2/7 of it. Held: 2 x 3/7 = 85.71 %.
    node = gpu_node(model="A100 40GB", geometry=("3g.20gb", "3g.20gb"))
    result = simulate([node], tasks_of(3, 142), "firstfit", unit="mig_slice")
    assert result.unscheduled == 1
    assert result.alloc_pct == 85.8  # 429 + 429 milli: each 3g instance rounds 3/7 to 429
    assert result.requested_pct == 28.4


def test_mig_one_g_seven_times_fits_seven_small_demands():
    node = gpu_node(model="A100 40GB", geometry=("1g.5gb",) * 7)
    result = simulate([node], tasks_of(8, 142), "firstfit", unit="mig_slice")
    assert result.unscheduled == 1


def test_mig_a_whole_gpu_task_needs_a_full_gpu_instance():
    split = gpu_node("split", model="A100 40GB", geometry=("3g.20gb", "3g.20gb"))
    whole = gpu_node("whole", model="A100 40GB", geometry=("7g.40gb",))
    result = simulate([split, whole], tasks_of(1, 1000), "firstfit", unit="mig_slice")
    assert result.placements[0][1] == "whole"


def test_mig_geometry_must_be_valid_for_the_model():
    node = gpu_node(model="A100 40GB", geometry=("4g.20gb", "4g.20gb"))
    with pytest.raises(CapacityError, match="not valid"):
        simulate([node], tasks_of(1, 100), "firstfit", unit="mig_slice")


def test_mig_needs_a_model_with_mig():
    with pytest.raises(CapacityError, match="has no MIG"):
        simulate([gpu_node(model="T4", geometry=("1g.5gb",))], [], "firstfit", unit="mig_slice")


def test_a_multi_gpu_task_needs_that_many_whole_gpus_on_one_node():
    nodes = [gpu_node("a", gpus=2), gpu_node("b", gpus=2)]
    tasks = tasks_of(2, 500, prefix="half") + tasks_of(1, 1000, gpus=2, prefix="pair")
    result = simulate(nodes, tasks, "firstfit", order="given")
    # Both halves share a GPU of node a; the pair takes node b's two GPUs.
    assert [p[1] for p in result.placements] == ["a", "a", "b"]
    assert result.placements[2][2] == (0, 1)


def test_a_gpu_type_constraint_keeps_a_task_off_other_models():
    nodes = [gpu_node("t4", model="T4"), gpu_node("v100", model="V100M32")]
    task = Task(
        name="x", gpus=1, gpu_milli=1000, cpu_milli=1, memory_mib=1, gpu_type="V100M16|V100M32"
    )
    result = simulate(nodes, [task], "firstfit")
    assert result.placements[0][1] == "v100"


@pytest.mark.parametrize(
    ("task", "message"),
    [
        (Task(name="neg", gpus=1, gpu_milli=-5, cpu_milli=1, memory_mib=1), "gpu_milli"),
        (Task(name="cpu", gpus=0, gpu_milli=0, cpu_milli=-1, memory_mib=1), "cpu_milli"),
        (Task(name="two", gpus=2, gpu_milli=500, cpu_milli=1, memory_mib=1), "whole GPUs"),
        (Task(name="big", gpus=1, gpu_milli=1500, cpu_milli=1, memory_mib=1), "1 … 1000"),
    ],
)
def test_bad_tasks_are_refused_naming_the_task(task, message):
    with pytest.raises(CapacityError, match=message) as caught:
        simulate([gpu_node()], [task], "firstfit")
    assert repr(task.name) in str(caught.value)


def test_per_tenant_and_per_pool_figures_add_up():
    nodes = [gpu_node("a", pool="mig"), gpu_node("b", pool="shared")]
    tasks = [
        Task(name=f"t{i}", gpus=1, gpu_milli=600, cpu_milli=1, memory_mib=1, tenant=f"team-{i % 2}")
        for i in range(3)
    ]
    result = simulate(nodes, tasks, "firstfit", order="given")
    assert result.per_tenant["team-0"] == {
        "tasks": 2,
        "placed": 1,
        "unscheduled": 1,
        "gpu_milli": 1200,
        "gpu_milli_placed": 600,
    }
    assert result.per_pool["mig"]["alloc_pct"] == 60.0
    assert result.per_pool["shared"]["gpus"] == 1
