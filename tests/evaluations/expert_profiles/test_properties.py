"""The yardstick checked on hand-built recommendations over real catalog rows, so a failure of
test_expert_profiles.py is the engine's and not the checkers'."""

from __future__ import annotations

from typing import Any

import pytest

from tests.evaluations.engine.test_recommend import load_builtin_catalog
from tests.evaluations.expert_profiles import properties as p

HARD = {"memory": "hard", "compute": "hard", "fault": "hard"}
HAMI_ISOLATION = {"memory": "hard", "compute": "soft", "fault": "none"}
MIG = ["nvidia-mig/mig-manager", "nvidia-device-plugin/mig-mixed"]
MULTI_HARD = {
    "workload_types": ["online_inference", "training", "interactive"],
    "isolation": "hard",
    "tenancy": "multi",
    "tenant_count": 6,
    "p99_target_ms": 300,
}


@pytest.fixture(scope="module")
def rows():
    return {r.id: r for r in load_builtin_catalog()}


def ctx(rows, **profile: Any) -> p.Context:
    return p.Context("synthetic", {**MULTI_HARD, **profile}, rows)


def pool(units, workloads, isolation=None, sharing="across_tenants", checks=()):
    return {
        "units": list(units),
        "isolation": dict(isolation or HARD),
        "tenant_sharing": sharing,
        "workloads": list(workloads),
        "acceptance_checks": list(checks),
    }


def rec(pools: dict[str, tuple[list[str], dict]], cluster_wide=("volcano/scheduler",), **extra):
    ids = [i for members, _ in pools.values() for i in members] + list(cluster_wide)
    return {
        "rank": 1,
        "shape": "C",
        "pools": {name: members for name, (members, _) in pools.items()},
        "cluster_wide": list(cluster_wide),
        "rows": list(dict.fromkeys(ids)),
        "report": {"ok": True, "fit": []},
        "pool_details": {name: detail for name, (_, detail) in pools.items()},
        **extra,
    }


def split(shared_sharing="across_tenants"):
    """Shape C: MIG for inference and notebooks, HAMi for notebooks, whole GPUs for training."""
    return rec(
        {
            "hard": (MIG, pool(["mig_slice"], ["online_inference"], checks=["P99 <= 300 ms"])),
            "shared": (
                ["hami/device-plugin", "hami/scheduler-extender"],
                pool(["memory_compute_quota"], ["interactive"], HAMI_ISOLATION, shared_sharing),
            ),
            "train": (["nvidia-device-plugin/whole-gpu"], pool(["whole_gpu"], ["training"])),
        }
    )


def test_soft_sharing_across_tenants_breaks_hard_partitions_and_naming_the_rows(rows):
    problems = p.tenant_safe(split(), ctx(rows))

    assert len(problems) == 1
    assert "'shared'" in problems[0] and "hami/device-plugin" in problems[0]


def test_soft_sharing_within_a_tenant_and_mig_across_tenants_are_tenant_safe(rows):
    assert p.tenant_safe(split("within_tenant"), ctx(rows)) == []


def test_never_forbids_even_mig_across_tenants_but_not_whole_gpus(rows):
    problems = p.tenant_safe(split("within_tenant"), ctx(rows, cross_tenant_sharing="never"))

    assert len(problems) == 1 and "'hard'" in problems[0]


def test_sharing_allowed_or_a_single_tenant_needs_no_tenant_check(rows):
    assert p.tenant_safe(split(), ctx(rows, isolation="soft")) == []
    assert p.tenant_safe(split(), ctx(rows, tenancy="single", tenant_count=1)) == []


def test_a_pool_claiming_more_isolation_than_its_rows_give_is_caught(rows):
    claimed = split()
    claimed["pool_details"]["shared"]["isolation"] = dict(HARD)

    problems = p.pool_details_honest(claimed, ctx(rows))

    assert len(problems) == 1 and "'shared'" in problems[0]
    assert p.pool_details_honest(split(), ctx(rows)) == []


def test_inference_on_hami_is_not_on_hard_units_but_on_mig_it_is(rows):
    assert p.inference_on_hard_units(split(), ctx(rows)) == []
    moved = split()
    moved["pool_details"]["shared"]["workloads"] = ["online_inference"]

    assert "'shared'" in p.inference_on_hard_units(moved, ctx(rows))[0]


def test_training_on_mig_slices_is_caught_batch_on_mig_is_not(rows):
    assert p.training_on_whole_gpus(split(), ctx(rows)) == []
    moved = split()
    moved["pool_details"]["hard"]["workloads"] = ["training"]
    assert "'hard'" in p.training_on_whole_gpus(moved, ctx(rows))[0]
    moved["pool_details"]["hard"]["workloads"] = ["batch"]
    assert p.training_on_whole_gpus(moved, ctx(rows)) == []


def test_two_governors_on_one_pool_and_gang_and_quota(rows):
    two = rec(
        {"train": (["nvidia-device-plugin/whole-gpu"], pool(["whole_gpu"], ["training"]))},
        cluster_wide=("volcano/scheduler", "kueue/controller"),
    )

    assert "2 governors" in p.one_governor(two, ctx(rows))[0]
    assert p.one_governor(split(), ctx(rows)) == []
    assert p.gang_for(split(), ctx(rows)) == []
    assert p.governor_has(split(), ctx(rows), functions=("quota", "fair_sharing")) == []


def _notebooks(presenter: list[str], governor: str) -> dict:
    return rec(
        {
            "train": (["nvidia-device-plugin/whole-gpu"], pool(["whole_gpu"], ["training"])),
            "shared": (
                presenter,
                pool(["memory_compute_quota"], ["interactive"], HAMI_ISOLATION, "within_tenant"),
            ),
        },
        cluster_wide=(governor,),
    )


def test_a_pool_whose_resources_the_quota_layer_cannot_express_is_caught(rows):
    """KAI over HAMi's pool: HAMi's resources only HAMi's scheduler assigns; Kueue counts them;
    Volcano assigns volcano-vgpu's own; with one tenant no quota is needed."""
    hami = ["hami/device-plugin", "hami-core/libvgpu", "hami/scheduler-extender"]
    under_kai = _notebooks(hami, "kai-scheduler/scheduler")

    problems = p.quota_reaches_every_pool(under_kai, ctx(rows))

    assert len(problems) == 1
    assert "'shared'" in problems[0] and "nvidia.com/gpumem (hami/device-plugin)" in problems[0]
    assert p.quota_reaches_every_pool(_notebooks(hami, "kueue/controller"), ctx(rows)) == []
    vgpu = ["volcano-vgpu-device-plugin/device-plugin", "hami-core/libvgpu"]
    assert p.quota_reaches_every_pool(_notebooks(vgpu, "volcano/scheduler"), ctx(rows)) == []
    assert p.quota_reaches_every_pool(under_kai, ctx(rows, tenancy="single")) == []


def test_variants_of_the_same_projects_are_not_distinct(rows):
    single = rec({"a": (["nvidia-device-plugin/mig-single"], pool(["mig_slice"], ["training"]))})
    mixed = rec({"a": (["nvidia-device-plugin/mig-mixed"], pool(["mig_slice"], ["training"]))})
    other = rec(
        {"a": (["nvidia-device-plugin/mig-mixed"], pool(["mig_slice"], ["training"]))},
        cluster_wide=("kueue/controller",),
    )

    assert len(p.distinct_top3([single, mixed, other], ctx(rows))) == 1
    assert p.distinct_top3([single, other], ctx(rows)) == []


def test_vendor_mig_and_dra_checks_read_the_rows(rows):
    nvidia = split()
    amd = rec({"a": (["amd-gpu-device-plugin/whole-gpu"], pool(["whole_gpu"], ["training"]))})
    dra = rec(
        {"a": (["nvidia-dra-driver-gpu/gpu-kubelet-plugin"], pool(["dra_claim"], ["training"]))}
    )

    assert p.serves_vendor(nvidia, ctx(rows), vendor="amd")
    assert p.serves_vendor(amd, ctx(rows), vendor="amd") == []
    assert p.no_mig(nvidia, ctx(rows), strict=False)
    assert p.no_mig(amd, ctx(rows), strict=True) == []
    assert p.no_dra(dra, ctx(rows))
    assert p.no_dra(nvidia, ctx(rows)) == []
    assert p.training_on_whole_gpus(dra, ctx(rows)) == []


def test_time_slicing_is_below_soft_isolation_and_hami_is_not(rows):
    sliced = rec(
        {
            "a": (
                ["nvidia-device-plugin/time-slicing"],
                pool(["time_slice"], ["online_inference"], {"compute": "soft"}),
            )
        }
    )
    soft = ctx(rows, isolation="soft", workload_types=["online_inference"])

    notebooks_soft = ctx(rows, workload_isolation={"interactive": "soft"})

    assert p.isolation_per_workload(sliced, soft)
    assert "interactive" in p.isolation_per_workload(split(), ctx(rows))[0]
    assert p.isolation_per_workload(split(), notebooks_soft) == []
    assert p.isolation_per_workload(split(), ctx(rows), workloads=("online_inference",)) == []


def test_the_p99_check_must_name_the_target(rows):
    assert p.p99_check_on_inference_pool(split(), ctx(rows)) == []
    assert p.p99_check_on_inference_pool(split(), ctx(rows, p99_target_ms=30))


def test_a_missing_interface_says_so(rows):
    bare = split()
    del bare["pool_details"]

    with pytest.raises(p.Unmet, match="pool_details"):
        p.tenant_safe(bare, ctx(rows))
    with pytest.raises(p.Unmet, match="left_out"):
        p.left_out_mentions([], ctx(rows), groups=(("mig",),))


def test_left_out_texts_must_name_one_token_of_every_group(rows):
    class Ranked(list):
        left_out = ["MIG rows left out: the L40S has no MIG"]

    assert p.left_out_mentions(Ranked(), ctx(rows), groups=(("mig",), ("l40s",))) == []
    assert p.left_out_mentions(Ranked(), ctx(rows), groups=(("mig",), ("l4",)))


def test_evaluate_scopes(rows):
    good, bad = split("within_tenant"), split()
    bad["rank"] = 2

    assert p.evaluate("each", "tenant_safe", {}, [good, bad], ctx(rows))
    assert p.evaluate("any", "tenant_safe", {}, [bad, good], ctx(rows)) == []
    assert p.evaluate("first", "tenant_safe", {}, [good, bad], ctx(rows)) == []
    assert p.evaluate("top3", "three_stacks", {}, [good, bad], ctx(rows))
    assert p.evaluate("each", "tenant_safe", {}, [], ctx(rows)) == ["no stack recommended"]


def test_never_says_reads_every_text_a_stack_shows_by_whole_word(rows):
    said = split()
    said["trade_off"] = "Split pools; a MIG layout changes only by draining its GPUs"
    said["fits"] = ["the migration to Kueue is named"]

    assert len(p.never_says(said, ctx(rows), words=("MIG",))) == 1
    said["trade_off"] = "Split pools; an AMD partition mode changes only by draining its GPUs"
    assert p.never_says(said, ctx(rows), words=("MIG",)) == []
