"""The cluster check on the fixtures of tests/data/clusters, against the built-in catalog files:
which rows each snapshot resolves to, and the findings each must give (by code and nodes)."""

from __future__ import annotations

import copy
import functools
import json
import random
import time
from pathlib import Path

import pytest
import yaml
from django.conf import settings

from catalog.engine.cluster import Decided, SnapshotError, check_cluster, parse_snapshot
from catalog.engine.cluster.detect import chart_name_version, image_repository, schedules_on
from catalog.engine.rows import Row, row_from_bundle
from catalog.engine.text import Text, render

CLUSTERS = Path(__file__).resolve().parents[3] / "data" / "clusters"
DATA = Path(settings.BASE_DIR) / "catalog" / "data"
DRA_FEATURES = Path(settings.CATALOG_DATA_DIR) / "facts" / "kubernetes-features.yaml"


@functools.cache
def builtin() -> tuple[list[Row], dict[str, dict], dict[str, list[str]]]:
    """Rows, detect signatures and evidence URLs of the built-in catalog files, in file order."""
    rows, signatures, evidence = [], {}, {}
    for path in sorted(DATA.glob("*.yaml")):
        for project in yaml.safe_load(path.read_text())["projects"]:
            for placement in project["placements"]:
                row = row_from_bundle(project["slug"], placement, project_name=project["name"])
                rows.append(row)
                if placement.get("detect"):
                    signatures[row.id] = placement["detect"]
                evidence[row.id] = [e["url"] for e in placement.get("evidence", ())]
    return rows, signatures, evidence


def document(name: str) -> dict:
    return json.loads((CLUSTERS / name).read_text())


def check(source: str | dict, *, decision: Decided | None = None, rows: list[Row] | None = None):
    rows_, signatures, evidence = builtin()
    snapshot = parse_snapshot(document(source) if isinstance(source, str) else source)
    return check_cluster(
        snapshot,
        rows=rows_ + (rows or []),
        signatures=signatures,
        evidence=evidence,
        decision=decision,
        dra_features=yaml.safe_load(DRA_FEATURES.read_text()),
    )


def found(report, code: str) -> list:
    return [f for f in report.findings if f.code == code]


def detected(report) -> dict[str, tuple[str, ...]]:
    return {d.row: d.nodes for d in report.detected}


def serious(report) -> list[tuple[str, str]]:
    return [(f.code, str(f.message)) for f in report.findings if f.severity != "info"]


# The fixtures and what each must give.


@pytest.mark.parametrize("name", ["hami-kueue-ok.json", "mig-manager.json"])
def test_a_correct_cluster_gives_no_error_and_no_warning(name):
    report = check(name)
    assert serious(report) == []
    assert report.ok


def test_the_hami_kueue_cluster_resolves_to_hami_and_kueue_with_versions_and_nodes():
    report = check("hami-kueue-ok.json")
    by_row = {d.row: d for d in report.detected}
    # HAMi-core is installed by the device plugin's DaemonSet: found with it.
    assert set(by_row) == {
        "hami/device-plugin",
        "hami-core/libvgpu",
        "hami/scheduler-extender",
        "kueue/controller",
    }
    assert by_row["hami/device-plugin"].nodes == ("gpu-inf-1", "gpu-inf-2", "gpu-inf-3")
    assert by_row["hami/device-plugin"].version == "2.10.0"
    assert by_row["kueue/controller"].version == "v0.19.2"
    assert by_row["kueue/controller"].cluster_wide
    # Dynamic MIG runs from the same DaemonSet: said, not guessed.
    assert by_row["hami/device-plugin"].alternatives == ("hami/dynamic-mig",)


def test_the_nvidia_device_plugin_and_hami_on_the_same_nodes_is_an_error_naming_those_nodes():
    report = check("plugin-and-hami.json")
    [conflict] = found(report, "exclusive-token-shared")
    assert conflict.severity == "error"
    assert conflict.nodes == ("gpu-a-1", "gpu-a-2")  # gpu-b-1 runs only the NVIDIA plugin
    assert set(conflict.rows) == {"hami/device-plugin", "nvidia-device-plugin/whole-gpu"}
    assert "DaemonSet kube-system/hami-device-plugin" in conflict.objects
    assert "DaemonSet nvidia-device-plugin/nvidia-device-plugin" in conflict.objects
    assert any("Project-HAMi/HAMi/blob/v2.10.0" in url for url in conflict.evidence)
    assert "owner:node/nvidia-gpu" in conflict.message
    assert not report.ok


def test_a_cluster_queue_that_covers_only_nvidia_gpu_misses_hamis_memory_and_cores():
    report = check("queue-misses-hami.json")
    [missed] = found(report, "queue-resource-not-covered")
    assert missed.severity == "error"
    assert missed.nodes == ("gpu-inf-1", "gpu-inf-2", "gpu-inf-3")
    assert missed.objects == ("ClusterQueue inference",)
    assert "nvidia.com/gpucores, nvidia.com/gpumem" in missed.message
    assert [f.code for f in report.findings if f.severity == "error"] == [
        "queue-resource-not-covered"
    ]


def test_dra_and_the_device_plugin_conflict_only_on_the_node_that_runs_both():
    report = check("dra-mixed.json")
    nodes = detected(report)
    assert nodes["nvidia-device-plugin/whole-gpu"] == ("gpu-classic-1", "gpu-dra-3")
    assert nodes["nvidia-dra-driver-gpu/gpu-kubelet-plugin"] == (
        "gpu-dra-1",
        "gpu-dra-2",
        "gpu-dra-3",
    )
    [conflict] = found(report, "exclusive-token-shared")
    assert conflict.nodes == ("gpu-dra-3",)
    assert set(conflict.rows) == {
        "nvidia-device-plugin/whole-gpu",
        "nvidia-dra-driver-gpu/gpu-kubelet-plugin",
    }


def test_an_extended_resource_device_class_on_kubernetes_1_34_needs_an_alpha_gate():
    report = check("dra-mixed.json")
    [gate] = found(report, "dra-feature-off-by-default")
    assert gate.severity == "warning"
    assert "DRAExtendedResource" in gate.message
    assert "DeviceClass gpu.nvidia.com (extendedResourceName nvidia.com/gpu)" in gate.objects
    # DRA itself is GA in 1.34: nothing to say about it.
    assert not [f for f in report.findings if "DynamicResourceAllocation" in f.message]


def test_the_mig_cluster_resolves_to_the_mixed_strategy_and_mig_manager_on_the_mig_nodes():
    nodes = detected(check("mig-manager.json"))
    assert nodes["nvidia-device-plugin/mig-mixed"] == ("gpu-mig-1", "gpu-mig-2")
    assert nodes["nvidia-mig/mig-manager"] == ("gpu-mig-1", "gpu-mig-2")
    assert "nvidia-device-plugin/whole-gpu" not in nodes


def test_node_pools_group_nodes_by_gpu_labels_and_pool_label_not_by_timestamps():
    pools = {p.name: p.nodes for p in check("mig-manager.json").pools}
    assert pools == {
        "system": ("cpu-1",),
        "mig (NVIDIA-A100-SXM4-80GB)": ("gpu-mig-1", "gpu-mig-2"),
    }


# Other checks, on variations of the fixtures.


def test_an_older_kubernetes_than_a_dra_feature_is_an_error_and_a_default_off_beta_a_warning():
    source = document("dra-mixed.json")
    source["kubernetes_version"] = "v1.33.5-eks-5f8a7b3"
    report = check(source)
    [too_old] = found(report, "dra-feature-too-old")
    assert too_old.severity == "error"
    assert "DRAExtendedResource" in too_old.message
    [off] = found(report, "dra-feature-off-by-default")
    assert "DynamicResourceAllocation" in off.message


def test_a_dra_feature_without_a_kubernetes_version_is_said_not_judged():
    source = document("dra-mixed.json")
    del source["kubernetes_version"]
    codes = {f.code for f in check(source).findings}
    assert "kubernetes-version-unknown" in codes
    assert not codes & {"dra-feature-too-old", "dra-feature-off-by-default"}


def test_a_scheduler_that_cannot_assign_hamis_resources_cannot_express_them():
    source = document("hami-kueue-ok.json")
    volcano = copy.deepcopy(source["deployments"]["items"][-1])
    volcano["metadata"].update(name="volcano-scheduler", namespace="volcano-system")
    volcano["spec"]["template"]["spec"]["containers"] = [
        {"name": "volcano-scheduler", "image": "docker.io/volcanosh/vc-scheduler:v1.15.1"}
    ]
    source["deployments"]["items"].append(volcano)
    report = check(source)
    missing = found(report, "queue-cannot-express")
    assert {f.rows[0] for f in missing} == {"volcano/scheduler"}
    assert {m for f in missing for m in [str(f.message)] if "nvidia.com/gpumem" in m}
    assert all(f.severity == "error" for f in missing)


def test_a_required_label_the_nodes_carry_is_met_and_a_missing_one_is_an_error():
    source = document("mig-manager.json")
    report = check(source)
    assert not found(report, "requirement-unmet")
    for item in source["crds"]["items"]:
        item["spec"]["names"]["kind"] += "Old"
    for item in source["deployments"]["items"] + source["daemonsets"]["items"]:
        if item["metadata"]["name"].startswith("node-feature-discovery"):
            item["metadata"]["name"] = "unrelated"
            item["spec"]["template"]["spec"]["containers"][0]["image"] = "busybox:1.36"
    [unmet] = found(check(source), "requirement-unmet")
    assert unmet.rows == ("gpu-feature-discovery/labeller",)
    assert "crd:nfd.k8s-sigs.io/v1alpha1/NodeFeature" in unmet.message


# Against a decision.


def test_rows_decided_but_absent_and_present_but_not_decided():
    decision = Decided(
        rows=(
            "hami/device-plugin",
            "hami-core/libvgpu",
            "hami/scheduler-extender",
            "volcano/scheduler",
        )
    )
    report = check("hami-kueue-ok.json", decision=decision)
    [absent] = found(report, "decided-row-absent")
    assert (absent.severity, absent.rows) == ("error", ("volcano/scheduler",))
    [extra] = found(report, "row-not-decided")
    assert (extra.severity, extra.rows) == ("warning", ("kueue/controller",))


def test_a_decided_mode_the_snapshot_cannot_rule_out_is_taken_as_deployed():
    decision = Decided(rows=("nvidia-device-plugin/time-slicing",))
    report = check("dra-mixed.json", decision=decision)
    assert "nvidia-device-plugin/time-slicing" in detected(report)
    assert not found(report, "decided-row-absent")


def test_a_decided_row_the_catalog_cannot_detect_is_said_not_counted_absent():
    decision = Decided(rows=("kubernetes-dra/core-allocation", "hami/device-plugin"))
    report = check("hami-kueue-ok.json", decision=decision)
    assert [f.rows for f in found(report, "decided-row-undetectable")] == [
        ("kubernetes-dra/core-allocation",)
    ]
    assert not found(report, "decided-row-absent")


def test_a_pool_running_a_row_not_decided_for_it_is_a_per_pool_difference():
    decision = Decided(
        rows=("nvidia-device-plugin/whole-gpu", "nvidia-dra-driver-gpu/gpu-kubelet-plugin"),
        pools={
            "classic": ("nvidia-device-plugin/whole-gpu",),
            "dra": ("nvidia-dra-driver-gpu/gpu-kubelet-plugin",),
        },
    )
    report = check("dra-mixed.json", decision=decision)
    [unexpected] = found(report, "pool-row-unexpected")
    assert unexpected.rows == ("nvidia-device-plugin/whole-gpu",)
    assert unexpected.nodes == ("gpu-dra-3",)
    assert not found(report, "pool-not-found")
    assert not found(report, "pool-row-missing")


def test_a_decided_pool_no_node_pool_matches_is_said():
    decision = Decided(
        rows=("hami/device-plugin", "hami/scheduler-extender", "kueue/controller"),
        pools={"training": ("volcano/scheduler",), "inference": ("hami/device-plugin",)},
    )
    report = check("hami-kueue-ok.json", decision=decision)
    assert [f.rows for f in found(report, "pool-not-found")] == [("volcano/scheduler",)]


def test_signals_a_decided_row_needs_that_nothing_deployed_exports_are_a_warning():
    billing = Row.create(
        "meter", "billing", "platform", requires={"signal:dcgm/DCGM_FI_DEV_GPU_UTIL"}
    )
    decision = Decided(rows=("hami/device-plugin", "meter/billing"))
    report = check("hami-kueue-ok.json", decision=decision, rows=[billing])
    [signal] = found(report, "signal-not-exported")
    assert (signal.severity, signal.rows) == ("warning", ("meter/billing",))


# The report as JSON and in the reader's language.


def test_the_report_is_json_with_english_messages_that_keep_their_templates():
    report = check("plugin-and-hami.json")
    data = json.loads(json.dumps(report.to_dict()))
    assert data["ok"] is False
    assert data["counts"]["error"] == 1
    assert data["findings"][0]["code"] == "exclusive-token-shared"
    assert "both hold owner:node/nvidia-gpu" in data["findings"][0]["message"]
    message = report.findings[0].message
    assert isinstance(message, Text)
    assert message.template.startswith("%(a)s and %(b)s both hold %(tokens)s")
    assert render(message, lambda template: "«" + template + "»").startswith("«HAMi device-plugin")


# Matching rules.

PCI_10DE = "feature.node.kubernetes.io/pci-10de.present"
GPU_NODE = {"metadata": {"name": "gpu-1", "labels": {"pool": "dra", PCI_10DE: "true"}}}


def affinity(*expressions, fields=()):
    term = {"matchExpressions": list(expressions)}
    if fields:
        term["matchFields"] = list(fields)
    return {
        "affinity": {
            "nodeAffinity": {
                "requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [term]}
            }
        }
    }


@pytest.mark.parametrize(
    ("pod_spec", "runs"),
    [
        ({}, True),
        ({"nodeSelector": {"pool": "dra"}}, True),
        ({"nodeSelector": {"pool": "classic"}}, False),
        (affinity({"key": "pool", "operator": "In", "values": ["dra", "x"]}), True),
        (affinity({"key": "pool", "operator": "NotIn", "values": ["dra"]}), False),
        (affinity({"key": "gpu", "operator": "NotIn", "values": ["off"]}), True),
        (
            affinity({"key": "feature.node.kubernetes.io/pci-10de.present", "operator": "Exists"}),
            True,
        ),
        (affinity({"key": "pool", "operator": "DoesNotExist"}), False),
        (affinity(fields=[{"key": "metadata.name", "operator": "In", "values": ["gpu-1"]}]), True),
        (affinity(), False),  # an empty term matches no node
    ],
)
def test_a_daemonset_runs_where_its_selector_and_required_affinity_admit_the_node(pod_spec, runs):
    assert schedules_on(pod_spec, GPU_NODE) is runs


@pytest.mark.parametrize(
    ("image", "repository"),
    [
        ("nvcr.io/nvidia/k8s-device-plugin:v0.20.0", "nvidia/k8s-device-plugin"),
        ("registry.k8s.io/kueue/kueue@sha256:0123abcd", "kueue/kueue"),
        ("localhost:5000/team/hami:v2", "team/hami"),
        ("volcanosh/vc-scheduler:v1.15.1", "volcanosh/vc-scheduler"),
        ("busybox", "busybox"),
    ],
)
def test_an_image_is_matched_by_its_repository_path_without_registry_tag_or_digest(
    image, repository
):
    assert image_repository(image) == repository


@pytest.mark.parametrize(
    ("chart", "parts"),
    [
        ("hami-2.10.0", ("hami", "2.10.0")),
        ("nvidia-device-plugin-0.20.0", ("nvidia-device-plugin", "0.20.0")),
        ("dra-driver-nvidia-gpu-25.3.0-rc.1", ("dra-driver-nvidia-gpu", "25.3.0-rc.1")),
    ],
)
def test_a_helm_list_chart_splits_into_name_and_version(chart, parts):
    assert chart_name_version(chart) == parts


# Untrusted input: whatever the schema lets through, the check reads without failing.

ODD_VALUES = (None, 1, -1.5, True, "", "x", [], {}, [1, "a"], {"a": 1}, [{}], [[]], {"key": None})


def _paths(node, prefix=()):
    if prefix:
        yield prefix
    children = (
        node.items()
        if isinstance(node, dict)
        else enumerate(node)
        if isinstance(node, list)
        else ()
    )
    for key, child in children:
        yield from _paths(child, (*prefix, key))


@pytest.mark.parametrize("name", sorted(p.name for p in CLUSTERS.glob("*.json")))
def test_odd_shapes_the_schema_lets_through_never_break_the_check(name):
    rnd = random.Random(name)  # reproducible per fixture
    decision = Decided(rows=("hami/device-plugin",), pools={"x": ("hami/device-plugin",)})
    checked = 0
    for _ in range(150):
        source = document(name)
        for path in rnd.sample(list(_paths(source)), 2):
            parent = source
            try:  # the first change may have replaced the way to the second
                for key in path[:-1]:
                    parent = parent[key]
                parent[path[-1]] = copy.deepcopy(rnd.choice(ODD_VALUES))
            except (KeyError, IndexError, TypeError):
                continue
        try:
            snapshot = parse_snapshot(source)
        except SnapshotError:
            continue
        rows, signatures, evidence = builtin()
        json.dumps(
            check_cluster(
                snapshot, rows=rows, signatures=signatures, evidence=evidence, decision=decision
            ).to_dict()
        )
        checked += 1
    assert checked > 30


def test_a_cluster_of_ten_thousand_gpu_nodes_is_checked_in_seconds():
    source = document("mig-manager.json")
    template = source["nodes"]["items"][0]
    source["nodes"]["items"] = []
    for i in range(10_000):
        node = copy.deepcopy(template)
        node["metadata"]["name"] = f"gpu-{i}"
        node["metadata"]["labels"]["kubernetes.io/hostname"] = f"gpu-{i}"
        source["nodes"]["items"].append(node)
    started = time.perf_counter()
    report = check(source)
    assert time.perf_counter() - started < 10  # ~0.5 s on a laptop core; shared CI is slower
    assert len(detected(report)["nvidia-mig/mig-manager"]) == 10_000
    assert [p.name for p in report.pools] == ["mig (NVIDIA-A100-SXM4-80GB)"]


def test_a_queue_covering_kueues_transformed_hami_resources_is_a_warning_not_an_error():
    source = document("queue-misses-hami.json")
    [queue] = source["clusterqueues"]["items"]
    group = queue["spec"]["resourceGroups"][0]
    group["coveredResources"] += ["nvidia.com/total-gpucores", "nvidia.com/total-gpumem"]
    report = check(source)
    assert not found(report, "queue-resource-not-covered")
    [transformed] = found(report, "queue-resource-transformed")
    assert transformed.severity == "warning"
    assert "nvidia.com/total-gpucores, nvidia.com/total-gpumem" in transformed.message
    assert transformed.evidence[0].endswith("site/content/en/docs/tasks/run/using_hami.md")


def test_a_decided_cost_tool_whose_accepted_signals_nobody_exports_is_a_warning():
    decision = Decided(rows=("hami/device-plugin", "opencost/cost-model"))
    report = check("hami-kueue-ok.json", decision=decision)
    [signal] = found(report, "signal-not-exported")
    assert signal.rows == ("opencost/cost-model",)
    assert "signal:dcgm/DCGM_FI_PROF_GR_ENGINE_ACTIVE" in signal.message


def test_a_decided_cost_tool_is_content_once_dcgm_exporter_runs():
    source = document("hami-kueue-ok.json")
    exporter = copy.deepcopy(source["daemonsets"]["items"][0])
    exporter["metadata"].update(name="dcgm-exporter", namespace="monitoring")
    exporter["spec"]["template"]["spec"]["containers"] = [
        {"name": "exporter", "image": "nvcr.io/nvidia/k8s/dcgm-exporter:4.2.3-4.1.3-ubuntu22.04"}
    ]
    source["daemonsets"]["items"].append(exporter)
    decision = Decided(rows=("hami/device-plugin", "opencost/cost-model"))
    report = check(source, decision=decision)
    assert "dcgm-exporter/exporter" in detected(report)
    assert not found(report, "signal-not-exported")


def test_a_cost_tool_that_does_not_account_for_hamis_slices_is_a_warning():
    source = document("hami-kueue-ok.json")
    opencost = copy.deepcopy(source["deployments"]["items"][-1])
    opencost["metadata"].update(name="opencost", namespace="opencost")
    opencost["spec"]["template"]["spec"]["containers"] = [
        {"name": "opencost", "image": "ghcr.io/opencost/opencost:1.112.0"}
    ]
    source["deployments"]["items"].append(opencost)
    report = check(source)
    [cost] = found(report, "cost-resource-not-accounted")
    assert cost.rows == ("opencost/cost-model",)
    assert "nvidia.com/gpucores, nvidia.com/gpumem" in cost.message
    assert cost.nodes == ("gpu-inf-1", "gpu-inf-2", "gpu-inf-3")


def test_a_cluster_wide_row_decided_for_a_pool_serves_that_pool():
    decision = Decided(
        rows=(
            "hami/device-plugin",
            "hami-core/libvgpu",
            "hami/scheduler-extender",
            "kueue/controller",
        ),
        pools={"inference": ("hami/device-plugin", "hami-core/libvgpu", "kueue/controller")},
    )
    report = check("hami-kueue-ok.json", decision=decision)
    assert not found(report, "pool-row-missing")
    assert not found(report, "pool-row-unexpected")
    assert serious(report) == []
