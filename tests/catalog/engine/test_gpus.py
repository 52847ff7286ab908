"""GPU model facts: the sourced file loads, teams' names find their model, MIG layouts are checked.

Expectations cite the vendor pages the facts file cites:
  MIG-GPUS     https://docs.nvidia.com/datacenter/tesla/mig-user-guide/supported-gpus.html
  MIG-PROFILES https://docs.nvidia.com/datacenter/tesla/mig-user-guide/supported-mig-profiles.html
  MIG-LGIPP    https://docs.nvidia.com/datacenter/tesla/mig-user-guide/getting-started-with-mig.html
  MIG-CONCEPTS https://docs.nvidia.com/datacenter/tesla/mig-user-guide/concepts.html
  AMD-PROFILER https://rocm.docs.amd.com/projects/rocprofiler-compute/en/develop/conceptual/cdna/compute-memory-partition.html
  AMD-SMI      https://rocm.docs.amd.com/projects/amdsmi/en/docs-7.1.1/doxygen/docBin/html/structamdsmi__accelerator__partition__profile__t.html
               ("On MI300X: SPX=>1, DPX=>2, QPX=>4, CPX=>8")
  AMD-MATRIX   https://instinct.docs.amd.com/projects/amdgpu-docs/en/latest/gpu-partitioning/index.html
               (MI300X: SPX + NPS1 and CPX + NPS4 validated)
  AMD-AAC      https://aac.amd.com/help/bare-metal/gpu-partitioning/ (MI325X, MI355X: 1, 2, 4, 8
               logical GPUs per physical GPU in SPX, DPX, QPX, CPX)
  AMD-SPEC     https://github.com/ROCm/rocm-systems/blob/1b1610fc2b2ab32af71e6e04e4d4a6a4ae597992/projects/rocprofiler-compute/src/utils/mi_gpu_spec.yaml
               (XCDs per partition and the compute modes under each memory mode, per model)
"""

from __future__ import annotations

from datetime import date

import pytest

from catalog.engine.gpus import (
    GPU_VENDORS,
    SHARING_FEATURES,
    _load_models,
    gpu_model_choices,
    gpu_model_find,
    gpu_models,
    mig_layout_valid,
    mig_profiles_for,
)


def model(key):
    found = {m.key: m for m in gpu_models()}
    return found[key]


def test_the_facts_file_loads_with_the_models_teams_ask_about():
    keys = {m.key for m in gpu_models()}
    assert {
        "a100-40gb",
        "a100-80gb",
        "a30",
        "h100-80gb",
        "h100-nvl-94gb",
        "h200-141gb",
        "b200",
        "gb200",
        "l4",
        "l40s",
        "rtx-pro-6000-bse",
        "mi210",
        "mi250",
        "mi250x",
        "mi300x",
        "mi325x",
        "mi355x",
        "ascend-910b",
    } <= keys
    assert gpu_model_choices()[0] == ("a100-40gb", "NVIDIA A100 40GB")  # file order
    assert len(gpu_model_choices()) == len(gpu_models())


@pytest.mark.parametrize("gpu", gpu_models(), ids=lambda m: m.key)
def test_every_model_is_sourced_and_dated(gpu):
    assert gpu.sources and all(s.startswith("https://") for s in gpu.sources)
    # checked in the facts round that began 2026-12-01 (AMD partition counts re-checked later)
    assert date.fromisoformat(gpu.verified_at) >= date(2026, 12, 1)
    assert gpu.vendor in GPU_VENDORS
    assert gpu.sharing <= set(SHARING_FEATURES)
    assert gpu.has_mig == bool(gpu.mig_profiles)


def test_h100_80gb_has_mig_from_1g_10gb_to_7g_80gb_and_at_most_seven_instances():
    # MIG-PROFILES, "GPU Instance Profiles on H100"; MIG-GPUS: H100 max 7 instances.
    h100 = model("h100-80gb")
    assert h100.has_mig
    assert h100.mig_max_instances == 7
    assert [p.name for p in h100.mig_profiles] == [
        "1g.10gb",
        "1g.10gb+me",
        "1g.20gb",
        "2g.20gb",
        "3g.40gb",
        "4g.40gb",
        "7g.80gb",
    ]
    one = h100.mig_profile("1g.10gb")
    assert (one.compute_slices, one.memory_gb, one.max_instances) == (1, 10, 7)
    assert h100.mig_profile("MIG 7g.80gb").size == 8
    assert mig_profiles_for("nvidia h100") == h100.mig_profiles


def test_l4_and_l40s_have_no_mig():
    # MIG-GPUS lists neither L4 nor L40S among MIG-capable products.
    for key in ("l4", "l40s"):
        gpu = model(key)
        assert not gpu.has_mig and gpu.mig_profiles == () and gpu.mig_max_instances is None
        assert {"time_slicing", "mps"} <= gpu.sharing
    assert mig_profiles_for("L40S") == ()
    assert not mig_layout_valid(model("l4"), ["1g.10gb"])


def test_amd_models_are_amd_and_have_no_mig():
    amd = [m for m in gpu_models() if m.key.startswith("mi")]
    assert len(amd) == 6
    for gpu in amd:
        assert gpu.vendor == "amd" and not gpu.has_mig and gpu.mig_profiles == ()
    # AMD-PROFILER: MI300X/MI325X/MI355X partition; MI200-series do not use these modes.
    assert "CPX" in model("mi300x").amd_compute_partitions
    assert "NPS4" in model("mi300x").amd_memory_partitions
    assert model("mi210").sharing == frozenset()
    assert model("mi210").amd_logical_gpus == () and model("mi210").amd_combinations == ()


@pytest.mark.parametrize("key", ["mi300x", "mi325x", "mi355x"])
def test_each_partitioning_amd_model_shows_one_two_four_or_eight_gpus_per_compute_mode(key):
    # AMD-SMI (MI300X), AMD-AAC (MI325X, MI355X), AMD-SPEC (all three: 8 XCDs; 8/4/2/1 per mode)
    gpu = model(key)
    assert dict(gpu.amd_logical_gpus) == {"SPX": 1, "DPX": 2, "QPX": 4, "CPX": 8}
    assert gpu.amd_partitions_per_gpu("CPX") == 8
    assert gpu.amd_partitions_per_gpu("TPX") is None  # no sourced count: not used


def test_the_documented_compute_memory_pairs_are_the_models_own():
    # AMD-MATRIX for MI300X; AMD-SPEC for MI325X (CPX under NPS1 and NPS4) and MI355X (CPX under
    # NPS1; its CPX-NPS2 is the SR-IOV pair of AMD's GIM notes)
    assert model("mi300x").amd_combinations == (("SPX", "NPS1"), ("CPX", "NPS4"))
    assert {("CPX", "NPS1"), ("CPX", "NPS4")} <= set(model("mi325x").amd_combinations)
    assert ("CPX", "NPS1") in model("mi355x").amd_combinations
    assert not any(memory == "NPS4" for _c, memory in model("mi355x").amd_combinations)


@pytest.mark.parametrize(
    ("text", "key"),
    [
        ("nvidia h100", "h100-80gb"),
        ("H100", "h100-80gb"),
        ("A100-SXM4-80GB", "a100-80gb"),
        ("NVIDIA A100-SXM4-80GB", "a100-80gb"),
        ("a100 80gb", "a100-80gb"),
        ("mi300x", "mi300x"),
        ("AMD Instinct MI300X", "mi300x"),
        ("Ascend 910B", "ascend-910b"),
        ("h100_nvl", "h100-nvl-94gb"),
    ],
)
def test_what_teams_type_finds_the_model(text, key):
    assert gpu_model_find(text).key == key


@pytest.mark.parametrize("text", [None, "", "  ", "NVIDIA", "V100", "a100 160gb"])
def test_unknown_text_finds_nothing(text):
    assert gpu_model_find(text) is None
    assert mig_profiles_for(text) == ()


# Combinations below follow the MIG user guide: placements from MIG-LGIPP ({0..6}:1 for 1g,
# {0,4}:4 for 3g, {0}:4 for 4g, {0}:8 for 7g), per-profile counts from MIG-PROFILES, and
# MIG-CONCEPTS ("prior to R510, the combination of a (4 memory, 4 compute) and a (4 memory,
# 3 compute) profile was not supported. This restriction no longer applies").
@pytest.mark.parametrize(
    ("profiles", "valid"),
    [
        (["1g.10gb"] * 7, True),  # seven 1g instances, one per placement 0..6
        (["1g.10gb"] * 8, False),  # more than the 7 instances the H100 allows
        (["4g.40gb", "3g.40gb"], True),  # 4g at slice 0, 3g at slice 4
        (["4g.40gb", "4g.40gb"], False),  # one 4g instance available
        (["7g.80gb", "1g.10gb"], False),  # 7g occupies all 8 memory slices
        (["3g.40gb", "3g.40gb"], True),  # the guide's two-3g example
        (["3g.40gb", "2g.20gb", "1g.10gb", "1g.10gb"], True),  # the guide's 3-2-1-1 geometry
        (["1g.20gb"] * 5, False),  # 1g.20gb: 4 instances available
        (["1g.5gb"], False),  # an A100 40GB profile is not an H100 profile
        ([], True),
    ],
)
def test_mig_layouts_on_one_h100(profiles, valid):
    assert mig_layout_valid(model("h100-80gb"), profiles) is valid


def test_a_layout_that_counts_allow_but_placements_do_not_is_invalid():
    # MIG-LGIPP: 2g.10gb starts at {0,2,4} (2 slices), 3g.20gb at {0,4} (4 slices). Two 2g at 0
    # and 2 leave slices 4-7 for the 3g; three 2g use slices 0-5, so neither 3g start is free.
    a100 = model("a100-40gb")
    assert mig_layout_valid(a100, ["3g.20gb", "2g.10gb", "2g.10gb"])
    assert not mig_layout_valid(a100, ["2g.10gb", "2g.10gb", "2g.10gb", "3g.20gb"])


BAD_MODEL = """\
format: ecomap.gpus/v1
models:
- key: tpu-x
  name: Imaginary accelerator
  vendor: {vendor}
  memory_gb: 16
  aliases: []
  sharing: {sharing}
  {extra}
  sources: [https://example.org/tpu]
  verified_at: "2026-12-01"
  unverified: []
"""


@pytest.mark.parametrize(
    ("vendor", "sharing", "extra", "field"),
    [
        ("google", "[]", "", "vendor"),
        ("nvidia", "[sharding]", "", "sharing"),
        ("nvidia", "[mps]", "mig: {max_instances: 7, profiles: []}", "mig"),
        ("nvidia", "[mig]", "", "mig"),
        ("nvidia", "[]", "amd_partitions: {compute: [SPX], memory: []}", "amd_partitions"),
        (
            "amd",
            "[amd_compute_partition, amd_memory_partition]",
            "amd_partitions: {compute: [SPX], memory: [NPS1], logical_gpus: {CPX: 8}}",
            "logical_gpus",
        ),
        (
            "amd",
            "[amd_compute_partition, amd_memory_partition]",
            "amd_partitions: {compute: [CPX], memory: [NPS1], logical_gpus: {CPX: 0}}",
            "logical_gpus",
        ),
        (
            "amd",
            "[amd_compute_partition, amd_memory_partition]",
            "amd_partitions: {compute: [CPX], memory: [NPS1], combinations: [CPX-NPS4]}",
            "combinations",
        ),
    ],
)
def test_a_bad_file_names_the_model_and_the_field(tmp_path, vendor, sharing, extra, field):
    path = tmp_path / "gpus.yaml"
    path.write_text(BAD_MODEL.format(vendor=vendor, sharing=sharing, extra=extra))
    with pytest.raises(ValueError, match=rf"model 'tpu-x'.*field '{field}'"):
        _load_models(path)


def test_an_alias_naming_two_models_is_refused(tmp_path):
    path = tmp_path / "gpus.yaml"
    one = BAD_MODEL.format(vendor="nvidia", sharing="[]", extra="")
    two = (
        one.split("models:\n", 1)[1]
        .replace("tpu-x", "tpu-y")
        .replace("aliases: []", 'aliases: ["TPU X"]')
    )
    path.write_text(one + two)
    with pytest.raises(ValueError, match=r"model 'tpu-y'.*field 'aliases'.*'tpu-x'"):
        _load_models(path)
