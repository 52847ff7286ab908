"""MIG under the mixed strategy: a pod names its profile (nvidia.com/mig-<profile>) and gets an
instance of exactly that profile, never a larger one (NVIDIA device plugin README, "MIG
strategies": under `mixed` each profile is its own resource). Hand-computed on one H100 80GB
cut 4g.40gb + 3g.40gb (a valid layout: NVIDIA MIG User Guide, H100 profiles): the 3g instance
holds 3/7 of the GPU, round(3000 / 7) = 429 milli, the 4g one 571."""

from __future__ import annotations

import pytest

from evaluations.capacity import POLICIES, Node, Task, simulate

NODE = Node(
    name="h100-0",
    gpu_model="H100 80GB",
    gpus=1,
    cpu_milli=64_000,
    memory_mib=512_000,
    mig_geometry=("4g.40gb", "3g.40gb"),
)


def task(name: str, milli: int, profile: str | None) -> Task:
    return Task(name, gpus=1, gpu_milli=milli, cpu_milli=0, memory_mib=0, mig_profile=profile)


@pytest.mark.parametrize("policy", POLICIES)
def test_a_named_profile_takes_only_its_instances(policy):
    tasks = [task("a", 429, "3g.40gb"), task("b", 429, "3g.40gb")]

    result = simulate([NODE], tasks, policy, order="given", unit="mig_slice")

    # The 3g.40gb instance is index 1 of the GPU; b finds no other 3g.40gb and is not placed,
    # though the 4g.40gb instance is free and large enough.
    assert result.placements == [("a", "h100-0", (1,))]
    assert result.unscheduled_tasks == ["b"]
    assert result.alloc_pct == result.requested_pct == 42.9


@pytest.mark.parametrize("policy", POLICIES)
def test_without_a_profile_a_task_takes_any_instance_with_the_slices(policy):
    # The single strategy (nvidia.com/gpu): 428 milli needs ceil(428 * 7 / 1000) = 3 slices, so
    # either instance takes it; the two tasks hold both, 100 % of the GPU, asking 85.6 %.
    tasks = [task("a", 428, None), task("b", 428, None)]

    result = simulate([NODE], tasks, policy, order="given", unit="mig_slice")

    assert result.unscheduled == 0
    assert result.alloc_pct == 100.0
    assert result.requested_pct == 85.6


def test_a_profile_no_node_has_is_not_placed_and_does_not_fail():
    tasks = [task("a", 143, "1g.10gb"), task("b", 571, "4g.40gb")]

    result = simulate([NODE], tasks, "bestfit", order="given", unit="mig_slice")

    assert result.unscheduled_tasks == ["a"]
    assert result.placements == [("b", "h100-0", (0,))]


def test_a_profile_is_ignored_off_mig():
    # Under a memory + compute quota there are no instances: the profile does not restrict.
    tasks = [task("a", 429, "3g.40gb"), task("b", 429, "3g.40gb")]
    whole = Node("n", "H100 80GB", 1, 64_000, 512_000)

    result = simulate([whole], tasks, "bestfit", order="given", unit="memory_compute_quota")

    assert result.unscheduled == 0
    assert result.requested_pct == 85.8
