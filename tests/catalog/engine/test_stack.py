"""The stack check: gaps, pool conflicts, missing layers and fit to the step-1 profile."""

from __future__ import annotations

import json

import pytest

from catalog.engine.fit import Finding
from catalog.engine.profile import Profile
from catalog.engine.rows import Row
from catalog.engine.stack import Gap, PoolConflict, check_stack

GPU_OWNER = "owner:node/nvidia-gpu"


def nvidia_device_plugin() -> Row:
    return Row.create(
        "nvidia-device-plugin",
        "plugin",
        "data_plane",
        resource_units={"whole_gpu"},
        provides={"resource:nvidia.com/gpu", "signal:dcgm/DCGM_FI_DEV_GPU_UTIL"},
        requires={"api:kubelet/device-plugin/v1beta1", "capability:nvidia-driver"},
        exclusive={GPU_OWNER},
        isolation={"memory": "none"},
    )


def mig_device_plugin() -> Row:
    return Row.create(
        "nvidia-mig",
        "plugin",
        "data_plane",
        resource_units={"mig_slice"},
        provides={"resource:nvidia.com/mig-1g.10gb"},
        requires={"capability:nvidia-driver"},
        exclusive={GPU_OWNER},
        isolation={"memory": "hard", "compute": "hard", "fault": "hard"},
    )


def hami_device_plugin() -> Row:
    return Row.create(
        "hami",
        "device-plugin",
        "data_plane",
        resource_units={"memory_compute_quota"},
        provides={"resource:nvidia.com/gpumem"},
        requires={"capability:nvidia-driver"},
        exclusive={GPU_OWNER},
        isolation={"memory": "soft", "compute": "soft"},
        signals={"signal:hami/HostGPUMemoryUsage"},
    )


def gpu_operator() -> Row:
    return Row.create(
        "gpu-operator",
        "operator",
        "platform",
        resource_units={"none"},
        provides={"capability:nvidia-driver", "capability:nvidia-container-toolkit"},
    )


def volcano_scheduler() -> Row:
    return Row.create(
        "volcano",
        "scheduler",
        "control_plane",
        resource_units={"whole_gpu"},
        provides={"capability:gang-scheduling", "capability:quota", "capability:preemption"},
        requires={"api:kube-scheduler/framework", "resource:nvidia.com/*"},
    )


def test_a_complete_stack_is_ok() -> None:
    report = check_stack([nvidia_device_plugin(), gpu_operator(), volcano_scheduler()])
    assert report.ok
    assert report.gaps == ()
    assert report.conflicts == ()
    assert report.missing_layers == ()


def test_an_unmet_requires_is_a_gap() -> None:
    report = check_stack([nvidia_device_plugin(), volcano_scheduler()])
    assert report.gaps == (
        Gap(row="nvidia-device-plugin/plugin", pattern="capability:nvidia-driver", pool="default"),
    )
    assert not report.ok


def test_a_baseline_interface_never_counts_as_a_gap() -> None:
    report = check_stack([volcano_scheduler(), nvidia_device_plugin(), gpu_operator()])
    assert all(gap.pattern != "api:kube-scheduler/framework" for gap in report.gaps)
    assert all(gap.pattern != "api:kubelet/device-plugin/v1beta1" for gap in report.gaps)


def test_a_glob_requires_is_met_by_any_matching_provider() -> None:
    report = check_stack([mig_device_plugin(), gpu_operator(), volcano_scheduler()])
    assert report.gaps == ()


def test_a_row_cannot_meet_its_own_requires() -> None:
    selfish = Row.create(
        "selfish",
        "x",
        "data_plane",
        provides={"crd:example.com/v1/Thing"},
        requires={"crd:example.com/v1/Thing"},
    )
    report = check_stack([selfish])
    assert [gap.pattern for gap in report.gaps] == ["crd:example.com/v1/Thing"]


def test_two_device_plugins_in_one_pool_conflict() -> None:
    report = check_stack([nvidia_device_plugin(), hami_device_plugin(), gpu_operator()])
    assert report.conflicts == (
        PoolConflict("default", "nvidia-device-plugin/plugin", "hami/device-plugin", (GPU_OWNER,)),
    )
    assert not report.ok


def test_two_device_plugins_in_separate_pools_do_not_conflict() -> None:
    rows = [mig_device_plugin(), hami_device_plugin(), gpu_operator(), volcano_scheduler()]
    pools = {"isolated": ["nvidia-mig/plugin"], "shared": ["hami/device-plugin"]}
    report = check_stack(rows, pools)
    assert report.conflicts == ()
    assert report.ok


def test_unassigned_rows_are_cluster_wide_and_belong_to_every_pool() -> None:
    rows = [mig_device_plugin(), hami_device_plugin(), gpu_operator(), volcano_scheduler()]
    pools = {"isolated": ["nvidia-mig/plugin"], "shared": ["hami/device-plugin"]}
    report = check_stack(rows, pools)
    assert report.pools == {
        "isolated": ("nvidia-mig/plugin", "gpu-operator/operator", "volcano/scheduler"),
        "shared": ("hami/device-plugin", "gpu-operator/operator", "volcano/scheduler"),
    }


def test_a_cluster_wide_row_conflicts_with_a_pool_row_holding_its_token() -> None:
    rows = [mig_device_plugin(), nvidia_device_plugin(), gpu_operator()]
    report = check_stack(rows, {"isolated": ["nvidia-mig/plugin"]})
    assert [(c.pool, c.row_a, c.row_b) for c in report.conflicts] == [
        ("isolated", "nvidia-mig/plugin", "nvidia-device-plugin/plugin")
    ]


def test_a_pool_row_is_served_by_a_cluster_wide_provider() -> None:
    rows = [mig_device_plugin(), gpu_operator()]
    report = check_stack(rows, {"isolated": ["nvidia-mig/plugin"]})
    assert report.gaps == ()


def test_a_pool_row_is_not_served_by_another_pools_provider() -> None:
    rows = [mig_device_plugin(), gpu_operator(), hami_device_plugin()]
    pools = {"isolated": ["nvidia-mig/plugin"], "ops": ["gpu-operator/operator"]}
    report = check_stack(rows, pools)
    assert Gap("nvidia-mig/plugin", "capability:nvidia-driver", "isolated") in report.gaps


def test_a_pool_naming_an_unknown_row_is_refused() -> None:
    with pytest.raises(ValueError, match="not in the stack: ghost/x"):
        check_stack([gpu_operator()], {"p": ["ghost/x"]})


def test_a_pool_without_a_data_plane_row_is_reported() -> None:
    rows = [mig_device_plugin(), gpu_operator(), volcano_scheduler()]
    report = check_stack(rows, {"isolated": ["nvidia-mig/plugin"], "empty": []})
    assert [(m.pool, m.layer) for m in report.missing_layers] == [("empty", "data_plane")]


def test_a_multi_tenant_stack_without_a_control_plane_is_reported() -> None:
    report = check_stack([hami_device_plugin(), gpu_operator()], profile=Profile(tenancy="multi"))
    assert [(m.pool, m.layer) for m in report.missing_layers] == [(None, "control_plane")]


def test_hard_isolation_is_met_by_one_hard_pool() -> None:
    rows = [mig_device_plugin(), hami_device_plugin(), gpu_operator()]
    pools = {"isolated": ["nvidia-mig/plugin"], "shared": ["hami/device-plugin"]}
    report = check_stack(rows, pools, Profile(isolation="hard"))
    assert report.fit[0].aspect == "isolation"
    assert report.fit[0].status == "ok"
    assert "isolated" in report.fit[0].message


def test_hard_isolation_without_a_hard_data_plane_is_a_fit_gap() -> None:
    report = check_stack([hami_device_plugin(), gpu_operator()], profile=Profile(isolation="hard"))
    assert report.fit[0] == Finding(
        "isolation",
        "gap",
        "hard isolation demanded (memory, compute and fault); no pool has a data-plane row "
        "giving it; the closest gives memory soft, compute soft, fault none",
    )


def test_hard_memory_alone_is_not_hard_isolation() -> None:
    """Issue 26: HAMi-style sharing limits memory hard, but compute is a soft share and one
    fault reaches every pod on the GPU (HAMi README, "does not give hardware isolation")."""
    hami = Row.create(
        "hami",
        "device-plugin",
        "data_plane",
        resource_units={"memory_compute_quota"},
        isolation={"memory": "hard", "compute": "soft", "fault": "none"},
    )
    report = check_stack([hami, gpu_operator()], profile=Profile(isolation="hard"))
    assert report.fit[0].status == "gap"
    assert "memory hard, compute soft, fault none" in report.fit[0].message


def test_a_unit_never_lends_a_rows_stronger_promise_to_a_weaker_unit() -> None:
    """A row presenting time slices beside memory quotas promises hard memory for the quotas;
    its time slices still have no memory isolation (k8s-device-plugin README, time-slicing)."""
    fractions = Row.create(
        "runai",
        "gpu-fractions",
        "data_plane",
        resource_units={"time_slice"},
        isolation={"memory": "hard", "compute": "soft", "fault": "none"},
    )
    report = check_stack([fractions, gpu_operator()], profile=Profile(isolation="soft"))
    assert report.fit[0].status == "gap"
    assert "memory none" in report.fit[0].message


def test_soft_isolation_is_met_by_soft_or_hard() -> None:
    for plugin in (hami_device_plugin(), mig_device_plugin()):
        report = check_stack([plugin, gpu_operator()], profile=Profile(isolation="soft"))
        assert report.fit[0].status == "ok"


def test_a_p99_objective_needs_data_plane_signals() -> None:
    silent = Row.create("silent", "plugin", "data_plane", resource_units={"whole_gpu"})
    profile = Profile(primary_objective="p99_latency")
    assert [
        f.status for f in check_stack([silent], profile=profile).fit if f.aspect == "signals"
    ] == ["gap"]
    loud = check_stack([hami_device_plugin()], profile=profile)
    assert [f.status for f in loud.fit if f.aspect == "signals"] == ["ok"]


def test_a_p99_target_alone_also_needs_signals() -> None:
    silent = Row.create("silent", "plugin", "data_plane")
    report = check_stack([silent], profile=Profile(p99_target_ms=50))
    assert [f.status for f in report.fit if f.aspect == "signals"] == ["gap"]


def test_signals_of_a_non_data_plane_row_do_not_count() -> None:
    exporter = Row.create("exporter", "x", "platform", signals={"signal:dcgm/DCGM_FI_DEV_GPU_UTIL"})
    silent = Row.create("silent", "plugin", "data_plane")
    report = check_stack([silent, exporter], profile=Profile(primary_objective="p99_latency"))
    assert [f.status for f in report.fit if f.aspect == "signals"] == ["gap"]


def test_multi_tenancy_without_metering_signals_is_a_warning() -> None:
    silent = Row.create("silent", "plugin", "data_plane")
    report = check_stack([silent], profile=Profile(tenancy="multi"))
    assert [f.status for f in report.fit if f.aspect == "metering"] == ["warning"]


def test_training_needs_gang_scheduling() -> None:
    profile = Profile(workload_types=("training",))
    without = check_stack([hami_device_plugin(), gpu_operator()], profile=profile)
    assert [(f.status, "gang-scheduling" in f.message) for f in without.fit[1:]] == [("gap", True)]
    rows = [hami_device_plugin(), gpu_operator(), volcano_scheduler()]
    with_volcano = check_stack(rows, profile=profile)
    assert [f.status for f in with_volcano.fit if f.aspect == "capabilities"] == ["ok"]


def test_mixing_inference_with_batch_needs_preemption() -> None:
    profile = Profile(workload_types=("online_inference", "batch"))
    report = check_stack([hami_device_plugin()], profile=profile)
    needs = [f.message for f in report.fit if f.aspect == "capabilities" and f.status == "gap"]
    assert any("capability:preemption" in message for message in needs)
    assert any("capability:gang-scheduling" in message for message in needs)


def test_multi_tenancy_needs_quota_and_only_warns_about_fair_sharing() -> None:
    rows = [hami_device_plugin(), volcano_scheduler(), gpu_operator()]
    report = check_stack(rows, profile=Profile(tenancy="multi"))
    statuses = {
        f.message.split(" needs ")[1].split(":", 2)[1]: f.status
        for f in report.fit
        if f.aspect == "capabilities"
    }
    assert statuses == {"quota": "ok", "fair-sharing": "warning"}


def test_fit_findings_do_not_change_ok() -> None:
    report = check_stack(
        [nvidia_device_plugin(), gpu_operator()], profile=Profile(isolation="hard")
    )
    assert report.fit[0].status == "gap"
    assert report.ok


def test_the_report_serialises_to_json() -> None:
    rows = [nvidia_device_plugin(), hami_device_plugin()]
    report = check_stack(rows, profile=Profile(tenancy="multi", isolation="soft"))
    data = json.loads(json.dumps(report.to_dict()))
    assert data["ok"] is False
    assert data["conflicts"][0]["tokens"] == [GPU_OWNER]
    assert data["gaps"][0] == {
        "row": "nvidia-device-plugin/plugin",
        "pattern": "capability:nvidia-driver",
        "pool": "default",
    }
    assert {"aspect", "status", "message", "blocking"} == set(data["fit"][0])


def test_a_profile_is_read_from_a_dict() -> None:
    profile = Profile.from_dict(
        {
            "workload_types": ["training", "online_inference"],
            "primary_objective": "p99_latency",
            "p99_target_ms": 80,
            "jitter_tolerance": "low",
            "isolation": "hard",
            "failure_semantics": "incident",
            "tenancy": "multi",
            "priorities": ["isolation", "observability", "cost", "compatibility"],
        }
    )
    assert profile.workload_types == ("training", "online_inference")
    assert profile.p99_target_ms == 80.0
    assert Profile.from_dict(profile.to_dict()) == profile


def test_an_empty_profile_takes_the_defaults() -> None:
    assert Profile.from_dict({}) == Profile()


@pytest.mark.parametrize(
    ("data", "allowed"),
    [
        ({"workload_types": ["inference"]}, "training, batch, online_inference, interactive"),
        ({"primary_objective": "latency"}, "throughput, p99_latency, cost"),
        ({"jitter_tolerance": "none"}, "low, medium, high"),
        ({"isolation": "strong"}, "hard, soft, none"),
        ({"failure_semantics": "crash"}, "degrade, incident"),
        ({"tenancy": "shared"}, "single, multi"),
        ({"priorities": ["speed"]}, "isolation, cost, observability, compatibility"),
    ],
)
def test_an_unknown_profile_value_is_refused_naming_the_allowed_values(
    data: dict[str, object], allowed: str
) -> None:
    with pytest.raises(ValueError, match=allowed):
        Profile.from_dict(data)


@pytest.mark.parametrize("target", [0, -5, "fast", True])
def test_a_p99_target_must_be_a_positive_number(target: object) -> None:
    with pytest.raises(ValueError, match="p99_target_ms"):
        Profile.from_dict({"p99_target_ms": target})


def test_a_ranked_priority_may_appear_only_once() -> None:
    with pytest.raises(ValueError, match="once"):
        Profile.from_dict({"priorities": ["cost", "cost"]})


def test_an_unknown_profile_field_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown profile field"):
        Profile.from_dict({"budget": 3})


def _governor(project: str, *functions: str) -> Row:
    return Row.create(project, "scheduler", "control_plane", functions=set(functions))


def test_two_queueing_systems_over_the_same_pods_conflict() -> None:
    """Issue 26: KAI and Volcano both cluster-wide duplicate queues and preemption (the
    catalog's own failure modes for both schedulers say so)."""
    rows = [
        mig_device_plugin(),
        _governor("kai-scheduler", "quota", "gang", "preemption"),
        _governor("volcano", "quota", "gang", "preemption", "fair_sharing"),
    ]
    report = check_stack(rows)
    assert not report.ok
    assert [(c.row_a, c.row_b, c.tokens) for c in report.conflicts] == [
        (
            "kai-scheduler/scheduler",
            "volcano/scheduler",
            ("governs:gang", "governs:preemption", "governs:quota"),
        )
    ]


def test_governors_on_disjoint_pools_do_not_conflict() -> None:
    rows = [
        mig_device_plugin(),
        hami_device_plugin(),
        _governor("kai-scheduler", "quota", "gang"),
        _governor("volcano", "quota", "gang"),
    ]
    pools = {
        "training": ["nvidia-mig/plugin", "kai-scheduler/scheduler"],
        "notebooks": ["hami/device-plugin", "volcano/scheduler"],
    }
    assert check_stack(rows, pools).conflicts == ()


def test_a_placement_helper_is_not_a_second_governor() -> None:
    rows = [mig_device_plugin(), _governor("kueue", "quota"), _governor("hami", "device_placement")]
    assert check_stack(rows).conflicts == ()


def _tenants(**fields) -> Profile:
    return Profile.from_dict({"tenancy": "multi", "tenant_count": 6, "isolation": "hard", **fields})


def _soft_sharing() -> Row:
    return Row.create(
        "hami",
        "device-plugin",
        "data_plane",
        resource_units={"memory_compute_quota"},
        isolation={"memory": "hard", "compute": "soft", "fault": "none"},
    )


def test_tenants_who_must_not_meet_never_share_a_soft_pool() -> None:
    """Issue 26: six tenants' notebooks on one HAMi pool is a blocking error, not a fit."""
    report = check_stack([_soft_sharing(), gpu_operator()], profile=_tenants())
    tenancy = [f for f in report.fit if f.aspect == "tenancy"]
    assert [(f.status, f.blocking) for f in tenancy] == [("gap", True)]
    assert "shares GPUs between tenants" in tenancy[0].message
    assert not report.ok


def test_a_soft_pool_declared_per_tenant_is_safe() -> None:
    rows = [_soft_sharing(), mig_device_plugin(), gpu_operator()]
    pools = {"notebooks": ["hami/device-plugin"], "inference": ["nvidia-mig/plugin"]}
    report = check_stack(rows, pools, _tenants(), tenant_sharing={"notebooks": "within_tenant"})
    assert [f.status for f in report.fit if f.aspect == "tenancy"] == ["ok", "ok"]
    assert report.ok


def test_mig_slices_may_serve_several_tenants_only_when_hard_partitions_are_allowed() -> None:
    assert check_stack([mig_device_plugin(), gpu_operator()], profile=_tenants()).ok
    never = _tenants(cross_tenant_sharing="never")
    report = check_stack([mig_device_plugin(), gpu_operator()], profile=never)
    assert not report.ok
    assert "serves one tenant at a time" in next(
        f.message for f in report.fit if f.aspect == "tenancy"
    )


def test_tenants_may_share_soft_pools_when_the_profile_allows_it() -> None:
    profile = _tenants(cross_tenant_sharing="allowed")
    assert check_stack([_soft_sharing(), gpu_operator()], profile=profile).ok


def test_mig_on_a_gpu_without_mig_blocks_the_stack() -> None:
    """The MIG user guide's supported-GPU list has no L40S (catalog/data/facts/gpus.yaml)."""
    report = check_stack(
        [mig_device_plugin(), gpu_operator()], profile=Profile.from_dict({"gpu_model": "L40S"})
    )
    gpu = [f for f in report.fit if f.aspect == "gpu"]
    assert [f.blocking for f in gpu] == [True]
    assert "L40S" in gpu[0].message
    on_h100 = check_stack(
        [mig_device_plugin(), gpu_operator()], profile=Profile.from_dict({"gpu_model": "H100"})
    )
    assert [f for f in on_h100.fit if f.aspect == "gpu"] == []
