"""The catalog's regression suite: relations the projects' own docs state (in
documented_relations.yaml) and the method's own examples, asserted against the engine on the
built-in catalog."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest
import yaml

from catalog.engine.compatibility import compute_matrix
from catalog.engine.oracle import pair_verdicts
from tests.factories import builtin_rows

RELATIONS = yaml.safe_load(
    (Path(__file__).parent / "documented_relations.yaml").read_text(encoding="utf-8")
)
GOVERNORS = (
    "kueue/controller",
    "volcano/scheduler",
    "yunikorn/scheduler",
    "kai-scheduler/scheduler",
    "scheduler-plugins/plugins",
)


ROWS = builtin_rows()
MATRIX = compute_matrix(list(ROWS.values()))


def verdict(a: str, b: str) -> str:
    return MATRIX.verdict_of(MATRIX.index(a), MATRIX.index(b))


def test_the_file_holds_at_least_forty_distinct_documented_relations():
    pairs = {tuple(sorted((r["a"], r["b"]))) for r in RELATIONS}
    assert len(pairs) == len(RELATIONS) >= 40
    assert all(r["source"].startswith("https://") and r["quote"].strip() for r in RELATIONS)


@pytest.mark.parametrize(
    "relation", RELATIONS, ids=[f"{r['a']}~{r['b']}:{r['verdict']}" for r in RELATIONS]
)
def test_a_relation_the_docs_state_is_the_engines_verdict(relation):
    detail = pair_verdicts(ROWS[relation["a"]], ROWS[relation["b"]])

    assert detail.verdict == relation["verdict"], (relation["source"], detail.reasons)
    assert verdict(relation["a"], relation["b"]) == relation["verdict"]
    if relation.get("via"):
        assert relation["via"] in {link.interface for link in detail.links}, detail.links


# The method's own examples (METHOD.md: 组合≠竞品, the three shapes).


@pytest.mark.parametrize("governor", ["volcano/scheduler", "kueue/controller"])
@pytest.mark.parametrize(
    "hami", ["hami/device-plugin", "hami/scheduler-extender", "hami/dynamic-mig"]
)
def test_hami_is_never_an_alternative_to_volcano_or_kueue(hami, governor):
    holds = pair_verdicts(ROWS[hami], ROWS[governor]).holds

    assert "competes" not in holds
    assert "incomparable" not in holds


def test_shape_b_hami_composes_with_kueue_through_its_vgpu_resources():
    links = pair_verdicts(ROWS["hami/device-plugin"], ROWS["kueue/controller"]).links

    assert {"resource:nvidia.com/gpumem", "resource:nvidia.com/gpucores"} <= {
        link.interface for link in links
    }


def test_the_hami_placement_helper_complements_a_batch_scheduler_on_the_control_plane():
    for governor in ("volcano/scheduler", "kueue/controller"):
        assert verdict("hami/scheduler-extender", governor) == "complements"


@pytest.mark.parametrize(("a", "b"), list(itertools.combinations(GOVERNORS, 2)))
def test_queues_and_batch_schedulers_still_compete_with_each_other(a, b):
    assert verdict(a, b) == "competes"


def test_the_device_plugin_and_a_scheduler_extension_are_not_competitors_they_compose():
    # METHOD: the device plugin answers "what is the resource", scheduler-plugins "who gets it".
    detail = pair_verdicts(
        ROWS["nvidia-device-plugin/whole-gpu"], ROWS["scheduler-plugins/plugins"]
    )

    assert detail.verdict == "composes"
    assert "competes" not in detail.holds


def test_kubernetes_dra_composes_with_the_drivers_it_serves_and_the_claims_consumers():
    assert verdict("kubernetes-dra/resource-api", "nvidia-dra-driver-gpu/gpu-kubelet-plugin") == (
        "composes"
    )
    assert verdict("kubernetes-dra/core-allocation", "kueue/controller") == "composes"
    assert verdict("kubernetes-dra/core-allocation", "kai-scheduler/scheduler") == "composes"


def test_rows_that_present_no_unit_never_compete():
    no_unit = [r for r in ROWS.values() if r.resource_units <= {"none"}]
    assert len(no_unit) >= 5
    for a, b in itertools.combinations(no_unit, 2):
        assert "competes" not in pair_verdicts(a, b).holds, (a.id, b.id)


def test_a_platform_is_not_a_mechanism_it_relies_on_them():
    # GPUStack packages serving on top of lower layers; it composes or coexists, never competes.
    for row in ROWS.values():
        if row.layer != "platform":
            assert "competes" not in pair_verdicts(ROWS["gpustack/platform"], row).holds


def test_the_built_in_catalog_is_as_broad_as_the_audit_requires():
    projects = {row.project for row in ROWS.values()}
    assert len(projects) >= 38
    assert len(ROWS) >= 60


# Issue 27: the rule's remaining defects, on the method's own examples.


def _presents_no_unit(row) -> bool:
    return row.resource_units == frozenset({"none"})


def test_a_row_whose_unit_is_none_never_makes_incomparable():
    no_unit = [r for r in ROWS.values() if _presents_no_unit(r)]
    assert "dcgm-exporter/exporter" in {r.id for r in no_unit}
    for a in no_unit:
        for b in ROWS.values():
            if a.id != b.id:
                assert "incomparable" not in pair_verdicts(a, b).holds, (a.id, b.id)
                assert "incomparable" not in MATRIX.holds_of(MATRIX.index(a.id), MATRIX.index(b.id))
    assert verdict("dcgm-exporter/exporter", "hami/device-plugin") == "complements"


@pytest.mark.parametrize(
    "consumer", ["kai-scheduler/scheduler", "volcano/scheduler", "slinky/slurm-bridge"]
)
def test_a_claims_consumer_composes_with_dra_core_and_is_never_its_rival(consumer):
    holds = pair_verdicts(ROWS[consumer], ROWS["kubernetes-dra/core-allocation"]).holds

    assert holds[0] == "composes"
    assert "competes" not in holds
    assert "incomparable" not in holds


def test_the_compute_domain_plugin_is_deployed_beside_the_gpu_plugin_not_instead_of_it():
    # Two kubelet plugins of one driver: IMEX channels beside GPUs, never alternatives.
    for gpu_side in ("gpu-kubelet-plugin", "shared-claims", "dynamic-mig"):
        holds = pair_verdicts(
            ROWS["nvidia-dra-driver-gpu/compute-domain"], ROWS[f"nvidia-dra-driver-gpu/{gpu_side}"]
        ).holds
        assert "competes" not in holds
        assert "conflicts" not in holds


@pytest.mark.parametrize("mig", ["nvidia-device-plugin/mig-mixed"])
def test_the_device_plugin_time_slices_the_mig_devices_it_advertises(mig):
    detail = pair_verdicts(ROWS["nvidia-device-plugin/time-slicing"], ROWS[mig])

    assert detail.holds == ("composes", "complements")
    assert "resource:nvidia.com/mig-1g.5gb" in {link.interface for link in detail.links}
    shared = ROWS["nvidia-device-plugin/time-slicing"].provides
    assert "resource:nvidia.com/mig-1g.5gb.shared" in shared


def test_mps_is_not_combined_with_the_mig_layout_manager():
    # k8s-device-plugin v0.20.0 README: sharing with MPS is not supported on MIG-enabled devices.
    holds = pair_verdicts(ROWS["nvidia-device-plugin/mps"], ROWS["nvidia-mig/mig-manager"]).holds

    assert holds[0] == "conflicts"


def _costs() -> dict[str, dict]:
    return {
        f"{project['slug']}/{placement['key']}": placement.get("costs", {})
        for path in sorted(Path(__file__).parents[2].joinpath("catalog", "data").glob("*.yaml"))
        for project in yaml.safe_load(path.read_text(encoding="utf-8"))["projects"]
        for placement in project["placements"]
    }


def test_the_reconfiguration_cost_of_a_mig_layout_is_charged_to_the_partitioner():
    # The device plugin and the DRA driver both present MIG devices someone else made: changing
    # the layout is MIG Manager's cost, not the presenter's.
    costs = _costs()
    presenters = [
        "nvidia-device-plugin/mig-single",
        "nvidia-device-plugin/mig-mixed",
        "nvidia-dra-driver-gpu/gpu-kubelet-plugin",
    ]
    assert {costs[row]["reconfiguration"]["level"] for row in presenters} == {"low"}
    assert costs["nvidia-mig/mig-manager"]["reconfiguration"]["level"] == "high"
    for row in presenters:
        assert "mig-manager" in costs[row]["reconfiguration"]["note"].lower().replace(" ", "-")


def _project(slug: str) -> dict:
    path = Path(__file__).parents[2] / "catalog" / "data" / f"{slug}.yaml"
    return yaml.safe_load(path.read_text(encoding="utf-8"))["projects"][0]


def test_the_contract_details_of_issue_27_are_recorded_with_their_sources():
    extended = "api:kubernetes/feature/DRAExtendedResource"
    # The drivers' DeviceClasses set extendedResourceName nvidia.com/gpu; claims work without the
    # gate, so it is what they can use, not what they cannot work without.
    for row in ("nvidia-dra-driver-gpu/gpu-kubelet-plugin", "hami-dra-driver/kubelet-plugin"):
        assert extended in ROWS[row].accepts
    assert "api:kubernetes/feature/DRAPartitionableDevices" in ROWS["kueue/controller"].accepts
    dynamic_mig = next(
        p for p in _project("nvidia-dra-driver-gpu")["placements"] if p["key"] == "dynamic-mig"
    )
    said = dynamic_mig["non_promise"] + " ".join(dynamic_mig["failure_modes"])
    assert "PassthroughSupport" in said
    assert "NVMLDeviceHealthCheck" in said
    assert any("featuregates.go#L201" in e["url"] for e in dynamic_mig["evidence"])
    slinky = _project("slinky")
    assert slinky["vendor"] == "NVIDIA"
    assert any(
        e["url"].endswith("/LICENSE#L1") for p in slinky["placements"] for e in p["evidence"]
    )


# Issue 27 items 2-3 (round three): named DeviceClasses, HAMi-core, time-sliced single-strategy MIG.


@pytest.mark.parametrize(
    ("consumer", "driver", "deviceclass"),
    [
        ("kueue/controller", "nvidia-dra-driver-gpu/gpu-kubelet-plugin", "gpu.nvidia.com"),
        ("kueue/controller", "amd-gpu-dra-driver/kubelet-plugin", "gpu.amd.com"),
        ("volcano/scheduler", "hami-dra-driver/kubelet-plugin", "hami-core-gpu.project-hami.io"),
        ("kai-scheduler/scheduler", "nvidia-dra-driver-gpu/gpu-kubelet-plugin", "gpu.nvidia.com"),
    ],
)
def test_a_consumer_composes_with_a_specific_dra_driver_through_its_named_deviceclass(
    consumer, driver, deviceclass
):
    detail = pair_verdicts(ROWS[consumer], ROWS[driver])

    assert detail.verdict == "composes"
    # The generic DeviceClass API is Kubernetes' own: only the named class links the two.
    assert f"deviceclass:{deviceclass}" in {link.interface for link in detail.links}
    assert "api:resource.k8s.io/v1/DeviceClass" not in {link.interface for link in detail.links}


def test_the_device_plugin_time_slices_the_mig_devices_of_the_single_strategy():
    detail = pair_verdicts(
        ROWS["nvidia-device-plugin/time-slicing"], ROWS["nvidia-device-plugin/mig-single"]
    )

    assert detail.holds == ("composes", "complements")
    assert MATRIX.holds_of(
        MATRIX.index("nvidia-device-plugin/time-slicing"),
        MATRIX.index("nvidia-device-plugin/mig-single"),
    ) == ("composes", "complements")


@pytest.mark.parametrize(
    "user",
    [
        "hami/device-plugin",
        "volcano-vgpu-device-plugin/device-plugin",
        "hami-dra-driver/kubelet-plugin",
        "koordinator/koordlet-device",
        "kai-scheduler/scheduler",
    ],
)
def test_every_project_that_preloads_hami_core_composes_with_it(user):
    detail = pair_verdicts(ROWS["hami-core/libvgpu"], ROWS[user])

    # HAMi ships HAMi-core (its libvgpu submodule): contains, still wired through the library.
    assert detail.verdict == ("contains" if user.startswith("hami/") else "composes")
    assert "composes" in detail.holds
    assert "competes" not in detail.holds
    assert "capability:hami-core" in {link.interface for link in detail.links}


def test_volcano_vgpu_and_gfd_are_not_two_writers_of_the_same_labels():
    """Issue 43 asked for a double-writer conflict between the Volcano vGPU plugin and GFD: the
    plugin carries a copy of GFD's labeller (pkg/lm/nvml.go). At v1.12.0 nothing imports it (no
    `volcano.sh/k8s-device-plugin/pkg/lm` importer; cmd/vgpu imports config, info, plugin, rm,
    util, watch) and the plugin patches node annotations (pkg/util/util.go:323,
    PatchNodeAnnotations), not labels: re-checked 2026-12-07, recorded in
    catalog/data/crossref/decisions.yaml. They do different jobs on the data plane."""
    detail = pair_verdicts(
        ROWS["volcano-vgpu-device-plugin/device-plugin"], ROWS["gpu-feature-discovery/labeller"]
    )

    assert detail.verdict == "complements"
    assert "conflicts" not in detail.holds and not detail.links
