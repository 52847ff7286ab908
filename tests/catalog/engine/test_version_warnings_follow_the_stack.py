"""Version warnings name only what the stack uses (issue 42 item 4): a Kueue pinned at 0.10.1
lacks its DRA APIs (api:resource.k8s.io/v1/…, since 0.18/0.19), which is said only when another
row of the stack offers or needs DRA; its own v1beta2 objects are always said."""

from __future__ import annotations

from catalog.engine.profile import Profile
from catalog.engine.rows import Row
from catalog.engine.stack import check_stack

DEVICE_CLASS = "api:resource.k8s.io/v1/DeviceClass"
V1BETA2 = "crd:kueue.x-k8s.io/v1beta2/ClusterQueue"
PROFILE = Profile.from_dict({"component_versions": {"kueue": "0.10.1"}})


def kueue() -> Row:
    return Row.create(
        "kueue",
        "controller",
        "control_plane",
        provides={V1BETA2},
        accepts={DEVICE_CLASS},
        contract_versions={DEVICE_CLASS: {"since": "0.19.0"}, V1BETA2: {"since": "0.15.0"}},
    )


def device_plugin() -> Row:
    return Row.create("nvidia-device-plugin", "whole-gpu", "data_plane")


def dra_driver() -> Row:
    return Row.create(
        "nvidia-dra-driver-gpu", "gpu-kubelet-plugin", "data_plane", provides={DEVICE_CLASS}
    )


def said(rows: list[Row]) -> str:
    report = check_stack(rows, profile=PROFILE)
    return " | ".join(f.message for f in report.fit if f.aspect == "versions")


def test_a_stack_without_dra_hears_nothing_of_kueues_dra_apis():
    text = said([kueue(), device_plugin()])

    assert "resource.k8s.io" not in text
    assert V1BETA2 in text  # Kueue's own objects are always worth saying


def test_a_stack_with_a_dra_driver_hears_of_them():
    assert DEVICE_CLASS in said([kueue(), dra_driver()])


# ---- what is said about shared GPUs follows the pools ---------------------------------------

MIXED = Profile.from_dict(
    {
        "workload_types": ["training", "online_inference"],
        "primary_objective": "p99_latency",
        "tenancy": "single",
    }
)
SHARES = "online inference shares GPUs with training"


def _fit_text(pools=None) -> str:
    rows = [device_plugin()]
    report = check_stack(rows, profile=MIXED, pools=pools)
    return " | ".join(f.message for f in report.fit if f.aspect == "capabilities")


def test_one_pool_for_both_says_inference_shares_gpus_with_training():
    assert SHARES in _fit_text()


def test_split_training_and_inference_pools_do_not_say_it():
    pools = {"training": ["nvidia-device-plugin/whole-gpu"], "inference": []}

    assert SHARES not in _fit_text(pools)
