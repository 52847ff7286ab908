"""Operators recognised without Helm labels (issue 42 item 3): a hand-written snapshot's GPU
Operator Deployment by its image (nvcr.io/nvidia/gpu-operator, named as the chart gpu-operator),
and an operand DaemonSet by its owner, the GPU Operator's ClusterPolicy (nvidia.com)."""

from __future__ import annotations

from catalog.engine.cluster.images import chart_image, owned_by
from tests.catalog.engine.cluster.test_cluster_checks import check, detected

OPERATOR = "nvidia-gpu-operator/clusterpolicy"


def _workload(name: str, image: str, **metadata) -> dict:
    return {
        "metadata": {"name": name, "namespace": "gpu-operator", **metadata},
        "spec": {"template": {"spec": {"containers": [{"name": "main", "image": image}]}}},
    }


def _snapshot(**kinds) -> dict:
    return {
        "format": "ecomap.cluster/v1",
        "cluster": "hand-written",
        "nodes": {"items": [{"metadata": {"name": "gpu-1", "labels": {}}}]},
        **{key: {"items": items} for key, items in kinds.items()},
    }


def test_the_gpu_operator_deployment_is_recognised_by_its_image_without_helm_labels():
    snapshot = _snapshot(
        deployments=[_workload("my-gpu-operator", "nvcr.io/nvidia/gpu-operator:v24.9.0")]
    )

    report = check(snapshot)

    # Without corroboration the operator's modes tie: the row is found, the others listed.
    (operator,) = [d for d in report.detected if d.row.startswith("nvidia-gpu-operator/")]
    assert OPERATOR in (operator.row, *operator.alternatives)
    assert operator.cluster_wide


def test_an_operand_is_recognised_by_its_owner_the_clusterpolicy():
    owner = {"apiVersion": "nvidia.com/v1", "kind": "ClusterPolicy", "name": "cluster-policy"}
    snapshot = _snapshot(
        daemonsets=[_workload("custom-driver", "example.org/driver:1", ownerReferences=[owner])]
    )

    report = check(snapshot)

    assert OPERATOR in detected(report)
    (operator,) = [d for d in report.detected if d.row == OPERATOR]
    assert "DaemonSet gpu-operator/custom-driver" in operator.objects


def test_owners_and_chart_images_in_plain_python():
    signature = {"crds": ["clusterpolicies.nvidia.com"], "helm_charts": ["gpu-operator"]}

    class Workload:
        owners = (("nvidia.com", "ClusterPolicy"),)
        images = ("registry.example.org/mirror/gpu-operator:v24.9.0",)

    assert owned_by(signature, Workload) == "ClusterPolicy.nvidia.com"
    assert chart_image(signature, Workload) == Workload.images[0]
    Workload.owners = (("apps", "ReplicaSet"),)
    Workload.images = ("nvcr.io/nvidia/k8s-device-plugin:v0.17.0",)
    assert owned_by(signature, Workload) is None
    assert chart_image(signature, Workload) is None
