"""One device plugin DaemonSet, two modes: the GPU Operator runs one NVIDIA device plugin
DaemonSet on every node labelled nvidia.com/gpu.deploy.device-plugin=true
(gpu-operator v26.7.0 assets/state-device-plugin/0500_daemonset.yaml), and each node takes its
own configuration by its nvidia.com/device-plugin.config label (k8s-device-plugin v0.20.0
README, "Per-node configuration"): a whole-GPU pool and a MIG pool under one DaemonSet are two
modes, each detected on its own pool's nodes."""

from __future__ import annotations

from catalog.engine.cluster import Decided
from tests.catalog.engine.cluster.test_cluster_checks import check, detected, found


def _node(name: str, pool: str, labels: dict[str, str], allocatable: dict[str, str]) -> dict:
    return {
        "metadata": {"name": name, "labels": {"ecomap.io/pool": pool, **labels}},
        "status": {"allocatable": allocatable},
    }


SNAPSHOT = {
    "format": "ecomap.cluster/v1",
    "cluster": "two-modes",
    "kubernetes_version": "v1.33.2",
    "nodes": {
        "items": [
            _node(
                "train-1",
                "training",
                {"nvidia.com/mig.strategy": "none", "nvidia.com/mig.config": "all-disabled"},
                {"nvidia.com/gpu": "8"},
            ),
            _node(
                "infer-1",
                "inference",
                {"nvidia.com/mig.strategy": "mixed", "nvidia.com/mig.config": "inference-0"},
                {"nvidia.com/mig-3g.40gb": "16"},
            ),
        ]
    },
    "daemonsets": {
        "items": [
            {
                "metadata": {"name": "nvidia-device-plugin-daemonset", "namespace": "gpu-operator"},
                "spec": {
                    "template": {
                        "spec": {"nodeSelector": {"nvidia.com/gpu.deploy.device-plugin": "true"}}
                    }
                },
            }
        ]
    },
}


def _labelled(snapshot: dict) -> dict:
    for node in snapshot["nodes"]["items"]:
        node["metadata"]["labels"]["nvidia.com/gpu.deploy.device-plugin"] = "true"
    return snapshot


def test_each_pools_mode_is_detected_on_its_own_nodes():
    report = check(_labelled(SNAPSHOT))

    assert detected(report)["nvidia-device-plugin/whole-gpu"] == ("train-1",)
    assert detected(report)["nvidia-device-plugin/mig-mixed"] == ("infer-1",)


def test_a_decision_of_one_mode_per_pool_is_not_reported_absent():
    decision = Decided(
        rows=("nvidia-device-plugin/whole-gpu", "nvidia-device-plugin/mig-mixed"),
        pools={
            "training": ("nvidia-device-plugin/whole-gpu",),
            "inference": ("nvidia-device-plugin/mig-mixed",),
        },
    )

    report = check(_labelled(SNAPSHOT), decision=decision)

    assert found(report, "decided-row-absent") == []
    assert found(report, "exclusive-token-shared") == []


def test_node_pools_are_named_by_ecomaps_pool_label():
    report = check(_labelled(SNAPSHOT))

    assert {pool.name for pool in report.pools} == {"training", "inference"}
