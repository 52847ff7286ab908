"""The device plugin's mode on nodes as the GPU Operator leaves them: MIG disabled by the MIG
manager (`nvidia.com/mig.config=all-disabled`) presents whole GPUs, although GFD still writes
`nvidia.com/mig.strategy=single`; a node whose MIG is enabled is the MIG single strategy.

Labels as GFD v0.20.0 writes them: `nvidia.com/mig.strategy` whatever the devices
(internal/lm/strategy.go#L20-L27 and mig-strategy.go#L62-L76), no MIG labels when no device has
MIG enabled (mig-strategy.go#L188-L191, "equivalent to the none MIG strategy"), the product with
`-MIG-<profile>` and the MIG attribute labels when they have (mig-strategy.go#L216-L241,
resource.go#L75-L108). `nvidia.com/mig.config=all-disabled` is the GPU Operator v26.7.0's default
on MIG-capable nodes (controllers/state_manager.go#L49-L50, nodelabeling_controller.go#L306-L316);
it deploys the device plugin v0.20.0 as DaemonSet nvidia-device-plugin-daemonset
(deployments/gpu-operator/values.yaml#L241-L245, assets/state-device-plugin/0500_daemonset.yaml#L6).
"""

from __future__ import annotations

from typing import Any

from catalog.engine.cluster import Decided
from tests.catalog.engine.cluster.test_cluster_checks import check, detected, found

PRODUCT = "NVIDIA-A100-SXM4-80GB"


def gfd_whole_gpu_labels() -> dict[str, str]:
    return {
        "nvidia.com/gpu.present": "true",
        "nvidia.com/gpu.product": PRODUCT,
        "nvidia.com/gpu.count": "8",
        "nvidia.com/gpu.replicas": "1",
        "nvidia.com/gpu.sharing-strategy": "none",
        "nvidia.com/gpu.memory": "81920",
        "nvidia.com/gpu.family": "ampere",
        "nvidia.com/mig.capable": "true",
        "nvidia.com/mps.capable": "false",
        "nvidia.com/mig.strategy": "single",
    }


def gfd_mig_single_labels(profile: str = "1g.10gb", count: int = 56) -> dict[str, str]:
    return {
        "nvidia.com/gpu.present": "true",
        "nvidia.com/gpu.product": f"{PRODUCT}-MIG-{profile}",
        "nvidia.com/gpu.count": str(count),
        "nvidia.com/gpu.replicas": "1",
        "nvidia.com/gpu.sharing-strategy": "none",
        "nvidia.com/gpu.memory": "9728",
        "nvidia.com/gpu.multiprocessors": "14",
        "nvidia.com/gpu.slices.gi": "1",
        "nvidia.com/gpu.slices.ci": "1",
        "nvidia.com/mig.capable": "true",
        "nvidia.com/mps.capable": "false",
        "nvidia.com/mig.strategy": "single",
    }


def operator_node(name: str, labels: dict[str, str], gpus: int) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {
            "name": name,
            "labels": {
                "kubernetes.io/hostname": name,
                "nvidia.com/gpu.deploy.device-plugin": "true",
                "nvidia.com/gpu.deploy.mig-manager": "true",
                "nvidia.com/mig.config.state": "success",
                **labels,
            },
        },
        "status": {"allocatable": {"cpu": "96", "memory": "1Ti", "nvidia.com/gpu": str(gpus)}},
    }


def operator_daemonset(name: str, image: str) -> dict[str, Any]:
    return {
        "apiVersion": "apps/v1",
        "kind": "DaemonSet",
        "metadata": {"name": name, "namespace": "gpu-operator"},
        "spec": {
            "template": {
                "spec": {
                    "nodeSelector": {"nvidia.com/gpu.deploy.device-plugin": "true"}
                    if "device-plugin" in name
                    else {},
                    "containers": [{"name": name, "image": image}],
                }
            }
        },
    }


def operator_snapshot(nodes: list[dict[str, Any]]) -> dict[str, Any]:
    """A cluster the GPU Operator v26.7.0 set up: its device plugin, GFD and MIG manager."""
    return {
        "format": "ecomap.cluster/v1",
        "cluster": "operator",
        "collected_at": "2026-12-01T10:00:00Z",
        "kubernetes_version": "v1.33.2",
        "helm_releases": [
            {
                "name": "gpu-operator",
                "namespace": "gpu-operator",
                "status": "deployed",
                "chart": "gpu-operator-v26.7.0",
                "app_version": "v26.7.0",
            }
        ],
        "nodes": {"apiVersion": "v1", "kind": "List", "items": nodes},
        "daemonsets": {
            "apiVersion": "v1",
            "kind": "List",
            "items": [
                operator_daemonset(
                    "nvidia-device-plugin-daemonset", "nvcr.io/nvidia/k8s-device-plugin:v0.20.0"
                ),
                operator_daemonset(
                    "gpu-feature-discovery", "nvcr.io/nvidia/k8s-device-plugin:v0.20.0"
                ),
                operator_daemonset(
                    "nvidia-mig-manager", "nvcr.io/nvidia/cloud-native/k8s-mig-manager:v0.15.0"
                ),
            ],
        },
    }


def mig_disabled_nodes() -> list[dict[str, Any]]:
    labels = {**gfd_whole_gpu_labels(), "nvidia.com/mig.config": "all-disabled"}
    return [operator_node(f"gpu-{i}", labels, 8) for i in (1, 2)]


def mig_enabled_nodes() -> list[dict[str, Any]]:
    labels = {**gfd_mig_single_labels(), "nvidia.com/mig.config": "all-1g.10gb"}
    return [operator_node(f"mig-{i}", labels, 56) for i in (1, 2)]


def test_whole_gpus_under_mig_config_all_disabled_are_the_whole_gpu_mode():
    report = check(operator_snapshot(mig_disabled_nodes()))

    rows = detected(report)
    assert rows["nvidia-device-plugin/whole-gpu"] == ("gpu-1", "gpu-2")
    assert "nvidia-device-plugin/mig-single" not in rows


def test_a_whole_gpu_decision_on_mig_disabled_nodes_is_not_said_to_be_absent():
    decision = Decided(rows=("nvidia-device-plugin/whole-gpu", "nvidia-mig/mig-manager"))

    report = check(operator_snapshot(mig_disabled_nodes()), decision=decision)

    assert not found(report, "decided-row-absent")
    assert not [f for f in found(report, "row-not-decided") if "nvidia-device-plugin" in f.rows[0]]


def test_nodes_whose_gpus_are_not_mig_capable_present_whole_gpus_too():
    labels = {**gfd_whole_gpu_labels(), "nvidia.com/mig.capable": "false"}
    report = check(operator_snapshot([operator_node("gpu-1", labels, 8)]))

    assert "nvidia-device-plugin/whole-gpu" in detected(report)
    assert "nvidia-device-plugin/mig-single" not in detected(report)


def test_a_mig_enabled_node_under_the_single_strategy_is_still_the_mig_single_mode():
    report = check(operator_snapshot(mig_enabled_nodes()))

    assert detected(report)["nvidia-device-plugin/mig-single"] == ("mig-1", "mig-2")
    assert "nvidia-device-plugin/whole-gpu" not in detected(report)


def test_mig_single_is_found_from_the_mig_nodes_when_other_nodes_have_mig_disabled():
    decision = Decided(rows=("nvidia-device-plugin/mig-single", "nvidia-mig/mig-manager"))

    report = check(operator_snapshot(mig_disabled_nodes() + mig_enabled_nodes()), decision=decision)

    assert "nvidia-device-plugin/mig-single" in detected(report)
    assert not found(report, "decided-row-absent")
