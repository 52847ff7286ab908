"""Issue 38 item 3: a Gaudi 3 fleet is recommended Intel's Gaudi presenter, never another vendor's
data plane and never the Intel GPU plugins, which present other devices."""

from __future__ import annotations

import pytest

from catalog.engine.profile import Profile
from evaluations.engine.recommend import recommend
from tests.factories import builtin_rows

GAUDI_TRAINING = {
    "workload_types": ["training"],
    "isolation": "hard",
    "tenancy": "single",
    "gpu_model": "Gaudi 3",
}


@pytest.fixture(scope="module")
def catalog():
    return builtin_rows(maintained_only=True)


@pytest.fixture(scope="module")
def ranking(catalog):
    return recommend(Profile.from_dict(GAUDI_TRAINING), list(catalog.values()), limit=5)


def test_a_gaudi_3_training_profile_is_offered_the_gaudi_dra_driver(ranking):
    # The Gaudi DRA driver publishes Gaudi2 and Gaudi3 devices (intel-resource-drivers-for-
    # kubernetes gaudi-v0.7.2, pkg/gaudi/device/device.go); the catalog has no Gaudi device plugin.
    assert ranking, ranking.left_out
    for recommendation in ranking:
        assert "intel-resource-drivers/gaudi-kubelet-plugin" in recommendation.rows


def test_a_gaudi_3_stack_holds_no_nvidia_amd_or_intel_gpu_data_plane_row(ranking, catalog):
    # Gaudi 3 is made by Intel (gpus.yaml, Intel Gaudi 3 white paper); the Intel GPU plugins present
    # gpu.intel.com/i915 and /xe (intel-device-plugins-for-kubernetes v0.36.0 GPU plugin README)
    # and GPUs of driver gpu.intel.com (intel-resource-drivers gpu-v0.11.0), not Gaudi devices.
    for recommendation in ranking:
        plane = [catalog[i] for i in recommendation.rows if catalog[i].layer == "data_plane"]
        assert not any({"nvidia", "amd", "huawei"} & row.vendors for row in plane), (
            recommendation.rows
        )
        assert not any(
            row.id.startswith("intel-gpu-device-plugin/")
            or row.id == "intel-resource-drivers/gpu-kubelet-plugin"
            for row in plane
        ), recommendation.rows


def test_the_ranking_says_why_the_intel_gpu_plugins_were_left_out(ranking):
    said = " ".join(str(reason) for reason in ranking.left_out)
    assert "presented as resource:habana.ai/gaudi, deviceclass:gaudi.intel.com" in said
    assert "intel-gpu-device-plugin (whole-gpu, shared-dev)" in said
    assert "intel-resource-drivers (gpu-kubelet-plugin)" in said
    assert "nvidia-device-plugin" in said  # another vendor's rows, with the facts' reason
