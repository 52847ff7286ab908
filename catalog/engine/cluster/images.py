"""Container images and owners in a snapshot: an image reference's repository and tag, and how
an operator is recognised without Helm labels, by its image (named as its chart) or as the owner
of its operands (their metadata.ownerReferences name a kind of the row's own CRDs). Plain Python.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def image_repository(image: str) -> str:
    """`nvcr.io/nvidia/k8s-device-plugin:v0.17.0@sha256:…` → `nvidia/k8s-device-plugin`."""
    image = image.split("@", 1)[0]
    head, _, last = image.rpartition("/")
    if ":" in last:
        last = last.split(":", 1)[0]
    path = f"{head}/{last}" if head else last
    first, _, rest = path.partition("/")
    # A registry host has a dot or a port, or is localhost (the Docker reference grammar).
    if rest and ("." in first or ":" in first or first == "localhost"):
        return rest
    return path


def image_tag(image: str) -> str:
    last = image.split("@", 1)[0].rpartition("/")[2]
    return last.split(":", 1)[1] if ":" in last else ""


def image_matches(pattern: str, image: str) -> bool:
    repository = image_repository(image)
    return repository == pattern or repository.endswith("/" + pattern)


def _plurals(kind: str) -> set[str]:
    """The resource names a CRD may give a kind (ClusterPolicy → clusterpolicies)."""
    lower = kind.lower()
    names = {lower + "s", lower + "es"}
    if lower.endswith("y"):
        names.add(lower[:-1] + "ies")
    return names


def owned_by(signature: Mapping[str, Any], workload: Any) -> str | None:
    """The custom resource of the row's own CRDs that owns the workload, if one does."""
    crds = set(signature.get("crds", ()))
    for group, kind in workload.owners:
        if group and kind and any(f"{name}.{group}" in crds for name in _plurals(kind)):
            return f"{kind}.{group}"
    return None


def chart_image(signature: Mapping[str, Any], workload: Any) -> str | None:
    """An image named as the row's Helm chart (nvcr.io/nvidia/gpu-operator for the chart
    gpu-operator): how an operator installed without Helm labels is still recognised."""
    charts = {c for c in signature.get("helm_charts", ()) if not set("*?[") & set(c)}
    return next(
        (i for i in workload.images if image_repository(i).rpartition("/")[2] in charts), None
    )
