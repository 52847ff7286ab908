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
        "name": "NVIDIA device-plugin",
    }
    fields.update(extra)
    return Row.create("nvidia-device-plugin", "plugin", "data_plane", **fields)


def volcano_scheduler(**extra: object) -> Row:
    fields = {
        "resource_units": {"whole_gpu"},
        "provides": {"capability:gang-scheduling", "crd:scheduling.volcano.sh/v1beta1/PodGroup"},
        "accepts": {"resource:*"},
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
        "mig", "plugin", "data_plane", resource_units={"whole_gpu"}, exclusive={GPU_OWNER}
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


def test_same_layer_with_overlapping_units_competes() -> None:
    a = Row.create("a", "x", "data_plane", resource_units={"whole_gpu", "mig_slice"})
    b = Row.create("b", "x", "data_plane", resource_units={"whole_gpu"})
    result = pair_verdicts(a, b)
    assert result.verdict == "competes"
    assert result.shared_units == ("whole_gpu",)
    assert result.reasons == (
        "same layer (data_plane) and overlapping resource units: whole_gpu — alternatives; "
        "compare isolation, overhead, observability, reconfiguration cost",
    )


def test_same_layer_with_disjoint_units_is_incomparable() -> None:
    a = Row.create("a", "x", "data_plane", resource_units={"mig_slice"})
    b = Row.create("b", "x", "data_plane", resource_units={"time_slice"})
    result = pair_verdicts(a, b)
    assert result.verdict == "incomparable"
    assert result.reasons == (
        "same layer (data_plane), disjoint units (mig_slice vs time_slice): "
        "compare them only after fixing a common unit",
    )


def test_different_layers_without_a_contract_are_independent() -> None:
    a = Row.create("a", "x", "data_plane", resource_units={"whole_gpu"})
    b = Row.create("b", "x", "control_plane", resource_units={"whole_gpu"})
    result = pair_verdicts(a, b)
    assert result.holds == ("independent",)
    assert result.reasons == (
        "different layers (data_plane, control_plane) and no contract between them: "
        "they can coexist; comparing them head-on is a category error",
    )


def test_a_contract_across_layers_rules_out_independent() -> None:
    assert pair_verdicts(hami_device_plugin(), volcano_scheduler()).holds == ("composes",)


def test_a_shared_token_across_layers_rules_out_independent() -> None:
    operator = Row.create("gpu-operator", "operator", "platform", exclusive={GPU_OWNER})
    assert pair_verdicts(operator, nvidia_device_plugin()).holds == ("conflicts",)


def test_conflicts_comes_before_composes() -> None:
    provider = nvidia_device_plugin()
    consumer = hami_device_plugin(requires={"resource:nvidia.com/gpu"})
    result = pair_verdicts(provider, consumer)
    assert result.holds == ("conflicts", "composes", "incomparable")
    assert result.verdict == "conflicts"
    assert len(result.reasons) == 3


def test_holds_follow_the_display_order() -> None:
    a = Row.create(
        "a", "x", "data_plane", resource_units={"vgpu"}, exclusive={"t"}, provides={"crd:x/v1/A"}
    )
    b = Row.create(
        "b", "x", "data_plane", resource_units={"vgpu"}, exclusive={"t"}, accepts={"crd:*"}
    )
    result = pair_verdicts(a, b)
    assert result.holds == ("conflicts", "composes", "competes")
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
