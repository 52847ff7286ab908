"""The pairwise verdict rules of DESIGN.md, one pair at a time."""

from __future__ import annotations

import pytest

from catalog.engine.oracle import VERDICTS, Link, matrix_oracle, pair_verdicts
from catalog.engine.rows import Row, row_from_bundle

GPU_OWNER = "owner:node/nvidia-gpu"


def hami_device_plugin(**extra: object) -> Row:
    fields = {
        "resource_units": {"memory_compute_quota"},
        "enforcement_points": {"runtime_interception"},
        "provides": {"resource:nvidia.com/gpumem", "resource:nvidia.com/gpu"},
        "requires": {"api:kubelet/device-plugin/v1beta1"},
        "exclusive": {GPU_OWNER},
        "functions": {"present", "isolate"},
        "isolation": {"memory": "hard", "compute": "soft"},
        "name": "HAMi device-plugin",
    }
    fields.update(extra)
    return Row.create("hami", "device-plugin", "data_plane", **fields)


def nvidia_device_plugin(**extra: object) -> Row:
    fields = {
        "resource_units": {"whole_gpu", "time_slice"},
        "provides": {"resource:nvidia.com/gpu", "api:kubelet/device-plugin/v1beta1"},
        "exclusive": {GPU_OWNER},
        "functions": {"present"},
        "name": "NVIDIA device-plugin",
    }
    fields.update(extra)
    return Row.create("nvidia-device-plugin", "plugin", "data_plane", **fields)


def volcano_scheduler(**extra: object) -> Row:
    fields = {
        "resource_units": {"whole_gpu"},
        "provides": {"capability:gang-scheduling", "crd:scheduling.volcano.sh/v1beta1/PodGroup"},
        "accepts": {"resource:*"},
        "enforcement_points": {"scheduler"},
        "functions": {"quota", "gang", "device_placement"},
        "name": "Volcano scheduler",
    }
    fields.update(extra)
    return Row.create("volcano", "scheduler", "control_plane", **fields)


def test_two_device_plugins_for_the_same_gpus_conflict() -> None:
    result = pair_verdicts(hami_device_plugin(), nvidia_device_plugin())
    assert result.verdict == "conflicts"
    assert result.shared_exclusive == (GPU_OWNER,)


def test_two_device_plugins_for_the_same_gpus_also_show_how_they_compare() -> None:
    plain = nvidia_device_plugin()
    mig = Row.create(
        "mig",
        "plugin",
        "data_plane",
        resource_units={"whole_gpu"},
        exclusive={GPU_OWNER},
        functions={"present"},
    )
    result = pair_verdicts(plain, mig)
    assert result.holds == ("conflicts", "competes")


def test_conflict_reason_names_the_token_and_the_node_pool() -> None:
    result = pair_verdicts(hami_device_plugin(), nvidia_device_plugin())
    assert result.reasons[0] == (
        f"both hold the exclusive token {GPU_OWNER}: they cannot run on the same node pool"
    )


def test_a_data_plane_feeding_a_scheduler_composes() -> None:
    result = pair_verdicts(hami_device_plugin(), volcano_scheduler())
    assert result.verdict == "composes"
    assert result.holds == ("composes",)


def test_composes_lists_each_link_with_provider_consumer_interface_and_pattern() -> None:
    result = pair_verdicts(hami_device_plugin(), volcano_scheduler())
    assert result.links == (
        Link(
            "hami/device-plugin",
            "volcano/scheduler",
            "resource:nvidia.com/gpu",
            "resource:*",
            "accepts",
        ),
        Link(
            "hami/device-plugin",
            "volcano/scheduler",
            "resource:nvidia.com/gpumem",
            "resource:*",
            "accepts",
        ),
    )


def test_composes_reason_names_the_interface_and_the_pattern() -> None:
    hami = hami_device_plugin(provides={"resource:nvidia.com/gpumem"})
    result = pair_verdicts(hami, volcano_scheduler())
    assert result.reasons == (
        "HAMi device-plugin provides resource:nvidia.com/gpumem, which Volcano scheduler "
        "accepts (resource:*)",
    )


def test_composes_works_in_either_direction() -> None:
    result = pair_verdicts(volcano_scheduler(), hami_device_plugin())
    assert result.verdict == "composes"
    assert {link.provider for link in result.links} == {"hami/device-plugin"}


def test_a_literal_requires_links_without_repeating_the_pattern() -> None:
    consumer = Row.create(
        "kueue", "controller", "control_plane", requires={"resource:nvidia.com/gpumem"}
    )
    result = pair_verdicts(hami_device_plugin(provides={"resource:nvidia.com/gpumem"}), consumer)
    assert result.links[0].relation == "requires"
    assert result.reasons == (
        "HAMi device-plugin provides resource:nvidia.com/gpumem, which kueue/controller requires",
    )


def test_a_glob_pattern_matches_only_identifiers_it_covers() -> None:
    mig_consumer = Row.create(
        "mig-aware", "scheduler", "control_plane", requires={"resource:nvidia.com/mig-*"}
    )
    mig = Row.create(
        "mig-manager", "plugin", "data_plane", provides={"resource:nvidia.com/mig-1g.10gb"}
    )
    assert pair_verdicts(mig, mig_consumer).verdict == "composes"
    assert pair_verdicts(nvidia_device_plugin(), mig_consumer).verdict == "independent"


def test_glob_matching_is_case_sensitive() -> None:
    consumer = Row.create("c", "x", "control_plane", requires={"resource:NVIDIA.com/*"})
    assert pair_verdicts(nvidia_device_plugin(), consumer).verdict == "independent"


def test_providing_a_baseline_interface_is_never_a_link() -> None:
    # The NVIDIA plugin lists the kubelet API it registers against; the cluster already has it.
    result = pair_verdicts(nvidia_device_plugin(), hami_device_plugin())
    assert all(link.interface != "api:kubelet/device-plugin/v1beta1" for link in result.links)
    assert "composes" not in result.holds


def test_baseline_provider_does_not_compose_even_through_a_glob() -> None:
    provider = Row.create("p", "x", "data_plane", provides={"resource:cpu"})
    consumer = Row.create("c", "x", "control_plane", accepts={"resource:*"})
    assert pair_verdicts(provider, consumer).verdict == "independent"


def test_same_layer_common_unit_and_same_job_competes() -> None:
    a = Row.create(
        "a", "x", "data_plane", resource_units={"whole_gpu", "mig_slice"}, functions={"present"}
    )
    b = Row.create("b", "x", "data_plane", resource_units={"whole_gpu"}, functions={"present"})
    result = pair_verdicts(a, b)
    assert result.verdict == "competes"
    assert result.shared_units == ("whole_gpu",)
    assert result.shared_functions == ("present",)
    assert result.reasons == (
        "same layer (data plane), a common unit (whole GPU) and the same job (resource "
        "presentation): alternatives — compare isolation, overhead, observability, "
        "reconfiguration cost",
    )


def test_same_layer_same_job_without_a_common_unit_is_incomparable() -> None:
    a = Row.create("a", "x", "data_plane", resource_units={"mig_slice"}, functions={"present"})
    b = Row.create("b", "x", "data_plane", resource_units={"time_slice"}, functions={"present"})
    result = pair_verdicts(a, b)
    assert result.verdict == "incomparable"
    assert result.reasons == (
        "same layer (data plane) and the same job (resource presentation) but no common unit "
        "(MIG slice vs time slice): fix a common unit before comparing them",
    )


def test_same_layer_different_jobs_complement_each_other() -> None:
    exporter = Row.create(
        "dcgm", "exporter", "data_plane", resource_units={"none"}, functions={"observe"}
    )
    labeller = Row.create(
        "gfd", "labeller", "data_plane", resource_units={"none"}, functions={"label"}
    )
    result = pair_verdicts(exporter, labeller)
    assert result.holds == ("complements",)
    assert result.reasons == (
        "same layer (data plane), different jobs: dcgm/exporter does observability, "
        "gfd/labeller does node labelling — not alternatives; compare them only through "
        "contracts",
    )


def test_none_is_never_a_common_unit() -> None:
    a = Row.create("a", "x", "platform", resource_units={"none"}, functions={"cost"})
    b = Row.create("b", "x", "platform", resource_units={"none"}, functions={"cost"})
    result = pair_verdicts(a, b)
    assert result.shared_units == ()
    # Issue 27: `none` never makes incomparable (there is no unit to fix).
    assert result.holds == ("complements",)


def test_a_placement_helper_is_never_an_alternative_to_a_batch_scheduler() -> None:
    extender = Row.create(
        "hami",
        "scheduler-extender",
        "control_plane",
        resource_units={"vgpu", "whole_gpu"},
        functions={"device_placement"},
    )
    result = pair_verdicts(extender, volcano_scheduler())
    assert result.holds == ("complements",)
    assert result.shared_functions == ()


def test_two_placement_helpers_for_the_same_unit_compete() -> None:
    hami = Row.create(
        "hami", "ext", "control_plane", resource_units={"vgpu"}, functions={"device_placement"}
    )
    gpushare = Row.create(
        "gpushare", "ext", "control_plane", resource_units={"vgpu"}, functions={"device_placement"}
    )
    assert pair_verdicts(hami, gpushare).verdict == "competes"


def test_two_governance_rows_compete_on_governance() -> None:
    kueue = Row.create(
        "kueue",
        "controller",
        "control_plane",
        resource_units={"whole_gpu"},
        enforcement_points={"admission"},
        functions={"quota", "fair_sharing", "preemption"},
    )
    result = pair_verdicts(kueue, volcano_scheduler())
    assert result.verdict == "competes"
    assert result.shared_functions == ("quota",)


def test_different_layers_without_a_contract_are_independent() -> None:
    a = Row.create("a", "x", "data_plane", resource_units={"whole_gpu"})
    b = Row.create("b", "x", "control_plane", resource_units={"whole_gpu"})
    result = pair_verdicts(a, b)
    assert result.holds == ("independent",)
    assert result.reasons == (
        "different layers (data plane, control plane) and no contract between them: "
        "they can coexist; comparing them head-on is a category error",
    )


def test_a_row_paired_with_itself_is_not_a_pair() -> None:
    row = nvidia_device_plugin()
    with pytest.raises(ValueError, match="paired with itself"):
        pair_verdicts(row, row)


def test_a_scheduler_wildcard_does_not_bind_resources_only_another_scheduler_assigns() -> None:
    hami = hami_device_plugin(requires={"assigner:hami"})
    assert pair_verdicts(hami, volcano_scheduler()).holds == ("independent",)
    assigner = volcano_scheduler(provides={"assigner:hami"})
    assert "composes" in pair_verdicts(hami, assigner).holds


def test_a_queue_wildcard_still_binds_resources_that_need_an_assigner() -> None:
    hami = hami_device_plugin(requires={"assigner:hami"})
    kueue = Row.create(
        "kueue",
        "controller",
        "control_plane",
        enforcement_points={"admission"},
        functions={"quota"},
        accepts={"resource:*"},
    )
    links = pair_verdicts(hami, kueue).links
    assert {link.interface for link in links} == {
        "resource:nvidia.com/gpu",
        "resource:nvidia.com/gpumem",
    }


def test_a_literal_accepts_of_a_scheduler_binds_whatever_the_assigner() -> None:
    hami = hami_device_plugin(requires={"assigner:hami"})
    scheduler = volcano_scheduler(accepts={"resource:nvidia.com/gpumem"})
    assert pair_verdicts(hami, scheduler).verdict == "composes"


def test_baseline_interfaces_bind_when_kubernetes_itself_provides_them() -> None:
    dra = Row.create(
        "kubernetes-dra",
        "resource-api",
        "data_plane",
        functions={"present"},
        provides={"api:kubelet/dra-plugin/v1"},
    )
    driver = Row.create(
        "nvidia-dra-driver-gpu",
        "gpu-kubelet-plugin",
        "data_plane",
        functions={"present"},
        requires={"api:kubelet/dra-plugin/v1"},
        provides={"api:kubelet/dra-plugin/v1"},
    )
    other = Row.create(
        "amd-gpu-dra-driver",
        "kubelet-plugin",
        "data_plane",
        functions={"present"},
        requires={"api:kubelet/dra-plugin/v1"},
    )
    assert pair_verdicts(dra, driver).verdict == "composes"
    # A driver that implements the API offers nothing to another driver.
    assert "composes" not in pair_verdicts(driver, other).holds


def test_a_contract_across_layers_rules_out_independent() -> None:
    assert pair_verdicts(hami_device_plugin(), volcano_scheduler()).holds == ("composes",)


def test_a_shared_token_across_layers_rules_out_independent() -> None:
    operator = Row.create("gpu-operator", "operator", "platform", exclusive={GPU_OWNER})
    assert pair_verdicts(operator, nvidia_device_plugin()).holds == ("conflicts",)


def test_conflicts_comes_before_composes() -> None:
    provider = nvidia_device_plugin()
    consumer = hami_device_plugin(requires={"resource:nvidia.com/gpu"})
    result = pair_verdicts(provider, consumer)
    # Issue 27: the job a consumer shares with the interface it consumes is not rivalry.
    assert result.holds == ("conflicts", "composes", "complements")
    assert result.verdict == "conflicts"
    assert len(result.reasons) == 3


def test_holds_follow_the_display_order() -> None:
    a = Row.create(
        "a",
        "x",
        "data_plane",
        resource_units={"vgpu"},
        exclusive={"t"},
        provides={"crd:x/v1/A"},
        functions={"present"},
    )
    b = Row.create(
        "b",
        "x",
        "data_plane",
        resource_units={"vgpu"},
        exclusive={"t"},
        accepts={"crd:*"},
        functions={"isolate"},
    )
    result = pair_verdicts(a, b)
    # A linked pair is never rivals (issue 27), so the third verdict is complements.
    assert result.holds == ("conflicts", "composes", "complements")
    assert [VERDICTS.index(v) for v in result.holds] == sorted(
        VERDICTS.index(v) for v in result.holds
    )


def test_rows_of_the_same_project_are_marked() -> None:
    device_plugin = hami_device_plugin()
    scheduler = Row.create(
        "hami", "scheduler", "control_plane", requires={"resource:nvidia.com/gpumem"}
    )
    result = pair_verdicts(device_plugin, scheduler)
    assert result.same_project
    assert result.verdict == "composes"
    assert not pair_verdicts(device_plugin, volcano_scheduler()).same_project


def test_matrix_oracle_covers_each_unordered_pair_once() -> None:
    rows = [hami_device_plugin(), nvidia_device_plugin(), volcano_scheduler()]
    pairs = [(p.a, p.b) for p in matrix_oracle(rows)]
    assert pairs == [
        ("hami/device-plugin", "nvidia-device-plugin/plugin"),
        ("hami/device-plugin", "volcano/scheduler"),
        ("nvidia-device-plugin/plugin", "volcano/scheduler"),
    ]


def test_a_row_is_built_from_a_bundle_placement() -> None:
    placement = {
        "key": "device-plugin",
        "component": "HAMi device plugin and HAMi-core",
        "layer": "data_plane",
        "resource_units": ["memory_compute_quota"],
        "enforcement_points": ["runtime_interception"],
        "isolation": {"memory": "hard", "compute": "soft"},
        "promise": "…",
        "provides": ["resource:nvidia.com/gpumem"],
        "requires": ["api:kubelet/device-plugin/v1beta1"],
        "exclusive": [GPU_OWNER],
    }
    row = row_from_bundle("hami", placement, project_name="HAMi")
    assert row.id == "hami/device-plugin"
    assert row.provides == frozenset({"resource:nvidia.com/gpumem"})
    assert row.accepts == frozenset()
    assert dict(row.isolation) == {"memory": "hard", "compute": "soft", "fault": "none"}
    assert row.label == "HAMi device-plugin"


def test_a_row_refuses_an_unknown_layer_and_names_the_allowed_ones() -> None:
    with pytest.raises(ValueError, match="data_plane, control_plane, platform"):
        Row.create("a", "x", "node")


def test_a_row_refuses_an_unknown_isolation_level() -> None:
    with pytest.raises(ValueError, match="hard, soft, none"):
        Row.create("a", "x", "data_plane", isolation={"memory": "strong"})


def test_rows_are_hashable() -> None:
    assert len({hami_device_plugin(), hami_device_plugin()}) == 1


# Issue 27: the rule's remaining defects.


def test_a_row_that_presents_no_unit_never_makes_incomparable() -> None:
    # DCGM exporter and HAMi both observe, but an observer has no unit to compare.
    exporter = Row.create(
        "dcgm-exporter", "exporter", "data_plane", resource_units={"none"}, functions={"observe"}
    )
    hami = hami_device_plugin(functions={"present", "isolate", "observe"})
    result = pair_verdicts(exporter, hami)
    assert result.holds == ("complements",)
    assert "presents no resource unit" in result.reasons[0]
    assert "fix a common unit" not in result.reasons[0]


def test_a_function_shared_by_a_consumer_and_the_api_it_consumes_is_not_rivalry() -> None:
    # KAI consumes the ResourceClaims that DRA core allocates: both 'allocate', one chain.
    core = Row.create(
        "kubernetes-dra",
        "core-allocation",
        "control_plane",
        resource_units={"dra_claim"},
        functions={"allocation"},
        provides={"api:resource.k8s.io/v1/ResourceClaim"},
    )
    kai = Row.create(
        "kai-scheduler",
        "scheduler",
        "control_plane",
        resource_units={"dra_claim", "whole_gpu"},
        functions={"allocation", "quota"},
        accepts={"api:resource.k8s.io/v1/ResourceClaim"},
        enforcement_points={"scheduler"},
    )
    result = pair_verdicts(kai, core)
    assert result.holds == ("composes", "complements")
    assert not any("alternatives" in reason for reason in result.reasons)


def test_modes_of_one_component_that_compose_do_not_conflict_over_its_own_token() -> None:
    # The device plugin time-slices the MIG devices its mixed strategy advertises: one
    # DaemonSet, one owner of the node's GPUs, configured both ways.
    mig = nvidia_device_plugin(
        resource_units={"mig_slice"}, provides={"resource:nvidia.com/mig-1g.5gb"}
    )
    sliced = Row.create(
        "nvidia-device-plugin",
        "time-slicing",
        "data_plane",
        resource_units={"time_slice"},
        functions={"present"},
        accepts={"resource:nvidia.com/mig-*"},
        exclusive={GPU_OWNER},
    )
    assert pair_verdicts(mig, sliced).holds == ("composes", "complements")
    # Another project's plugin on the same GPUs still conflicts, linked or not.
    hami = hami_device_plugin(accepts={"resource:nvidia.com/mig-*"})
    assert pair_verdicts(mig, hami).holds[0] == "conflicts"
