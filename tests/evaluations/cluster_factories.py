"""Cluster snapshot test data: `ecomap.cluster/v1` documents built like kubectl prints them, and
detect signatures on the small catalog's rows (tests.evaluations.factories.small_catalog)."""

from __future__ import annotations

import copy
import json
from typing import Any

from catalog.models import PlacementRow

GPUS_PER_NODE = 8

SIGNATURES = {
    ("hami", "device-plugin"): {"daemonsets": ["*hami-device-plugin"]},
    ("time-slicer", "plugin"): {"daemonsets": ["*time-slicer"]},
    ("volcano", "scheduler"): {"deployments": ["*volcano-scheduler"]},
}


def sign_small_catalog() -> None:
    """Give the small catalog's rows detect signatures (the built-in rows carry real ones)."""
    for (slug, key), detect in SIGNATURES.items():
        PlacementRow.objects.filter(project__slug=slug, key=key).update(detect=detect)


def node(name: str, **labels: str) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": name, "labels": {"kubernetes.io/hostname": name, **labels}},
        "status": {"allocatable": {"cpu": "32", "nvidia.com/gpu": "8"}},
    }


def daemonset(name: str, image: str, namespace: str = "kube-system") -> dict[str, Any]:
    return {
        "apiVersion": "apps/v1",
        "kind": "DaemonSet",
        "metadata": {"name": name, "namespace": namespace},
        "spec": {"template": {"spec": {"containers": [{"name": name, "image": image}]}}},
    }


def snapshot(
    cluster: str = "prod-gpu",
    *,
    daemonsets: list[dict[str, Any]] | None = None,
    collected_at: str = "2026-12-01T10:00:00Z",
    nodes: list[dict[str, Any]] | None = None,
) -> dict[str, Any]:
    """A small valid snapshot: two GPU nodes, HAMi's device plugin unless told otherwise."""
    return {
        "format": "ecomap.cluster/v1",
        "cluster": cluster,
        "collected_at": collected_at,
        "kubernetes_version": "v1.33.2",
        "nodes": {
            "apiVersion": "v1",
            "kind": "List",
            "items": nodes
            if nodes is not None
            else [
                node("gpu-a", **{"nvidia.com/gpu.product": "NVIDIA-H100"}),
                node("gpu-b", **{"nvidia.com/gpu.product": "NVIDIA-H100"}),
            ],
        },
        "daemonsets": {
            "apiVersion": "v1",
            "kind": "List",
            "items": daemonsets
            if daemonsets is not None
            else [daemonset("hami-device-plugin", "docker.io/projecthami/hami:v2.6.0")],
        },
    }


def conflicting_snapshot(cluster: str = "prod-gpu") -> dict[str, Any]:
    """HAMi's device plugin and a second device plugin on the same nodes."""
    return snapshot(
        cluster,
        daemonsets=[
            daemonset("hami-device-plugin", "docker.io/projecthami/hami:v2.6.0"),
            daemonset("time-slicer", "example.org/time-slicer:v1.0"),
        ],
    )


def body(document: Any) -> bytes:
    return json.dumps(document).encode()


def snapshot_as_generated(files) -> dict[str, Any]:
    """The snapshot of a cluster set up exactly as the files say: each pool's nodes labelled and
    tainted, the MIG manager's layout applied, GFD's labels for the device plugin's config, and
    the ClusterQueues applied."""
    nodes = []
    by_path = {f.path: f for f in files}
    for file in files:
        if file.kind != "node-pool":
            continue
        pool = file.documents[0].data
        plugin = by_path.get(f"nvidia-device-plugin/{pool['pool']}.yaml")
        config = plugin.documents[0].data if plugin else {}
        mig_configs = (
            by_path["mig-parted/config.yaml"].documents[0].data["mig-configs"]
            if "mig-parted/config.yaml" in by_path
            else {}
        )
        groups = pool.get("mig_configs") or [{"nodes": pool["nodes"], "labels": {}}]
        for group in groups:
            for _ in range(group["nodes"]):
                name = f"{pool['pool']}-{len(nodes) + 1}"
                labels = {"kubernetes.io/hostname": name, **pool["labels"], **group["labels"]}
                allocatable = {"cpu": "96", "nvidia.com/gpu": str(GPUS_PER_NODE)}
                layout_name = group["labels"].get("nvidia.com/mig.config")
                if layout_name:
                    allocatable.pop("nvidia.com/gpu")
                    for profile, count in mig_configs[layout_name][0]["mig-devices"].items():
                        allocatable[f"nvidia.com/mig-{profile}"] = str(count * GPUS_PER_NODE)
                if config:
                    strategy = config["flags"]["migStrategy"]
                    if strategy != "none":
                        labels["nvidia.com/mig.strategy"] = strategy
                    sharing = config.get("sharing", {})
                    mode = "time-slicing" if "timeSlicing" in sharing else "none"
                    labels["nvidia.com/gpu.sharing-strategy"] = mode
                    replicas = sharing["timeSlicing"]["resources"][0]["replicas"] if sharing else 1
                    labels["nvidia.com/gpu.replicas"] = str(replicas)
                nodes.append(
                    {
                        "apiVersion": "v1",
                        "kind": "Node",
                        "metadata": {"name": name, "labels": labels},
                        "spec": {"taints": copy.deepcopy(pool["taints"])},
                        "status": {"allocatable": allocatable},
                    }
                )
    queues = (
        [copy.deepcopy(d.data) for d in by_path["kueue/cluster-queues.yaml"].documents]
        if "kueue/cluster-queues.yaml" in by_path
        else []
    )
    return {
        "format": "ecomap.cluster/v1",
        "cluster": "as-generated",
        "collected_at": "2026-12-02T10:00:00Z",
        "kubernetes_version": "v1.33.2",
        "nodes": {"apiVersion": "v1", "kind": "List", "items": nodes},
        "clusterqueues": {"apiVersion": "v1", "kind": "List", "items": queues},
    }
