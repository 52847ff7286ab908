"""Misjudgement warnings for candidates put up as alternatives."""

from __future__ import annotations

import json

import pytest

from catalog.engine.rows import Row
from evaluations.engine.misjudge import (
    CROSS_LAYER,
    DIFFERENT_JOBS,
    NO_COMMON_UNIT,
    PLATFORM_AS_MECHANISM,
    misjudgements,
)
from tests.factories import builtin_rows


@pytest.fixture(scope="module")
def catalog() -> dict[str, Row]:
    return builtin_rows()


def candidates(catalog: dict[str, Row], *ids: str) -> list[Row]:
    return [catalog[i] for i in ids]


def test_hami_device_plugin_and_kueue_are_not_competitors_but_compose(catalog):
    found = misjudgements(candidates(catalog, "kueue/controller", "hami/device-plugin"))

    assert [m.kind for m in found] == [CROSS_LAYER]
    message = found[0].message
    assert message.startswith(
        "HAMi device-plugin (data plane) and Kueue controller (control plane) are not "
        "competitors — they compose through"
    )
    assert "resource:nvidia.com/gpumem" in message
    assert {link.interface for link in found[0].links} >= {"resource:nvidia.com/gpumem"}
    assert found[0].rows == ("hami/device-plugin", "kueue/controller")


def test_hami_device_plugin_and_volcano_are_not_competitors_either(catalog):
    found = misjudgements(candidates(catalog, "volcano/scheduler", "hami/device-plugin"))

    assert [m.kind for m in found] == [CROSS_LAYER]
    assert found[0].message.startswith(
        "HAMi device-plugin (data plane) and Volcano scheduler (control plane) are not competitors"
    )


def test_two_rows_of_one_project_are_never_a_misjudgement(catalog):
    found = misjudgements(candidates(catalog, "hami/device-plugin", "hami/scheduler-extender"))

    assert found == []


def test_rows_of_different_layers_without_a_contract_can_coexist(catalog):
    found = misjudgements(candidates(catalog, "dcgm-exporter/exporter", "kueue/controller"))

    assert [m.kind for m in found] == [CROSS_LAYER]
    assert found[0].message.endswith(
        "they can coexist; compare them only through interface contracts"
    )
    assert found[0].links == ()


def test_gpustack_beside_hami_is_a_platform_standing_in_for_a_mechanism(catalog):
    found = misjudgements(candidates(catalog, "gpustack/platform", "hami/device-plugin"))

    assert [m.kind for m in found] == [PLATFORM_AS_MECHANISM]
    message = found[0].message
    assert message.startswith(
        "GPUStack platform (platform) is not a substitute for a mechanism: decompose which "
        "data-plane and control-plane capabilities it relies on:"
    )
    for relied_on in ("capability:nvidia-driver", "crd:kueue.x-k8s.io/*"):
        assert relied_on in message


def test_a_platform_names_the_candidates_it_is_wired_to(catalog):
    found = misjudgements(
        candidates(catalog, "nvidia-gpu-operator/clusterpolicy", "hami/device-plugin")
    )

    assert [m.kind for m in found] == [PLATFORM_AS_MECHANISM]
    assert "capability:nvidia-driver" in {link.interface for link in found[0].links}
    assert "which HAMi device-plugin requires" in found[0].message


def test_a_platform_put_up_alone_with_platforms_is_not_a_mechanism_misjudgement(catalog):
    found = misjudgements(candidates(catalog, "gpustack/platform", "kserve/controller"))

    assert PLATFORM_AS_MECHANISM not in {m.kind for m in found}


def test_same_layer_rows_with_disjoint_units_need_a_common_unit_first(catalog):
    found = misjudgements(
        candidates(catalog, "nvidia-device-plugin/whole-gpu", "intel-gpu-device-plugin/shared-dev")
    )

    assert [m.kind for m in found] == [NO_COMMON_UNIT]
    assert "compare only after fixing a common unit" in found[0].message
    assert "(time_slice vs whole_gpu)" in found[0].message


def test_same_layer_rows_doing_different_jobs_are_not_alternatives(catalog):
    found = misjudgements(candidates(catalog, "hami/scheduler-extender", "kueue/controller"))

    assert [m.kind for m in found] == [DIFFERENT_JOBS]
    assert "do different jobs (device placement vs" in found[0].message


def test_same_layer_rows_sharing_a_unit_are_a_fair_comparison(catalog):
    found = misjudgements(
        candidates(catalog, "hami/device-plugin", "volcano-vgpu-device-plugin/device-plugin")
    )

    assert found == []


def test_misjudgements_do_not_depend_on_the_order_candidates_come_in(catalog):
    ids = ["volcano/scheduler", "gpustack/platform", "hami/device-plugin", "nvidia-mig/mig-manager"]

    forward = misjudgements(candidates(catalog, *ids))
    backward = misjudgements(candidates(catalog, *reversed(ids)))

    assert [m.to_dict() for m in forward] == [m.to_dict() for m in backward]
    # HAMi's device plugin presents and isolates; MIG Manager partitions: different jobs.
    assert [m.kind for m in forward] == [
        CROSS_LAYER,
        CROSS_LAYER,
        PLATFORM_AS_MECHANISM,
        DIFFERENT_JOBS,
    ]


def test_a_misjudgement_serialises_to_json(catalog):
    found = misjudgements(candidates(catalog, "hami/device-plugin", "kueue/controller"))

    data = json.loads(json.dumps([m.to_dict() for m in found]))

    assert data[0]["kind"] == CROSS_LAYER
    assert data[0]["links"][0]["provider"] == "hami/device-plugin"


def test_a_consumer_and_the_api_it_consumes_are_said_to_work_together(catalog):
    """Issue 27: KAI allocates DRA claims through the DRA core; they share the allocation job
    but are one chain, so the warning must not call it "different jobs"."""
    found = misjudgements(
        candidates(catalog, "kai-scheduler/scheduler", "kubernetes-dra/core-allocation")
    )

    messages = [str(m.message) for m in found]
    assert any("one consumes what the other provides" in m for m in messages), messages
    assert not any("different jobs" in m for m in messages), messages
