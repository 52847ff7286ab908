"""Capacity sizing of recommended stacks (evaluations.capacity.sizing and .outcome) against
hand-computed expectations: nodes, quotas, MIG layouts valid for the model, and what each unit
does to a mix whose answer can be worked out on paper."""

from __future__ import annotations

import time
from collections import Counter

import pytest

from catalog.engine.gpus import gpu_model_find, mig_layout_valid
from catalog.engine.profile import Profile
from catalog.engine.workload_mix import WORKLOADS, MixEntry
from evaluations.capacity.outcome import capacity_outcome, stack_outcome
from evaluations.capacity.sizing import (
    Cluster,
    cluster_of,
    largest_remainder,
    mig_geometry,
    mig_profile_for,
    mix_of,
    size_pools,
    stack_policy,
)

H100 = gpu_model_find("H100")


def stack(*pools: tuple[str, list[str], list[str], str], rows=("x/y",)) -> dict:
    """A recommendation's dict with pools (name, units, workloads, tenant sharing)."""
    return {
        "rank": 1,
        "shape": "C" if len(pools) > 1 else "B",
        "rows": list(rows),
        "pools": {name: list(rows) for name, *_rest in pools},
        "pool_details": {
            name: {"units": units, "workloads": kinds, "tenant_sharing": sharing}
            for name, units, kinds, sharing in pools
        },
    }


def board(tenants: int = 6, nodes: int = 24) -> Cluster:
    return Cluster(model=H100, model_text="H100", nodes=nodes, gpus_per_node=8, tenants=tenants)


def test_largest_remainder_shares_whole_numbers_that_add_up():
    assert largest_remainder(192, [1] * 6) == [32] * 6
    assert largest_remainder(24, [3, 1]) == [18, 6]
    assert largest_remainder(10, [1, 1, 1]) == [4, 3, 3]  # the tie goes to the first
    assert largest_remainder(5, [100, 0, 0], minimum=1) == [3, 1, 1]


def test_24_nodes_of_8_h100_and_six_tenants_give_quotas_of_32_that_sum_to_192():
    mix = [MixEntry(workload="training", tasks=100, gpus=1)]  # spread over all six tenants
    shared = stack(("shared", ["memory_compute_quota"], ["training"], "across_tenants"))

    (pool,) = size_pools(shared, board(), mix)

    assert (pool.nodes, pool.gpus) == (24, 192)
    assert pool.quotas == {f"tenant-{n}": 32 for n in range(1, 7)}
    assert sum(pool.quotas.values()) == 192


def test_nodes_go_to_pools_in_proportion_to_the_gpus_their_work_asks():
    # Training asks 30 x 8 = 240 GPUs, inference 320 x 0.25 = 80: three to one, so 18 and 6.
    mix = [
        MixEntry(workload="training", tasks=30, gpus=8),
        MixEntry(workload="online_inference", tasks=320, gpu_milli=250),
    ]
    split = stack(
        ("training", ["whole_gpu"], ["training"], "none"),
        ("inference", ["memory_compute_quota"], ["online_inference"], "across_tenants"),
    )

    training, inference = size_pools(split, board(), mix)

    assert (training.nodes, inference.nodes) == (18, 6)
    assert (training.gpus, inference.gpus) == (144, 48)
    assert sum(training.quotas.values()) == 144 and sum(inference.quotas.values()) == 48


def test_a_tenants_own_work_sets_its_quota():
    # Tenant 1 asks 3 GPUs for every GPU tenant 2 asks: 48 GPUs share out 36 and 12.
    mix = [
        MixEntry(tenant=1, workload="batch", tasks=30, gpu_milli=1000),
        MixEntry(tenant=2, workload="batch", tasks=10, gpu_milli=1000),
    ]
    shared = stack(("shared", ["whole_gpu"], ["batch"], "across_tenants"))

    (pool,) = size_pools(shared, board(tenants=2, nodes=6), mix)

    assert pool.quotas == {"tenant-1": 36, "tenant-2": 12}


def test_a_pool_of_one_tenant_each_gives_each_tenant_whole_nodes():
    mix = [MixEntry(workload="online_inference", tasks=60, gpu_milli=500)]
    per_tenant = stack(("inference", ["mig_slice"], ["online_inference"], "within_tenant"))

    (pool,) = size_pools(per_tenant, board(tenants=6, nodes=12), mix)

    assert pool.per_tenant_nodes
    assert pool.quotas == {f"tenant-{n}": 16 for n in range(1, 7)}  # 2 nodes x 8 GPUs each
    assert [len(layouts) for _tenant, layouts in pool.partitions] == [2] * 6


@pytest.mark.parametrize(
    ("milli", "gpus", "layout"),
    [
        (140, 1, ("1g.10gb",) * 7),  # one compute slice of seven: seven per GPU
        (400, 1, ("3g.40gb", "3g.40gb")),  # ceil(0.4 x 7) = 3 slices: two 3g per GPU
        (1000, 8, ("7g.80gb",)),  # whole GPUs: the full-GPU profile
    ],
)
def test_a_mig_pool_gets_the_layout_its_tasks_fit_and_it_is_valid_for_h100(milli, gpus, layout):
    mix = [MixEntry(workload="online_inference", tasks=50, gpus=gpus, gpu_milli=milli)]

    geometry = mig_geometry(H100, mix, nodes=4, gpus_per_node=8)

    assert geometry == [(4, layout)]
    assert mig_layout_valid(H100, layout)


def test_every_layout_of_a_mixed_pool_is_valid_for_h100_and_covers_its_nodes():
    mix = [
        MixEntry(workload="online_inference", tasks=100, gpu_milli=470),
        MixEntry(workload="online_inference", tasks=60, gpu_milli=650),
        MixEntry(workload="interactive", tasks=80, gpu_milli=250),
    ]
    pool = stack(
        ("inference", ["mig_slice"], ["online_inference", "interactive"], "across_tenants")
    )

    (sized,) = size_pools(pool, board(), mix)

    assert sized.unit == "mig_slice"
    assert sum(nodes for nodes, _layout in sized.mig_geometry) == 24
    assert all(mig_layout_valid(H100, layout) for _nodes, layout in sized.mig_geometry)


def test_a_mig_pool_on_a_model_without_mig_is_replayed_as_whole_gpus_and_says_so():
    cluster = Cluster(model=gpu_model_find("L40S"), model_text="L40S", nodes=4, gpus_per_node=8,
                      tenants=1)  # fmt: skip
    pool = stack(("inference", ["mig_slice"], ["online_inference"], "across_tenants"))

    (sized,) = size_pools(pool, cluster, [MixEntry(workload="online_inference", tasks=5)])

    assert sized.unit == "whole_gpu"
    assert sized.mig_geometry is None
    assert "no MIG geometry" in sized.notes[0]


def test_the_stacks_placement_helper_picks_the_policy_and_says_why():
    assert stack_policy(["volcano/scheduler"])[0] == "bestfit"
    assert "Volcano's binpack plugin" in stack_policy(["volcano/scheduler"])[1]
    assert "no placement helper" in stack_policy(["kueue/controller"])[1]


def test_a_profile_without_nodes_or_with_too_many_tenants_cannot_be_sized():
    with pytest.raises(ValueError, match="how many GPU nodes"):
        cluster_of(Profile.from_dict({"gpu_model": "H100"}))
    with pytest.raises(ValueError, match="at most 256 tenants"):
        cluster_of(Profile.from_dict({"node_count": 4, "tenant_count": 257}))


# ---- the outcome: what a unit does to a mix worked out on paper ---------------------------------

QUARTERS = [MixEntry(workload="online_inference", tasks=1, gpu_milli=250)]


def test_whole_gpus_hold_a_gpu_per_quarter_task_so_only_a_quarter_of_the_work_is_placed():
    """2 nodes x 8 GPUs = 16 GPUs. Tasks of 0.25 GPU arrive until they ask 100 % (64 tasks):
    the first 16 take a whole GPU each (25 % of the GPUs' worth of work), the other 48 wait."""
    whole = stack(("shared", ["whole_gpu"], ["online_inference"], "across_tenants"))

    outcome = stack_outcome(whole, board(tenants=1, nodes=2), QUARTERS)

    assert outcome["alloc_at_100"] == 25.0
    assert outcome["held_at_100"] == 100.0
    assert (outcome["tasks"], outcome["unplaced"]) == (64, 48)


def test_a_memory_compute_quota_packs_four_quarter_tasks_per_gpu_and_places_all_of_them():
    quota = stack(("shared", ["memory_compute_quota"], ["online_inference"], "across_tenants"))

    outcome = stack_outcome(quota, board(tenants=1, nodes=2), QUARTERS)

    assert outcome["alloc_at_100"] == 100.0
    assert (outcome["tasks"], outcome["unplaced"]) == (64, 0)
    assert outcome["frag_at_100"] == 0.0
    # Four quarters fill every GPU whatever the policy: FGD cannot do better, nor worse.
    assert outcome["fgd"] == {"alloc_at_100": 100.0, "frag_at_100": 0.0, "unplaced": 0}


def test_mig_strands_what_its_fixed_instances_round_up():
    """Quarter tasks need ceil(0.25 x 7) = 2 compute slices: each names a 2g.20gb instance (the
    mixed strategy) and asks for all of it, round(2000 / 7) = 286 milli; three per GPU, the
    seventh slice goes to a 1g.10gb no quarter task names. Work arrives until it asks 100 % of
    16 GPUs: 56 tasks (55 x 286 = 15,730 milli, the 56th passes 16,000). 16 GPUs hold 48 of
    them: 48 x 286 = 13,728 milli = 85.8 % placed, and held, since each holds what it asked;
    the 1g.10gb instances (16 x 143 milli, 14.3 %) are stranded; 8 tasks wait."""
    mig = stack(("shared", ["mig_slice"], ["online_inference"], "across_tenants"))

    outcome = stack_outcome(mig, board(tenants=1, nodes=2), QUARTERS)

    (pool,) = outcome["pools"]
    assert pool["mig_geometry"] == [{"nodes": 2, "layout": ["2g.20gb", "2g.20gb", "2g.20gb",
                                                             "1g.10gb"]}]  # fmt: skip
    assert outcome["alloc_at_100"] == 85.8
    assert outcome["held_at_100"] == 85.8
    assert (outcome["tasks"], outcome["unplaced"]) == (56, 8)


def test_the_whole_outcome_is_the_same_for_the_same_input():
    profile = Profile.from_dict(
        {"gpu_model": "H100", "node_count": 24, "tenant_count": 6,
         "workload_types": ["training", "online_inference", "interactive"]}
    )  # fmt: skip
    recommendations = [
        stack(
            ("training", ["whole_gpu"], ["training"], "none"),
            ("inference", ["mig_slice"], ["online_inference", "interactive"], "within_tenant"),
        )
    ]

    first = capacity_outcome(profile, recommendations)
    second = capacity_outcome(profile, recommendations)

    first.pop("seconds"), second.pop("seconds")
    assert first == second
    assert first["mix_source"] == "default"
    per_tenant = first["stacks"][0]["per_tenant"]
    assert sum(t["quota"] for t in per_tenant.values()) == 192
    assert Counter(t["quota"] for t in per_tenant.values()).total() == 6


def test_a_hundred_thousand_nodes_and_256_tenants_are_sized_and_replayed_in_seconds():
    """The largest step 1 allows to be sized: bounded replays and reused partitions keep the
    job far inside its time limit (docs/capacity-sizing.md, "Bounds")."""
    profile = Profile.from_dict(
        {"gpu_model": "H100", "node_count": 100_000, "tenant_count": 256,
         "workload_types": ["training", "online_inference", "interactive"]}
    )  # fmt: skip
    per_tenant = stack(
        ("training", ["whole_gpu"], ["training"], "none"),
        ("inference", ["mig_slice"], ["online_inference", "interactive"], "within_tenant"),
    )

    started = time.perf_counter()
    outcome = capacity_outcome(profile, [per_tenant] * 5)

    assert time.perf_counter() - started < 60
    pools = outcome["stacks"][0]["pools"]
    assert sum(pool["nodes"] for pool in pools) == 100_000
    assert sum(t["quota"] for t in outcome["stacks"][0]["per_tenant"].values()) == 800_000
    inference = size_pools(per_tenant, cluster_of(profile), mix_of(profile)[0])[1]
    assert all(mig_layout_valid(H100, layout) for _nodes, layout in inference.mig_geometry)


H200 = gpu_model_find("H200")


def test_a_task_that_needs_more_memory_than_the_smallest_instance_names_a_larger_one():
    """H200 (NVIDIA MIG User Guide, supported profiles): 1g.18gb and 1g.35gb both have one
    compute slice. A tenth of a GPU needing 30 GB of memory fits only 1g.35gb, four per GPU (each
    takes two of the eight memory slices). One node of 8 GPUs: 32 instances of round(1000 / 7)
    = 143 milli. Work arrives until it asks 100 %: 56 tasks (55 x 143 = 7,865 milli); 32 are
    placed, 32 x 143 = 4,576 milli = 57.2 % placed and held; 24 wait."""
    notebooks = [MixEntry(workload="online_inference", tasks=1, gpu_milli=100, memory_gb=30)]
    cluster = Cluster(model=H200, model_text="H200", nodes=1, gpus_per_node=8, tenants=1)
    mig = stack(("shared", ["mig_slice"], ["online_inference"], "across_tenants"))

    assert mig_profile_for(H200, 100).name == "1g.18gb"  # by compute alone
    assert mig_profile_for(H200, 100, memory_gb=30).name == "1g.35gb"
    assert mig_profile_for(H200, 100, memory_gb=60).name == "3g.71gb"
    outcome = stack_outcome(mig, cluster, notebooks)

    (pool,) = outcome["pools"]
    assert pool["mig_geometry"] == [{"nodes": 1, "layout": ["1g.35gb"] * 4}]
    assert (outcome["tasks"], outcome["unplaced"]) == (56, 24)
    assert outcome["alloc_at_100"] == outcome["held_at_100"] == 57.2


def test_h200_for_200_tenants_holds_what_it_places():
    """The issue 40 case: 200 tenants on 32 H200 nodes, inference and notebooks on one MIG pool.
    Before, tasks took any instance with enough slices (a 4-slice task in a 7g.141gb) and held
    76.7 % while placing 49.9 %. Each task now names the profile its share needs, so what is held
    is what was asked: held - placed <= 2 points. Placed is bounded by the instances the mix
    names: the 3g.71gb instances of the 4g.71gb + 3g.71gb nodes serve only the two 370-milli
    tasks of the mix, so at most 100 % - 17 x 8 x 3/7 of 256 GPUs (22.8 %) can be placed."""
    profile = Profile.from_dict(
        {"gpu_model": "H200", "node_count": 32, "gpus_per_node": 8, "tenant_count": 200,
         "workload_types": ["online_inference", "interactive"]}
    )  # fmt: skip
    mix, _source = mix_of(profile)
    mig = stack(("shared", ["mig_slice"], ["online_inference", "interactive"], "across_tenants"))

    outcome = stack_outcome(mig, cluster_of(profile), mix)

    (pool,) = outcome["pools"]
    assert {"nodes": 17, "layout": ["4g.71gb", "3g.71gb"]} in pool["mig_geometry"]
    assert outcome["held_at_100"] - outcome["alloc_at_100"] <= 2.0
    assert outcome["alloc_at_100"] <= 100 - 100 * 17 * 8 * 3 / 7 / 256 + 0.5
    assert outcome["alloc_at_100"] > 60.0  # not the 49.9 % of tasks squatting larger instances


def _warnings(outcome) -> list[str]:
    (pool,) = outcome["pools"]
    return [note for note in pool["notes"] if "of the work that arrived" in note]


def test_work_for_another_gpu_model_is_named_with_the_node_group_to_add():
    """An H100 + L40S fleet entered as H100 only: inference asks for L40S, nothing places it."""
    l40s = [MixEntry(workload="online_inference", tasks=1, gpu_milli=1000, gpu_types=("l40s",))]
    whole = stack(("shared", ["whole_gpu"], ["online_inference"], "across_tenants"))

    outcome = stack_outcome(whole, board(tenants=1, nodes=2), l40s)

    assert outcome["alloc_at_100"] == 0.0
    (warning,) = _warnings(outcome)
    assert warning.startswith("places 0.0 % of the work that arrived; 16 of 16 tasks wait")
    assert "asks for l40s and its nodes are H100" in warning
    assert "node group" in warning


def test_mig_layouts_that_strand_a_profile_say_how_much():
    # QUARTERS on H100: 2g.20gb x 3 + 1g.10gb per GPU; no task names 1g.10gb: 1/7 = 14.3 % of
    # the GPUs offered for 0 % of the work.
    mig = stack(("shared", ["mig_slice"], ["online_inference"], "across_tenants"))

    (warning,) = _warnings(stack_outcome(mig, board(tenants=1, nodes=2), QUARTERS))

    assert "8 of 56 tasks wait" in warning
    assert "1g.10gb: 14.3 / 0.0" in warning


def test_whole_gpus_for_fractional_work_is_named_as_the_cause():
    whole = stack(("shared", ["whole_gpu"], ["online_inference"], "across_tenants"))

    (warning,) = _warnings(stack_outcome(whole, board(tenants=1, nodes=2), QUARTERS))

    assert "48 of 64 tasks wait" in warning
    assert "gives each task a whole GPU, and 100.0 % of its tasks ask for part of one" in warning
    assert "fewer than the work asks" not in warning


def test_too_few_gpus_is_the_cause_when_nothing_else_is():
    # Tasks of 3 whole GPUs on 2 nodes of 8: two fit a node (6 GPUs), 2 GPUs a node stay
    # free. By 100 % of the GPUs six tasks have arrived (the sixth starts at 15 of 16); four
    # are placed, two wait, and no other cause applies.
    triples = [MixEntry(workload="training", tasks=1, gpus=3, gpu_milli=1000)]
    whole = stack(("shared", ["whole_gpu"], ["training"], "across_tenants"))

    (warning,) = _warnings(stack_outcome(whole, board(tenants=1, nodes=2), triples))

    assert "2 of 6 tasks wait" in warning
    assert "its 16 GPUs are fewer than the work asks" in warning


def test_a_pool_that_places_all_its_work_has_no_warning():
    quota = stack(("shared", ["memory_compute_quota"], ["online_inference"], "across_tenants"))

    assert _warnings(stack_outcome(quota, board(tenants=1, nodes=2), QUARTERS)) == []


def test_nodes_too_coarse_for_a_node_per_tenant_are_carved_by_gpus():
    """Eight departments kept apart (within_tenant) on 4 nodes of 8 GPUs: a node each would
    leave four with nothing. Each gets GPUs of its own instead: 32 / 8 = 4 GPUs, and every one
    places its work (one whole-GPU task each per arrival round)."""
    apart = stack(("shared", ["whole_gpu"], ["training"], "within_tenant"))
    work = [MixEntry(workload="training", tasks=8, gpus=1, gpu_milli=1000)]

    outcome = stack_outcome(apart, board(tenants=8, nodes=4), work)

    (pool,) = outcome["pools"]
    assert pool["carved"] is True
    assert pool["quotas"] == {f"tenant-{n}": 4 for n in range(1, 9)}
    assert any("each tenant gets GPUs of its own" in note for note in pool["notes"])
    for name, figures in outcome["per_tenant"].items():
        assert figures["quota"] == 4
        assert figures["placed_gpus"] == 4.0, name  # 100 % of its 4 GPUs arrived and placed


def test_tenants_left_without_a_gpu_are_named_with_what_would_give_them_some():
    # 10 departments, one node of 8 GPUs: 8 get a GPU, 2 get none and are named.
    apart = stack(("shared", ["whole_gpu"], ["training"], "within_tenant"))
    work = [MixEntry(workload="training", tasks=10, gpus=1, gpu_milli=1000)]

    (pool,) = stack_outcome(apart, board(tenants=10, nodes=1), work)["pools"]

    assert sorted(pool["quotas"].values()) == [0, 0] + [1] * 8
    (named,) = [note for note in pool["notes"] if "get no GPU" in note]
    assert "add at least 2 GPUs" in named
    none = [name for name, gpus in pool["quotas"].items() if not gpus]
    assert named.startswith(", ".join(none) + " get no GPU")


MI300X = gpu_model_find("MI300X")


def test_amd_partitions_are_replayed_as_partitions_of_the_finest_documented_mode():
    """MI300X under CPX gives 8 logical GPUs per GPU (AMD's partitioning matrix, GPU facts).
    One node of 8 MI300X and notebook tasks of an eighth of a GPU: work arrives until it asks
    100 % of the 8 GPUs, 64 tasks, and the 64 partitions take them all. Replayed as whole GPUs
    (before), 8 of the 64 were placed: 12.5 %."""
    eighths = [MixEntry(workload="interactive", tasks=1, gpu_milli=125)]
    cluster = Cluster(model=MI300X, model_text="MI300X", nodes=1, gpus_per_node=8, tenants=1)
    partitions = stack(("shared", ["amd_partition"], ["interactive"], "across_tenants"))
    whole = stack(("shared", ["whole_gpu"], ["interactive"], "across_tenants"))

    outcome = stack_outcome(partitions, cluster, eighths)

    (pool,) = outcome["pools"]
    assert (pool["unit"], pool["replicas"]) == ("amd_partition", 8)
    assert (outcome["tasks"], outcome["unplaced"]) == (64, 0)
    assert outcome["alloc_at_100"] == outcome["held_at_100"] == 100.0
    assert stack_outcome(whole, cluster, eighths)["alloc_at_100"] == 12.5


def test_amd_partitions_on_a_model_without_partition_facts_say_so():
    cluster = Cluster(model=H100, model_text="H100", nodes=1, gpus_per_node=8, tenants=1)
    partitions = stack(("shared", ["amd_partition"], ["interactive"], "across_tenants"))

    (pool,) = stack_outcome(partitions, cluster, QUARTERS)["pools"]

    assert pool["unit"] == "whole_gpu"
    assert any("replayed as whole GPUs" in note for note in pool["notes"])


def test_each_pool_is_sized_and_replayed_on_its_own_node_group():
    """The issue 40 fleet: 4 nodes of 8 H100 for training and 2 nodes of 4 L40S for inference
    whose work may only run on L40S. Sized on one model (before), the inference pool sat on
    H100s and placed 0 of its tasks. On its node group: 8 L40S, 8 whole-GPU tasks arrive by
    100 % and all are placed; training keeps the 32 H100."""
    from catalog.engine.fleet import NodeGroup

    groups = (NodeGroup("h100", "H100", 4, 8), NodeGroup("l40s", "L40S", 2, 4))
    fleet = stack(
        ("training", ["whole_gpu"], ["training"], "across_tenants"),
        ("inference", ["whole_gpu"], ["online_inference"], "across_tenants"),
    )
    fleet["pool_details"]["training"]["node_group"] = "h100"
    fleet["pool_details"]["inference"]["node_group"] = "l40s"
    work = [
        MixEntry(workload="training", tasks=1, gpus=1, gpu_milli=1000),
        MixEntry(workload="online_inference", tasks=1, gpu_milli=1000, gpu_types=("l40s",)),
    ]
    cluster = Cluster(model=None, model_text=None, nodes=6, gpus_per_node=8, tenants=1)

    outcome = stack_outcome(fleet, cluster, work, groups=groups)

    training, inference = outcome["pools"]
    assert (training["node_group"], training["nodes"], training["gpus"]) == ("h100", 4, 32)
    assert (inference["node_group"], inference["nodes"], inference["gpus"]) == ("l40s", 2, 8)
    assert inference["gpu_model"] == "NVIDIA L40S"
    assert (inference["tasks"], inference["unplaced"]) == (8, 0)
    assert inference["alloc_at_100"] == training["alloc_at_100"] == 100.0
    assert outcome["gpus"] == 40


def test_the_named_tenants_absolute_demand_is_the_mix():
    """12 always-on replicas of one GPU weigh 12 GPUs (they became 4 GPUs as a share of a
    default mix), 4 training GPUs weigh 4, 20 notebook 1g.10gb instances weigh 20 / 7 GPUs
    (1 of an H100's 7 compute slices, 10 GB). Quotas follow: 12 + 4 + 20 x 143 / 1000 = 18.86
    GPUs of demand for 24 GPUs."""
    profile = Profile.from_dict(
        {"gpu_model": "H100", "node_count": 3, "gpus_per_node": 8,
         "workload_types": ["online_inference", "training", "interactive"],
         "tenants": [
             {"name": "clinical", "workloads": ["online_inference"],
              "demand": [{"workload": "online_inference", "replicas": 12,
                          "gpus_per_replica": 1, "when": "always"}]},
             {"name": "research", "workloads": ["training"],
              "demand": [{"workload": "training", "gpus": 4}]},
             {"name": "students", "workloads": ["interactive"],
              "demand": [{"workload": "interactive", "replicas": 20, "mig_profile": "1g.10gb",
                          "when": "window"}]},
         ]}
    )  # fmt: skip

    mix, source = mix_of(profile)

    assert source == "demand"
    assert [(e.tenant, e.workload, e.tasks, e.gpus, e.gpu_milli, e.memory_gb) for e in mix] == [
        (1, "online_inference", 12, 1, 1000, None),
        (2, "training", 4, 1, 1000, None),
        (3, "interactive", 20, 1, 143, 10.0),
    ]
    whole = stack(("shared", ["whole_gpu"], list(WORKLOADS), "across_tenants"))
    (pool,) = size_pools(whole, cluster_of(profile), mix)
    # 24 GPUs in proportion to 12 : 4 : 2.86 -> 15.27, 5.09, 3.64 -> 15, 5, 4 (largest remainder)
    assert pool.quotas == {"tenant-1": 15, "tenant-2": 5, "tenant-3": 4}


def test_a_small_tenant_of_a_shared_pool_is_never_rounded_down_to_no_quota():
    """16 GPUs; tenant-1 asks 100 GPUs of work, nine others one each. In proportion alone
    tenant-1 gets 16 x 100 / 109 = 14.7 and the nine 0.15 each: 15 and 1 by largest remainder,
    8 of the nine rounded to nothing. Each of those 8 gets one GPU, taken from the largest
    share: tenant-1 ends with 7, the rest 1 each."""
    work = [MixEntry(workload="training", tasks=100, tenant=1)] + [
        MixEntry(workload="training", tasks=1, tenant=n) for n in range(2, 11)
    ]
    shared = stack(("shared", ["whole_gpu"], ["training"], "across_tenants"))

    (pool,) = size_pools(shared, board(tenants=10, nodes=2), work)

    assert pool.quotas["tenant-1"] == 7
    assert all(pool.quotas[f"tenant-{n}"] == 1 for n in range(2, 11))
    assert sum(pool.quotas.values()) == 16


def test_tenants_a_shared_pool_cannot_give_a_gpu_are_named():
    work = [MixEntry(workload="training", tasks=1, tenant=n) for n in range(1, 11)]
    shared = stack(("shared", ["whole_gpu"], ["training"], "across_tenants"))

    (pool,) = size_pools(shared, board(tenants=10, nodes=1), work)

    none = [name for name, gpus in pool.quotas.items() if not gpus]
    assert len(none) == 2 and sum(pool.quotas.values()) == 8
    (named,) = [note for note in pool.notes if "get no GPU quota" in note]
    assert named.startswith(", ".join(none) + " get no GPU quota")


def test_mi300x_departments_kept_apart_get_partitions_of_their_own_gpus():
    """The issue 40 university in small: 2 nodes of 8 MI300X, 8 departments kept apart, notebooks
    of an eighth of a GPU. Before: a node each for 2 departments (6 with none), replayed as
    whole GPUs, 12.5 % placed. Now each department gets 16 / 8 = 2 GPUs of its own, cut into
    2 x 8 CPX partitions; 16 notebooks arrive by 100 % of its GPUs and all are placed."""
    cluster = Cluster(model=MI300X, model_text="MI300X", nodes=2, gpus_per_node=8, tenants=8)
    apart = stack(("shared", ["amd_partition"], ["interactive"], "within_tenant"))
    notebooks = [MixEntry(workload="interactive", tasks=8, gpu_milli=125)]

    outcome = stack_outcome(apart, cluster, notebooks)

    (pool,) = outcome["pools"]
    assert pool["carved"] and (pool["unit"], pool["replicas"]) == ("amd_partition", 8)
    assert pool["quotas"] == {f"tenant-{n}": 2 for n in range(1, 9)}
    for figures in outcome["per_tenant"].values():
        assert (figures["tasks"], figures["unplaced"], figures["placed_gpus"]) == (16, 0, 2.0)
    assert outcome["alloc_at_100"] == 100.0


def test_a_profile_of_node_groups_is_sized_not_refused():
    """The hospital of issue 40 (6 nodes x 4 A100 40GB, 4 nodes x 2 L4): step 1 gives no one
    node count or model, so sizing was refused ("say how many GPU nodes"). The cluster now
    stands for the 10 nodes, and each pool is sized on its group."""
    profile = Profile.from_dict(
        {"workload_types": ["training", "online_inference"],
         "node_groups": [{"name": "a100", "gpu_model": "A100 40GB", "nodes": 6, "gpus_per_node": 4},
                         {"name": "l4", "gpu_model": "L4", "nodes": 4, "gpus_per_node": 2}]}
    )  # fmt: skip
    fleet = stack(
        ("training", ["whole_gpu"], ["training"], "across_tenants"),
        ("inference", ["whole_gpu"], ["online_inference"], "across_tenants"),
    )
    fleet["pool_details"]["training"]["node_group"] = "a100"
    fleet["pool_details"]["inference"]["node_group"] = "l4"

    outcome = capacity_outcome(profile, [fleet])

    assert outcome["cluster"]["nodes"] == 10
    training, inference = outcome["stacks"][0]["pools"]
    assert (training["gpu_model"], training["gpus"]) == ("NVIDIA A100 40GB", 24)
    assert (inference["gpu_model"], inference["gpus"]) == ("NVIDIA L4", 8)


def test_the_tenants_stated_demand_is_replayed_as_stated():
    """The hospital's students ask 30 notebooks of 1g.10gb; their pool has 2 nodes of 4 A100
    40GB cut 4 x 1g.10gb per GPU: 32 instances, so all 30 fit (the mix's 130 % experiment,
    arriving by compute share, showed 24 of 56 waiting). Clinical asks 12 always-on whole
    GPUs of a pool of 8 L4: 8 placed, and the pool says so."""
    from catalog.engine.fleet import NodeGroup

    groups = (NodeGroup("a100", "A100 40GB", 2, 4), NodeGroup("l4", "L4", 4, 2))
    fleet = stack(
        ("notebooks", ["mig_slice"], ["interactive"], "across_tenants"),
        ("inference", ["whole_gpu"], ["online_inference"], "within_tenant"),
    )
    fleet["pool_details"]["notebooks"] |= {
        "node_group": "a100",
        "demand": [{"tenant": "students", "workload": "interactive", "replicas": 30,
                    "mig_profile": "1g.10gb", "when": "always"}],
    }  # fmt: skip
    fleet["pool_details"]["inference"] |= {
        "node_group": "l4",
        "demand": [{"tenant": "clinical", "workload": "online_inference", "replicas": 12,
                    "when": "always"}],
    }  # fmt: skip
    work = [
        MixEntry(workload="interactive", tasks=30, gpu_milli=143, memory_gb=10, tenant=1),
        MixEntry(workload="online_inference", tasks=12, tenant=2),
    ]
    cluster = Cluster(model=None, model_text=None, nodes=6, gpus_per_node=4, tenants=2)

    notebooks, inference = stack_outcome(fleet, cluster, work, groups=groups)["pools"]

    assert notebooks["mig_geometry"] == [{"nodes": 2, "layout": ["1g.10gb"] * 4}]
    assert notebooks["demand_fit"]["tenants"] == {"students": {"asked": 30, "placed": 30}}
    assert inference["demand_fit"]["tenants"] == {"clinical": {"asked": 12, "placed": 8}}
    assert "clinical's stated demand here: 8 of 12 replicas placed" in inference["notes"]


def test_equal_tenants_take_the_odd_gpu_in_turn_not_by_their_order():
    """Two tenants with the same work in each of two shared pools of one 3-GPU node: by order,
    each pool's odd GPU went to tenant-1 (4 GPUs to 2). In turn: the first pool's to tenant-1,
    the second's to tenant-2, so the two end level at 3."""
    assert largest_remainder(3, [1, 1]) == [2, 1]
    assert largest_remainder(3, [1, 1], rotate=1) == [1, 2]
    assert largest_remainder(10, [1, 1, 1], rotate=2) == [3, 3, 4]
    two = stack(
        ("a", ["whole_gpu"], ["training"], "across_tenants"),
        ("b", ["whole_gpu"], ["online_inference"], "across_tenants"),
    )
    work = [
        MixEntry(workload="training", tasks=2),
        MixEntry(workload="online_inference", tasks=2),
    ]
    cluster = Cluster(model=H100, model_text="H100", nodes=2, gpus_per_node=3, tenants=2)

    a, b = size_pools(two, cluster, work)

    assert (a.quotas, b.quotas) == ({"tenant-1": 2, "tenant-2": 1}, {"tenant-1": 1, "tenant-2": 2})
