"""Cluster snapshot test data: `ecomap.cluster/v1` documents built like kubectl prints them, and
detect signatures on the small catalog's rows (tests.evaluations.factories.small_catalog)."""

from __future__ import annotations

import json
from typing import Any

from catalog.models import PlacementRow

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
