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


def test_the_allocation_curve_reads_each_percent_of_arrived_demand():
    # Four quarter-GPU tasks on one GPU: after each, demand and allocation are 25, 50, 75, 100 %.
    # A percent no task lands on takes the tasks within one percent (the paper's scripts), and
    # stays empty beyond that; the demand never passes 100 %, so 101 … 130 are empty too.
    result = simulate([gpu_node()], tasks_of(4, 250), "firstfit", order="given")
    curve = result.alloc_curve
    assert len(curve) == 131
    assert (curve[25], curve[50], curve[75], curve[100]) == (25.0, 50.0, 75.0, 100.0)
    assert curve[26] == 25.0
    assert curve[30] is None
    assert curve[102] is None
    assert result.value_at(100) == 100.0


def test_inflation_clones_tasks_until_the_demand_reaches_the_target():
    # 2 GPUs, tasks of 0.5 GPU: 130 % of 2,000 milli is 2,600, so five tasks arrive (2,500)
    # and the sixth would pass it; four fit, one is unscheduled.
    nodes = [gpu_node(gpus=2)]
    result = simulate(nodes, tasks_of(2, 500), "bestfit", inflation=1.3, seed=5)
    assert result.tasks == 5
    assert result.unscheduled == 1


def test_inflation_below_the_demand_drops_tasks_at_random():
    result = simulate([gpu_node(gpus=2)], tasks_of(8, 500), "bestfit", inflation=1.0, seed=5)
    assert result.tasks == 4
    assert result.unscheduled == 0


def timed(name, arrival, duration=None, milli=1000):
    return Task(
        name=name,
        gpus=1,
        gpu_milli=milli,
        cpu_milli=1000,
        memory_mib=1024,
        arrival=arrival,
        duration=duration,
    )


def test_with_departures_a_gpu_freed_at_time_t_takes_the_task_arriving_at_t():
    # a holds the only GPU from 0 to 10; b arrives at 5 and finds it taken; c arrives at 10,
    # when a leaves, and gets it.
    tasks = [timed("a", 0, 10), timed("b", 5), timed("c", 10)]
    result = simulate([gpu_node()], tasks, "fgd", order="arrival", departures=True)
    assert result.unscheduled_tasks == ["b"]
    assert [p[0] for p in result.placements] == ["a", "c"]
    assert result.alloc_pct == 100.0  # c still runs at the end


def test_without_departures_tasks_stay_placed():
    tasks = [timed("a", 0, 10), timed("b", 5), timed("c", 10)]
    result = simulate([gpu_node()], tasks, "fgd", order="arrival")
    assert result.unscheduled_tasks == ["b", "c"]


def test_departures_free_a_shared_gpu_slice_by_slice():
    tasks = [timed("a", 0, 5, 600), timed("b", 1, None, 400), timed("c", 6, None, 600)]
    result = simulate([gpu_node()], tasks, "bestfit", order="arrival", departures=True)
    assert result.unscheduled == 0
    assert result.requested_pct == 100.0


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"order": "shuffle"}, "arrival order"),
        ({"order": "arrival", "inflation": 1.3}, "no inflation"),
    ],
)
def test_departures_replay_the_tasks_own_times(options, message):
    with pytest.raises(CapacityError, match=message):
        simulate([gpu_node()], [timed("a", 0, 1)], "fgd", departures=True, **options)


def test_departures_need_every_arrival():
    tasks = [timed("a", 0, 1), tasks_of(1, 500)[0]]
    with pytest.raises(CapacityError, match="'t0': departures need every task's arrival"):
        simulate([gpu_node()], tasks, "fgd", order="arrival", departures=True)
