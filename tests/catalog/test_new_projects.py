"""Issue 27 item 3: the projects the catalog lacked (Kubernetes workload-aware scheduling, Intel's
DRA drivers, AMD's device metrics exporter, NVIDIA Grove, HAMi's Ascend device plugin): what they
offer their consumers, the gates they need, and how a cluster snapshot shows them."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from django.conf import settings

from catalog.engine.baseline import baseline_offers, feature_interface
from catalog.engine.cluster.detect import detect_rows
from catalog.engine.cluster.snapshot import parse_snapshot
from catalog.engine.kubernetes import features
from catalog.engine.oracle import pair_verdicts
from tests.evaluations.cluster_factories import daemonset, snapshot
from tests.factories import builtin_rows

ROWS = builtin_rows()
WAS = "kubernetes-workload-scheduling/gang-scheduling"
SIGNATURES = {
    f"{project['slug']}/{placement['key']}": placement.get("detect") or {}
    for path in sorted(Path(settings.CATALOG_DATA_DIR).glob("*.yaml"))
    for project in yaml.safe_load(path.read_text(encoding="utf-8"))["projects"]
    for placement in project["placements"]
}


# Each consumer's own release documents the API: KubeRay v1.7.0 (KubernetesWAS provider),
# slurm-bridge v1.2.1 (docs/workload.md "PodGroup (1.36+)"); JobSet only after v0.12.0.
@pytest.mark.parametrize(
    "consumer", ["jobset/controller", "kuberay/operator", "slinky/slurm-bridge"]
)
def test_workload_aware_scheduling_provides_the_api_its_consumers_accept(consumer):
    accepted = {i for i in ROWS[consumer].accepts if i.startswith("api:scheduling.k8s.io/")}
    detail = pair_verdicts(ROWS[WAS], ROWS[consumer])

    assert accepted and accepted <= ROWS[WAS].provides
    assert detail.verdict == "composes"
    assert accepted & {link.interface for link in detail.links}


def test_workload_aware_scheduling_is_an_alternative_to_the_coscheduling_plugin():
    # KEP-4671 replaces KEP-583 (coscheduling): both gang-place pods in the scheduler.
    assert pair_verdicts(ROWS[WAS], ROWS["scheduler-plugins/plugins"]).verdict == "competes"


@pytest.mark.parametrize("gate", ["GenericWorkload", "GangScheduling"])
def test_the_workload_scheduling_gates_are_sourced_alpha_facts_the_row_requires(gate):
    fact = features()[gate]

    assert feature_interface(gate) in ROWS[WAS].requires
    assert fact.source.startswith("https://github.com/kubernetes/website/blob/")
    assert fact.stages[(1, 35)] == fact.stages[(1, 36)] == "alpha"
    assert fact.default_on_since is None
    # alpha: a stated 1.36 cluster does not offer it, an unstated one is not held against
    assert not baseline_offers(feature_interface(gate), "1.36")
    assert baseline_offers(feature_interface(gate))


@pytest.mark.parametrize(
    ("a", "b", "verdict"),
    [
        # the repository calls the DRA drivers an alternative to the device plugins
        (
            "intel-resource-drivers/gpu-kubelet-plugin",
            "intel-gpu-device-plugin/whole-gpu",
            "conflicts",
        ),
        # The operator ships the exporter (issue 43): contains, wired through DeviceConfig.
        ("amd-device-metrics-exporter/exporter", "amd-gpu-operator/deviceconfig", "contains"),
        ("grove/operator", "kai-scheduler/scheduler", "composes"),
        ("hami-ascend-device-plugin/device-plugin", "hami/scheduler-extender", "composes"),
        # two plugins advertising the same Ascend NPUs of a node
        ("hami-ascend-device-plugin/device-plugin", "ascend-device-plugin/whole-npu", "conflicts"),
    ],
)
def test_the_new_rows_relate_to_the_catalog_as_their_sources_say(a, b, verdict):
    assert pair_verdicts(ROWS[a], ROWS[b]).verdict == verdict


@pytest.mark.parametrize(
    ("name", "image", "row"),
    [
        (
            "intel-gpu-resource-driver-kubelet-plugin",
            "ghcr.io/intel/intel-resource-drivers-for-kubernetes/intel-gpu-resource-driver:v0.11.0",
            "intel-resource-drivers/gpu-kubelet-plugin",
        ),
        (
            "intel-gaudi-resource-driver-kubelet-plugin",
            "ghcr.io/intel/intel-resource-drivers-for-kubernetes/intel-gaudi-resource-driver:v0.7.2",
            "intel-resource-drivers/gaudi-kubelet-plugin",
        ),
        (
            "exporter-amdgpu-metrics-exporter",
            "docker.io/rocm/device-metrics-exporter:v1.5.1",
            "amd-device-metrics-exporter/exporter",
        ),
        (
            "default-metrics-exporter",
            "docker.io/rocm/device-metrics-exporter:v1.5.1",
            "amd-device-metrics-exporter/exporter",
        ),
        (
            "hami-ascend-device-plugin",
            "projecthami/ascend-device-plugin:v1.4.0",
            "hami-ascend-device-plugin/device-plugin",
        ),
    ],
)
def test_a_snapshot_shows_the_new_node_agents_as_their_rows(name, image, row):
    found = _detected(daemonset(name, image))

    assert row in found
    assert found[row].version == image.rsplit(":", 1)[1]
    assert set(found) - {row} == set()


def _detected(*daemonsets):
    cluster = parse_snapshot(snapshot(daemonsets=list(daemonsets)))
    return {d.row: d for d in detect_rows(cluster, rows=list(ROWS.values()), signatures=SIGNATURES)}


# HAMi's chart names its DaemonSet "<release>-device-plugin" where the release holds "hami" (else
# "<release>-hami-device-plugin"): the glob '*hami*-device-plugin' of hami.yaml's device plugin and
# of hami-core also matches "hami-ascend-device-plugin", which the Ascend plugin's signature names
# exactly; the cluster check takes the closest signature (detect.closest_signatures).


def test_hamis_ascend_plugin_is_not_taken_for_hamis_nvidia_device_plugin():
    found = _detected(
        daemonset("hami-ascend-device-plugin", "projecthami/ascend-device-plugin:v1.4.0")
    )

    assert "hami/device-plugin" not in found


def test_the_hami_ascend_plugin_needs_hamis_device_assignment_which_kai_does_not_write():
    holds = pair_verdicts(
        ROWS["hami-ascend-device-plugin/device-plugin"], ROWS["kai-scheduler/scheduler"]
    ).holds

    assert "composes" not in holds


def test_grove_and_workload_scheduling_say_how_they_are_found():
    grove = SIGNATURES["grove/operator"]

    assert "podgangs.scheduler.grove.io" in grove["crds"]
    assert grove["deployments"] == ["grove-operator"]
    # built into Kubernetes: nothing of its own to match, and the row says so
    assert set(SIGNATURES[WAS]) == {"note"}
