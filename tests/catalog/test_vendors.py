"""A placement row's `vendors` (bundle v1, optional): the GPU vendors it serves, from a fixed
list; none means vendor-neutral. Validated with a path, stored, exported, served by the API,
carried by the engine rows, recorded in the history, and set on the built-in rows that serve
only some vendors."""

from __future__ import annotations

import csv
import io
import json

import pytest
from django.contrib.auth import get_user_model
from django.urls import reverse
from rest_framework.test import APIClient

from catalog.engine.bundle import base_schema
from catalog.engine.formats import csv_template, csv_to_bundle
from catalog.engine.rows import GPU_VENDORS, Row, row_from_bundle
from catalog.matrix.storage import row_from_dict, row_to_dict
from catalog.models import CatalogChange, GpuVendor, PlacementRow, Project
from catalog.selectors import bundle_export, engine_rows
from catalog.services import BundleInvalid
from tests.catalog.test_admin import _row_form
from tests.factories import apply, builtin_rows, bundle, placement, project, streamed_json


@pytest.fixture
def api(alice):
    client = APIClient()
    client.force_authenticate(alice)
    return client


def amd_plugin(**fields):
    return bundle(project("amd-plugin", placement("device-plugin", **fields), name="AMD plugin"))


def post(api, document, **params):
    query = "&".join(f"{key}={value}" for key, value in params.items())
    return api.generic(
        "POST", f"/api/v1/imports/?{query}", json.dumps(document), content_type="application/json"
    )


# ---- the engine's Row ---------------------------------------------------------------------------


def test_a_row_without_vendors_serves_every_vendor_and_no_vendor_asked_about():
    row = Row.create("kueue", "controller", "control_plane")

    assert row.vendors == frozenset()
    assert all(row.serves(vendor) for vendor in GPU_VENDORS)
    assert row.serves(None)


def test_a_row_with_vendors_serves_only_those():
    row = Row.create("amd-plugin", "device-plugin", "data_plane", vendors=["amd"])

    assert row.vendors == frozenset({"amd"})  # a list is normalised like the other sets
    assert row.serves("amd")
    assert not row.serves("nvidia")
    assert row.serves(None)


def test_vendors_are_part_of_the_rows_identity():
    neutral = Row.create("p", "k", "data_plane")

    assert neutral != Row.create("p", "k", "data_plane", vendors=["nvidia"])
    assert hash(Row.create("p", "k", "data_plane", vendors=("nvidia",))) == hash(
        Row.create("p", "k", "data_plane", vendors=frozenset({"nvidia"}))
    )


def test_an_unknown_vendor_is_a_value_error_naming_it():
    with pytest.raises(ValueError, match="'matrox'"):
        Row.create("p", "k", "data_plane", vendors=["nvidia", "matrox"])


def test_row_from_bundle_reads_the_placements_vendors():
    row = row_from_bundle("p", placement("k", vendors=["intel"]))

    assert row.vendors == frozenset({"intel"})
    assert row_from_bundle("p", placement("k")).vendors == frozenset()


def test_a_matrix_snapshot_keeps_the_vendors_of_its_rows():
    row = Row.create("p", "k", "data_plane", vendors=["huawei", "amd"])

    assert row_from_dict(row_to_dict(row)) == row


def test_the_fixed_list_is_the_same_in_the_engine_the_schema_and_the_model():
    assert base_schema()["$defs"]["gpu_vendor"]["enum"] == list(GPU_VENDORS)
    assert GpuVendor.values == list(GPU_VENDORS)


# ---- bundle, storage, export, API ---------------------------------------------------------------


@pytest.mark.django_db
def test_a_bundle_with_vendors_imports_and_round_trips_through_export_and_the_api(api):
    response = post(api, amd_plugin(vendors=["amd"]))
    assert response.status_code == 201, response.content

    assert PlacementRow.objects.get(key="device-plugin").vendors == ["amd"]
    exported = streamed_json(api.get("/api/v1/export/"))
    assert exported["projects"][0]["placements"][0]["vendors"] == ["amd"]
    assert bundle_export()["projects"][0]["placements"][0]["vendors"] == ["amd"]
    [row] = api.get("/api/v1/placements/").json()["results"]
    assert row["vendors"] == ["amd"]
    project_body = api.get("/api/v1/projects/amd-plugin/").json()
    assert project_body["placements"][0]["vendors"] == ["amd"]

    Project.objects.all().delete()
    assert post(api, exported).status_code == 201
    assert streamed_json(api.get("/api/v1/export/"))["projects"] == exported["projects"]


@pytest.mark.django_db
def test_vendors_are_kept_in_the_fixed_order_without_duplicates_and_neutral_rows_export_none():
    apply(
        bundle(
            project("multi", placement("scheduler", vendors=["huawei", "nvidia", "amd"])),
            project("neutral", placement("queue")),
        )
    )

    assert PlacementRow.objects.get(project__slug="multi").vendors == ["nvidia", "amd", "huawei"]
    assert PlacementRow.objects.get(project__slug="neutral").vendors == []
    placements = {p["slug"]: p["placements"][0] for p in bundle_export()["projects"]}
    assert placements["multi"]["vendors"] == ["nvidia", "amd", "huawei"]
    assert "vendors" not in placements["neutral"]


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("vendors", "path"),
    [
        (["matrox"], "projects[0].placements[0].vendors[0]"),
        (["nvidia", "NVIDIA"], "projects[0].placements[0].vendors[1]"),
        (["amd", "amd"], "projects[0].placements[0].vendors"),
        ("amd", "projects[0].placements[0].vendors"),
    ],
)
def test_an_unknown_or_repeated_vendor_is_a_400_naming_vendors_and_nothing_is_written(
    api, vendors, path
):
    response = post(api, amd_plugin(vendors=vendors))

    assert response.status_code == 400
    errors = response.json()["errors"]
    assert [error["path"] for error in errors] == [path], errors
    assert "vendors" in errors[0]["path"]
    if errors[0]["path"].endswith("]"):
        assert errors[0]["message"].startswith("unknown GPU vendor")
        assert errors[0]["allowed"] == list(GPU_VENDORS)
    assert not PlacementRow.objects.exists()


@pytest.mark.django_db
def test_the_write_service_refuses_an_unknown_vendor_and_writes_nothing():
    with pytest.raises(BundleInvalid) as refused:
        apply(amd_plugin(vendors=["amd", "matrox"]))

    [error] = refused.value.errors
    assert (error.path, error.message) == (
        "projects[0].placements[0].vendors[1]",
        "unknown GPU vendor 'matrox'",
    )
    assert not Project.objects.exists()


@pytest.mark.django_db
def test_the_project_api_refuses_an_unknown_vendor_with_its_path(api):
    body = project("amd-plugin", placement("device-plugin", vendors=["3dfx"]))

    response = api.post("/api/v1/projects/", body, format="json")

    assert response.status_code == 400
    [error] = response.json()["errors"]
    assert error["path"] == "placements[0].vendors[0]"
    assert not Project.objects.filter(slug="amd-plugin").exists()


@pytest.mark.django_db
def test_the_served_bundle_schema_lists_the_vendors(api):
    schema = api.get("/api/v1/schema/bundle/").json()

    vendors = schema["$defs"]["placement"]["properties"]["vendors"]
    assert vendors["uniqueItems"] is True
    assert schema["$defs"]["gpu_vendor"]["enum"] == list(GPU_VENDORS)


@pytest.mark.django_db
def test_engine_rows_carry_the_vendors():
    apply(
        bundle(
            project("amd-plugin", placement("device-plugin", vendors=["amd"])),
            project("kueue", placement("controller", "control_plane")),
        )
    )

    rows = {row.id: row for row in engine_rows()}

    assert rows["amd-plugin/device-plugin"].vendors == frozenset({"amd"})
    assert not rows["amd-plugin/device-plugin"].serves("nvidia")
    assert rows["kueue/controller"].vendors == frozenset()
    assert rows["kueue/controller"].serves("amd")


@pytest.mark.django_db
def test_a_change_of_vendors_is_recorded_in_the_rows_history_and_a_merge_keeps_them():
    apply(amd_plugin(vendors=["nvidia"]))

    apply(amd_plugin(vendors=["amd", "nvidia"]))

    change = CatalogChange.objects.filter(row_key="device-plugin", action="updated").get()
    assert change.changes["vendors"] == {"old": ["nvidia"], "new": ["nvidia", "amd"]}
    assert change.source == "tests"

    apply(amd_plugin(promise="Advertises AMD GPUs."), mode="merge")
    assert PlacementRow.objects.get(key="device-plugin").vendors == ["nvidia", "amd"]
    apply(amd_plugin(promise="Advertises AMD GPUs."), mode="replace")
    assert PlacementRow.objects.get(key="device-plugin").vendors == []
    cleared = CatalogChange.objects.filter(row_key="device-plugin").order_by("-id").first()
    assert cleared.changes["vendors"] == {"old": ["nvidia", "amd"], "new": []}


def test_a_csv_vendors_cell_lists_them_separated_by_semicolons_in_any_case():
    header, cells = csv.reader(io.StringIO(csv_template()))
    cells[header.index("vendors")] = "NVIDIA; amd"
    text = io.StringIO()
    csv.writer(text).writerows([header, cells])

    converted = csv_to_bundle(text.getvalue())

    assert converted.bundle["projects"][0]["placements"][0]["vendors"] == ["nvidia", "amd"]
    assert "vendors" not in csv_to_bundle(csv_template()).bundle["projects"][0]["placements"][0]


@pytest.mark.django_db
def test_the_card_says_which_vendors_a_row_serves_in_the_readers_language(bob_client):
    apply(amd_plugin(vendors=["amd", "nvidia"]))
    url = reverse("catalog:project-detail", args=["amd-plugin"])

    english = bob_client.get(url, HTTP_ACCEPT_LANGUAGE="en").content.decode()
    bob_client.cookies["django_language"] = "zh-hans"
    chinese = bob_client.get(url).content.decode()

    assert "serves: NVIDIA, AMD" in english
    assert "适用于: NVIDIA, AMD" in chinese


@pytest.mark.django_db
def test_a_neutral_row_has_no_serves_line(bob_client):
    apply(bundle(project("kueue", placement("controller", "control_plane"))))

    content = bob_client.get(reverse("catalog:project-detail", args=["kueue"])).content.decode()

    assert 'class="serves' not in content


@pytest.mark.django_db
def test_the_admin_shows_and_edits_a_rows_vendors_through_the_recorded_write_path(client):
    root = get_user_model().objects.create_superuser("root", "root@example.org", "pw-root-123")
    client.force_login(root)
    apply(amd_plugin(vendors=["nvidia"]))
    row = PlacementRow.objects.get()
    url = reverse("admin:catalog_placementrow_change", args=[row.pk])

    form = client.get(url).content.decode()
    response = client.post(url, _row_form(row, vendor_choices=["amd", "intel"]))

    assert 'name="vendor_choices" value="nvidia"' in form
    assert response.status_code == 302, response.content.decode()[:2000]
    assert PlacementRow.objects.get().vendors == ["amd", "intel"]
    change = CatalogChange.objects.filter(source="admin").get()
    assert change.changes["vendors"] == {"old": ["nvidia"], "new": ["amd", "intel"]}


# ---- the built-in catalog -----------------------------------------------------------------------

NVIDIA, AMD, INTEL, HUAWEI = (frozenset({v}) for v in GPU_VENDORS)
NEUTRAL = frozenset()

# Row id -> the vendors it serves, with where that is stated (at the release the row cites).
BUILTIN_VENDORS = {
    # https://github.com/NVIDIA/k8s-device-plugin/blob/v0.20.0/README.md
    "nvidia-device-plugin/whole-gpu": NVIDIA,
    "nvidia-device-plugin/time-slicing": NVIDIA,
    "nvidia-device-plugin/mps": NVIDIA,
    "nvidia-device-plugin/mig-single": NVIDIA,
    "nvidia-device-plugin/mig-mixed": NVIDIA,
    # https://github.com/NVIDIA/gpu-operator/blob/v26.7.0/README.md
    "nvidia-gpu-operator/clusterpolicy": NVIDIA,
    "nvidia-gpu-operator/gpucluster-dra": NVIDIA,
    # https://github.com/NVIDIA/nvidia-container-toolkit/blob/v1.20.0/README.md#L9-L18
    "nvidia-container-toolkit/runtime": NVIDIA,
    # https://github.com/NVIDIA/dcgm-exporter/blob/4.5.3-4.8.2/README.md#L29-L33
    "dcgm-exporter/exporter": NVIDIA,
    # https://github.com/NVIDIA/mig-parted/blob/v0.15.0/cmd/nvidia-mig-manager/main.go#L47-L49
    "nvidia-mig/mig-manager": NVIDIA,
    # https://github.com/NVIDIA/k8s-device-plugin/blob/v0.20.0/docs/gpu-feature-discovery/README.md#L25-L50
    "gpu-feature-discovery/labeller": NVIDIA,
    # https://github.com/kubernetes-sigs/dra-driver-nvidia-gpu/blob/v0.4.1/README.md#L17-L25
    "nvidia-dra-driver-gpu/gpu-kubelet-plugin": NVIDIA,
    "nvidia-dra-driver-gpu/shared-claims": NVIDIA,
    "nvidia-dra-driver-gpu/dynamic-mig": NVIDIA,
    "nvidia-dra-driver-gpu/compute-domain": NVIDIA,
    # https://github.com/NVIDIA/k8s-nim-operator/blob/v3.1.2/README.md
    "nvidia-nim-operator/operator": NVIDIA,
    # https://docs.nvidia.com/datacenter/cloud-native/gpu-operator/latest/gpu-operator-kubevirt.html
    "nvidia-vgpu/kubevirt-vgpu": NVIDIA,
    "nvidia-vgpu/guest-vgpu": NVIDIA,
    # https://docs.nvidia.com/run-ai/self-hosted/documentation/installation-and-configuration/support-matrix
    "runai/platform": NVIDIA,
    "runai/gpu-fractions": NVIDIA,
    # https://github.com/ROCm/k8s-device-plugin/blob/v1.31.0.10/README.md
    "amd-gpu-device-plugin/whole-gpu": AMD,
    "amd-gpu-device-plugin/partitions-mixed": AMD,
    # https://github.com/ROCm/k8s-gpu-dra-driver/blob/2622427226d5ac361c3588284f4815e0dae11eaa/pkg/consts/consts.go#L35
    "amd-gpu-dra-driver/kubelet-plugin": AMD,
    # https://github.com/ROCm/gpu-operator/blob/v1.5.1/README.md
    "amd-gpu-operator/deviceconfig": AMD,
    # https://github.com/intel/intel-device-plugins-for-kubernetes/blob/v0.36.0/cmd/gpu_plugin/README.md
    "intel-gpu-device-plugin/whole-gpu": INTEL,
    "intel-gpu-device-plugin/shared-dev": INTEL,
    # https://github.com/intel/intel-resource-drivers-for-kubernetes/blob/gpu-v0.11.0/charts/intel-gpu-resource-driver/templates/device-class.yaml#L13
    "intel-resource-drivers/gpu-kubelet-plugin": INTEL,
    # https://github.com/intel/intel-resource-drivers-for-kubernetes/blob/gaudi-v0.7.2/charts/intel-gaudi-resource-driver/templates/device-class.yaml#L13
    "intel-resource-drivers/gaudi-kubelet-plugin": INTEL,
    # https://github.com/ROCm/device-metrics-exporter/blob/v1.5.1/README.md#L3
    "amd-device-metrics-exporter/exporter": AMD,
    # https://github.com/Project-HAMi/ascend-device-plugin/blob/v1.4.0/README.md#L9
    "hami-ascend-device-plugin/device-plugin": HUAWEI,
    # https://github.com/Ascend/mind-cluster/blob/v26.1.0/component/ascend-common/api/default_name.go
    "ascend-device-plugin/whole-npu": HUAWEI,
    "ascend-device-plugin/static-vnpu": HUAWEI,
    # https://github.com/Project-HAMi/HAMi-core/blob/017dd59b9c045977837ef5681a5a40dbd03269fe/README.md
    "hami/device-plugin": NVIDIA,
    "hami-core/libvgpu": NVIDIA,
    # https://github.com/Project-HAMi/HAMi/blob/v2.10.0/docs/develop/dynamic-mig-migration.md
    "hami/dynamic-mig": NVIDIA,
    # https://github.com/Project-HAMi/website/blob/0d64adad4e9da89c3626c2e35ef9cc466ef62dbc/docs/userguide/device-supported.md
    "hami/scheduler-extender": frozenset({"nvidia", "amd", "huawei"}),
    # https://github.com/Project-HAMi/k8s-dra-driver/blob/v0.1.0/README.md
    "hami-dra-driver/kubelet-plugin": NVIDIA,
    # https://github.com/Project-HAMi/volcano-vgpu-device-plugin/blob/v1.12.0/README.md
    "volcano-vgpu-device-plugin/device-plugin": NVIDIA,
    # https://github.com/koordinator-sh/website/blob/5123f048f992e7b74ab6c944878efa2091110db5/versioned_docs/version-v1.8/architecture/device.md#L119-L131
    "koordinator/koordlet-device": frozenset({"nvidia", "huawei"}),
    "koordinator/scheduler": NEUTRAL,  # quota and gang on any resource; see its unverified list
    # https://github.com/kai-scheduler/KAI-Scheduler/blob/v0.17.0/pkg/scheduler/api/resource_info/resource_requirment.go#L16-L70
    "kai-scheduler/scheduler": frozenset({"nvidia", "amd"}),
    # https://github.com/SlinkyProject/slurm-bridge/blob/v1.2.1/internal/utils/slurmjobir/slurmjobir.go#L24-L27
    "slinky/slurm-bridge": frozenset({"nvidia", "amd"}),
    "slinky/slurm-operator": NEUTRAL,
    # https://github.com/gpustack/gpustack/blob/v2.2.3/README.md#L54-L66
    "gpustack/platform": frozenset({"nvidia", "amd", "huawei"}),
    # https://github.com/opencost/opencost/blob/v1.112.0/pkg/cloud/provider/csvprovider.go#L372
    "opencost/cost-model": NVIDIA,
    # https://github.com/tkestack/gpu-manager/blob/v1.1.5/README.md
    "tencent-gpu-manager/device-plugin": NVIDIA,
    # https://github.com/AliyunContainerService/gpushare-scheduler-extender/blob/v0.2.0/README.md
    "gpushare-scheduler-extender/scheduler-extender": NVIDIA,
    "gpushare-scheduler-extender/device-plugin": NVIDIA,
    # https://github.com/nebuly-ai/nos/blob/0.1.2/docs/en/docs/prerequisites.md#L15-L62
    "nebuly-nos/gpu-partitioner": NVIDIA,
    "nebuly-nos/scheduler": NVIDIA,
    # https://github.com/kubevirt/kubevirt/blob/v1.9.0/docs/devel/host-devices-and-device-plugins.md
    "kubevirt/pci-passthrough": NEUTRAL,  # any PCI device bound to vfio-pci
    "kubevirt/mediated-vgpu": NVIDIA,  # the docs' mdev types are NVIDIA GRID ones
    "kubevirt/vm-gpu-api": NEUTRAL,
    # Schedulers, queueing, workload platforms and Kubernetes itself serve any vendor's GPUs.
    "kueue/controller": NEUTRAL,
    "volcano/scheduler": NEUTRAL,
    "yunikorn/scheduler": NEUTRAL,
    "armada/scheduler": NEUTRAL,
    "scheduler-plugins/plugins": NEUTRAL,
    "jobset/controller": NEUTRAL,
    "leaderworkerset/controller": NEUTRAL,
    "kubeflow-trainer/controller": NEUTRAL,
    "kuberay/operator": NEUTRAL,
    "kserve/controller": NEUTRAL,
    "kubernetes-dra/core-allocation": NEUTRAL,
    "kubernetes-dra/resource-api": NEUTRAL,
    "kubernetes-workload-scheduling/gang-scheduling": NEUTRAL,
    "grove/operator": NEUTRAL,
    "node-feature-discovery/nfd": NEUTRAL,
}


@pytest.fixture(scope="module")
def builtin():
    return builtin_rows()


@pytest.mark.parametrize(("row_id", "vendors"), BUILTIN_VENDORS.items())
def test_the_builtin_row_serves_the_vendors_its_sources_state(builtin, row_id, vendors):
    assert builtin[row_id].vendors == vendors


def test_every_builtin_row_is_given_an_expectation(builtin):
    assert set(builtin) == set(BUILTIN_VENDORS)


def test_a_builtin_row_that_advertises_a_vendors_resource_serves_that_vendor(builtin):
    domains = {
        "nvidia": "resource:nvidia.com/",
        "amd": "resource:amd.com/",
        "intel": "resource:gpu.intel.com/",
        "huawei": "resource:huawei.com/",
    }
    wrong = [
        (row.id, vendor)
        for row in builtin.values()
        for vendor, prefix in domains.items()
        if any(p.startswith(prefix) for p in row.provides)
        and (not row.vendors or not row.serves(vendor))
    ]

    assert wrong == []


def test_an_amd_fleet_is_never_offered_the_nvidia_device_plugin_or_mig(builtin):
    served = {row.id for row in builtin.values() if row.serves("amd")}

    assert not any(row_id.startswith(("nvidia-", "dcgm-", "gpu-feature")) for row_id in served)
    assert {"amd-gpu-device-plugin/whole-gpu", "kueue/controller"} <= served
