"""Intel Gaudi facts: the models load, teams' names find them, and Intel GPU presenters do not fit.

Expectations cite the sources the facts file cites:
  GAUDI-ARCH   https://docs.habana.ai/en/latest/Gaudi_Overview/Gaudi_Architecture.html
               (Gaudi 2: 96 GB HBM2E)
  GAUDI3-WP    https://cdrdv2-public.intel.com/817486/gaudi-3-ai-accelerator-white-paper.pdf
               (Gaudi 3: 128 GB HBM2e)
  GAUDI3-BRIEF https://cdrdv2-public.intel.com/817487/gaudi-3-ai-accelerator-hl-325l-oam-mezzanine-card-product-brief.pdf
               (HL-325L is the Gaudi 3 OAM card)
  GAUDI-FW     https://docs.habana.ai/en/latest/Installation_Guide/Firmware_and_Platform_Components/index.html
               (card names HL-225, HL-325, HL-338)
  GAUDI-OP     https://docs.habana.ai/en/latest/Installation_Guide/Additional_Installation/Kubernetes_Installation/Deamonsets_Kubernetes_Operator.html
               (the Gaudi device plugin exposes habana.ai/gaudi)
  GAUDI-DRA    https://github.com/intel/intel-resource-drivers-for-kubernetes/blob/gaudi-v0.7.2/charts/intel-gaudi-resource-driver/templates/device-class.yaml
               (DeviceClass gaudi.intel.com); pkg/gaudi/device/device.go at the same tag (models
               Gaudi2 and Gaudi3)
  INTEL-GPU    https://github.com/intel/intel-device-plugins-for-kubernetes/blob/v0.36.0/cmd/gpu_plugin/README.md
               (the Intel GPU plugin advertises gpu.intel.com/i915 and gpu.intel.com/xe)
"""

from __future__ import annotations

import pytest

from catalog.engine.fit import gpu_fit, presents_other_devices
from catalog.engine.gpus import _load_models, gpu_model_find, gpu_models
from catalog.engine.rows import Row
from tests.factories import builtin_rows


def gaudi(key):
    return {m.key: m for m in gpu_models()}[key]


def test_gaudi_2_and_gaudi_3_are_intel_models_with_their_memory_and_no_sharing_feature():
    # GAUDI-ARCH: 96 GB on Gaudi 2; GAUDI3-WP: 128 GB on Gaudi 3; no sharing mode is documented.
    assert (gaudi("gaudi2").vendor, gaudi("gaudi2").memory_gb) == ("intel", 96)
    assert (gaudi("gaudi3").vendor, gaudi("gaudi3").memory_gb) == ("intel", 128)
    for key in ("gaudi2", "gaudi3"):
        assert gaudi(key).sharing == frozenset()
        assert not gaudi(key).has_mig and gaudi(key).amd_compute_partitions == ()
        assert gaudi(key).verified_at == "2026-12-06"


@pytest.mark.parametrize(
    ("text", "key"),
    [
        ("Gaudi 3", "gaudi3"),
        ("Gaudi3", "gaudi3"),  # GAUDI-DRA: the model attribute of the driver's ResourceSlices
        ("Intel Gaudi 3", "gaudi3"),
        ("HL-325L", "gaudi3"),  # GAUDI3-BRIEF
        ("hl-338", "gaudi3"),  # GAUDI-FW: the Gaudi 3 PCIe card
        ("Intel Gaudi2", "gaudi2"),
        ("Habana Gaudi2", "gaudi2"),
        ("gaudi_2", "gaudi2"),
        ("HL-225", "gaudi2"),  # GAUDI-FW
    ],
)
def test_what_teams_type_finds_the_gaudi(text, key):
    assert gpu_model_find(text).key == key


@pytest.mark.parametrize("text", ["Intel", "Habana", "Gaudi", "Intel Gaudi", "HL-205"])
def test_the_vendor_words_alone_or_the_first_gaudi_find_nothing(text):
    assert gpu_model_find(text) is None


def test_gaudi_is_presented_as_the_gaudi_plugin_resource_or_the_gaudi_device_class():
    # GAUDI-OP (habana.ai/gaudi) and GAUDI-DRA (DeviceClass gaudi.intel.com)
    for key in ("gaudi2", "gaudi3"):
        assert gaudi(key).presented_as == (
            "resource:habana.ai/gaudi",
            "deviceclass:gaudi.intel.com",
        )


def test_the_intel_gpu_presenters_do_not_present_a_gaudi_but_the_gaudi_dra_driver_does():
    # INTEL-GPU: gpu.intel.com/i915 and /xe only; GAUDI-DRA: gaudi.intel.com
    rows = builtin_rows(maintained_only=True)
    gaudi3 = gaudi("gaudi3")
    for other in (
        "intel-gpu-device-plugin/whole-gpu",
        "intel-gpu-device-plugin/shared-dev",
        "intel-resource-drivers/gpu-kubelet-plugin",
    ):
        assert presents_other_devices(rows[other], gaudi3), other
    assert not presents_other_devices(rows["intel-resource-drivers/gaudi-kubelet-plugin"], gaudi3)
    # a vendor-neutral row and another vendor's row are judged elsewhere (Row.serves), not here
    assert not presents_other_devices(rows["kubernetes-dra/resource-api"], gaudi3)
    assert not presents_other_devices(rows["nvidia-device-plugin/whole-gpu"], gaudi3)


def test_the_stack_check_blocks_an_intel_gpu_plugin_on_gaudi_nodes():
    plugin = Row.create(
        "intel-gpu-device-plugin",
        "whole-gpu",
        "data_plane",
        functions={"present"},
        vendors={"intel"},
        provides={"resource:gpu.intel.com/xe"},
        name="Intel GPU device plugin",
    )
    findings = gpu_fit([plugin], gaudi("gaudi3"))
    assert [(f.aspect, f.status, f.blocking) for f in findings] == [("gpu", "gap", True)]
    assert "presented as resource:habana.ai/gaudi" in str(findings[0].message)


def test_presented_as_names_only_resources_or_device_classes(tmp_path):
    path = tmp_path / "gpus.yaml"
    path.write_text(
        "format: ecomap.gpus/v1\n"
        "models:\n"
        "- key: npu-x\n"
        "  name: Imaginary NPU\n"
        "  vendor: intel\n"
        "  memory_gb: 16\n"
        "  sharing: []\n"
        '  presented_as: ["label:npu.example.com/present"]\n'
        "  sources: [https://example.org/npu]\n"
        '  verified_at: "2026-12-06"\n'
    )
    with pytest.raises(ValueError, match=r"model 'npu-x'.*field 'presented_as'"):
        _load_models(path)
