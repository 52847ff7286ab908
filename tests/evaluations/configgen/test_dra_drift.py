"""DRA drift: the DeviceClasses the generated dra/ files rely on and the drivers' ResourceSlices
on each pool's nodes, against a snapshot; ResourceClaimTemplates are not collected, said once.

Sources:
- The NVIDIA DRA driver chart v0.4.1 installs DeviceClass gpu.nvidia.com, selecting
  "device.driver == 'gpu.nvidia.com' && device.attributes['gpu.nvidia.com'].type == 'gpu'"
  https://github.com/kubernetes-sigs/dra-driver-nvidia-gpu/blob/v0.4.1/deployments/helm/dra-driver-nvidia-gpu/templates/deviceclass-gpu.yaml
- ResourceSliceSpec.driver and nodeName (k8s.io/api v0.34.0 resource/v1/types.go#L98-L167);
  DeviceClassSpec.selectors, each of which a claimed device must satisfy (#L1659-L1664)
  https://github.com/kubernetes/api/blob/v0.34.0/resource/v1/types.go
- The snapshot lists `deviceclasses` and `resourceslices` as kubectl prints them
  (docs/cluster-snapshot.md, scripts/collect-cluster).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest
from django.core.management import call_command
from django.test import Client
from django.utils import translation

from catalog.engine.cluster import parse_snapshot
from catalog.engine.text import render
from evaluations.clusters.services import cluster_snapshot_upload
from evaluations.configgen.config_drift import config_drift
from evaluations.configgen.generate import generate
from evaluations.configgen.selectors import evaluation_config
from evaluations.decisions.drift import rows_as_stored
from evaluations.decisions.models import Decision
from evaluations.management.commands.seed_demo_team import INFERENCE
from evaluations.models import Evaluation
from evaluations.teams.models import Team
from tests.evaluations.cluster_factories import body, snapshot_as_generated
from tests.evaluations.configgen.catalog_rows import bundle_row
from tests.evaluations.configgen.test_dra import CLASSES, NVIDIA_DRA, TEMPLATES, decision
from tests.factories import make_user

NVIDIA_GPU_CLASS = (
    "device.driver == 'gpu.nvidia.com' && device.attributes['gpu.nvidia.com'].type == 'gpu'"
)


def device_class(name: str, expression: str) -> dict[str, Any]:
    return {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "DeviceClass",
        "metadata": {"name": name},
        "spec": {"selectors": [{"cel": {"expression": expression}}]},
    }


def resource_slice(node: str, driver: str) -> dict[str, Any]:
    return {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "ResourceSlice",
        "metadata": {"name": f"{node}-{driver}-x7k2p"},
        "spec": {
            "driver": driver,
            "nodeName": node,
            "pool": {"name": node, "generation": 1, "resourceSliceCount": 1},
            "devices": [{"name": "gpu-0"}],
        },
    }


def with_dra(document: dict[str, Any], classes, driver: str) -> dict[str, Any]:
    """The cluster as generated, with these DeviceClasses and a ResourceSlice of the driver on
    every node (as a kubelet plugin publishes one per node)."""
    nodes = [n["metadata"]["name"] for n in document["nodes"]["items"]]
    document["deviceclasses"] = {"apiVersion": "v1", "kind": "List", "items": list(classes)}
    document["resourceslices"] = {
        "apiVersion": "v1",
        "kind": "List",
        "items": [resource_slice(node, driver) for node in nodes],
    }
    return document


def drift(files, document) -> list[tuple[str, str, str]]:
    items = config_drift(files, parse_snapshot(document))
    return [(d.path, d.severity, str(d.message)) for d in items if d.severity != "info"]


def nvidia_files():
    return generate(decision(*NVIDIA_DRA, kubernetes_version="1.34"))


def nvidia_cluster(files) -> dict[str, Any]:
    classes = [device_class("gpu.nvidia.com", NVIDIA_GPU_CLASS)]
    return with_dra(snapshot_as_generated(files), classes, "gpu.nvidia.com")


def bare_intel_files():
    """The Intel GPU row with its chart's classes taken away: EcoMap generates one per pool."""
    intel = bundle_row("intel-resource-drivers/gpu-kubelet-plugin")
    bare = replace(
        intel, provides=tuple(p for p in intel.provides if not p.startswith("deviceclass:"))
    )
    pools = {"a": [bare.ref], "b": [bare.ref]}
    return generate(decision(rows=(bare,), pools=pools, kubernetes_version="1.34"))


def intel_cluster(files) -> dict[str, Any]:
    classes = [
        device_class(
            d.data["metadata"]["name"], d.data["spec"]["selectors"][0]["cel"]["expression"]
        )
        for f in files
        if f.path == CLASSES
        for d in f.documents
    ]
    return with_dra(snapshot_as_generated(files), classes, "gpu.intel.com")


def test_a_dra_cluster_set_up_as_generated_shows_no_difference():
    for files, cluster in ((nvidia_files(), nvidia_cluster), (bare_intel_files(), intel_cluster)):
        assert drift(files, cluster(files)) == []


def test_claim_templates_are_said_not_collected_once_per_file():
    files = nvidia_files()

    items = config_drift(files, parse_snapshot(nvidia_cluster(files)))

    [said] = [item for item in items if item.path == TEMPLATES]
    assert said.severity == "info"
    assert "does not collect ResourceClaimTemplates" in str(said.message)


def test_the_drivers_own_class_missing_is_an_error_naming_the_class_and_its_driver():
    files = nvidia_files()
    document = nvidia_cluster(files)
    document["deviceclasses"]["items"] = []

    assert drift(files, document) == [
        (
            TEMPLATES,
            "error",
            "DeviceClass gpu.nvidia.com is missing from the cluster: the chart of DRA driver "
            "gpu.nvidia.com (row nvidia-dra-driver-gpu/gpu-kubelet-plugin v0.4.1) installs it; "
            "claims naming it cannot be allocated.",
        )
    ]


def test_a_generated_class_missing_is_an_error_of_the_classes_file():
    files = bare_intel_files()
    document = intel_cluster(files)
    document["deviceclasses"]["items"].pop(0)

    assert drift(files, document) == [
        (
            CLASSES,
            "error",
            "DeviceClass evaluation-63-a is missing from the cluster: apply this file (the class "
            "selects the devices of DRA driver gpu.intel.com).",
        )
    ]


def test_a_generated_class_that_selects_differently_is_a_warning_with_both_selectors():
    files = bare_intel_files()
    document = intel_cluster(files)
    changed = "device.driver == 'gpu.intel.com' && device.attributes['gpu.intel.com'].sriov"
    document["deviceclasses"]["items"][1]["spec"]["selectors"][0]["cel"]["expression"] = changed

    assert drift(files, document) == [
        (
            CLASSES,
            "warning",
            f"DeviceClass evaluation-63-b selects {changed} in the cluster; generated "
            'device.driver == "gpu.intel.com".',
        )
    ]


def test_a_pool_whose_nodes_publish_no_slice_of_the_driver_is_an_error():
    files = bare_intel_files()
    document = intel_cluster(files)
    pool_b = {
        n["metadata"]["name"]
        for n in document["nodes"]["items"]
        if n["metadata"]["labels"]["ecomap.io/pool"] == "b"
    }
    document["resourceslices"]["items"] = [
        s for s in document["resourceslices"]["items"] if s["spec"]["nodeName"] not in pool_b
    ]

    assert drift(files, document) == [
        (
            TEMPLATES,
            "error",
            f"No ResourceSlice of DRA driver gpu.intel.com on the {len(pool_b)} nodes of pool b: "
            "its kubelet plugin publishes no devices there, so the pool's claims cannot be "
            "allocated.",
        )
    ]


def test_another_drivers_slices_do_not_count_and_nodes_without_one_are_named():
    files = nvidia_files()
    document = nvidia_cluster(files)
    first = document["resourceslices"]["items"][0]
    first["spec"]["driver"] = "gpu.intel.com"

    assert drift(files, document) == [
        (
            TEMPLATES,
            "warning",
            f"No ResourceSlice of DRA driver gpu.nvidia.com on node {first['spec']['nodeName']} "
            "of pool shared.",
        )
    ]


def test_a_snapshot_without_the_dra_lists_compares_no_dra_file():
    files = bare_intel_files()
    document = snapshot_as_generated(files)  # no deviceclasses, no resourceslices

    items = config_drift(files, parse_snapshot(document))

    dra = [item for item in items if item.path.startswith("dra/")]
    assert {item.path for item in dra} == {CLASSES, TEMPLATES}
    assert all((item.severity, item.compared) == ("info", False) for item in dra)


def test_a_dra_difference_reads_in_chinese_too():
    files = nvidia_files()
    document = nvidia_cluster(files)
    document["deviceclasses"]["items"] = []
    [item] = [d for d in config_drift(files, parse_snapshot(document)) if d.severity == "error"]

    with translation.override("zh-hans"):
        said = render(item.message, translation.gettext)

    assert said.startswith("集群中缺少 DeviceClass gpu.nvidia.com")


def test_unfound_pool_nodes_are_an_error_only_when_the_driver_publishes_nowhere():
    # DRA-only nodes advertise no nvidia.com/ extended resource and carry no pool label yet, so
    # the single pool's nodes are not found; the driver's slices anywhere still say it runs.
    files = nvidia_files()
    document = nvidia_cluster(files)
    for node in document["nodes"]["items"]:
        del node["metadata"]["labels"]["ecomap.io/pool"]
        node["status"]["allocatable"] = {"cpu": "96"}
    assert [item for item in drift(files, document) if item[0] == TEMPLATES] == []

    document["resourceslices"]["items"] = []

    assert (
        TEMPLATES,
        "error",
        "No ResourceSlice of DRA driver gpu.nvidia.com in the cluster: its kubelet plugin "
        "publishes no devices, so the claims of pool shared cannot be allocated.",
    ) in drift(files, document)


@pytest.mark.django_db
def test_the_api_and_page_show_a_missing_driver_class_of_a_stored_decision(builtin_catalog):
    # The demo's approved evaluation decided on NVIDIA's DRA driver, read as pinned; the files
    # come from the configuration cache (pickled), so what drift needs survives it.
    user = make_user("demo")
    call_command("seed_demo_team", "demo", verbosity=0)
    evaluation = Evaluation.objects.get(
        state="approved", team__slug="platform-team", title=INFERENCE["title"]
    )
    rows = ["nvidia-gpu-operator/clusterpolicy", *NVIDIA_DRA]
    Decision.objects.filter(evaluation=evaluation).update(
        rows=rows, pools={}, approved_rows=rows_as_stored(rows)
    )
    document = nvidia_cluster(evaluation_config(evaluation))
    document["deviceclasses"]["items"] = []
    team = Team.objects.get(pk=evaluation.team_id)
    snapshot = cluster_snapshot_upload(team=team, actor=user, body=body(document), role="admin")
    client = Client()
    client.force_login(user)

    data = client.get(f"/api/v1/clusters/{snapshot.pk}/?evaluation={evaluation.pk}").json()
    client.cookies["django_language"] = "zh-hans"
    page = client.get(f"/evaluations/{evaluation.pk}/cluster/?snapshot={snapshot.pk}")

    [error] = [d for d in data["config_drift"] if d["severity"] == "error"]
    assert error["path"] == TEMPLATES
    assert error["message"].startswith("DeviceClass gpu.nvidia.com is missing from the cluster")
    assert "集群中缺少 DeviceClass gpu.nvidia.com" in page.content.decode()
