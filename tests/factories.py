"""Test data builders. Catalog data is built as bundles and applied through the real service."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import yaml
from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Permission

from catalog.engine.rows import Row, row_from_bundle
from catalog.services import bundle_apply

LAYER_UNITS = {
    "data_plane": (["whole_gpu"], ["driver_hardware"]),
    "control_plane": (["whole_gpu", "mig_slice"], ["scheduler"]),
    "platform": (["whole_gpu"], ["platform"]),
}


def placement(key: str = "main", layer: str = "data_plane", **fields: Any) -> dict[str, Any]:
    units, points = LAYER_UNITS[layer]
    return {
        "key": key,
        "component": fields.pop("component", f"{key} component"),
        "layer": layer,
        "resource_units": fields.pop("resource_units", units),
        "enforcement_points": fields.pop("enforcement_points", points),
        "promise": fields.pop("promise", f"The {key} component keeps its promise."),
        "evidence": fields.pop("evidence", [{"url": "https://example.org/docs", "claim": "docs"}]),
        **fields,
    }


def project(slug: str, *placements: dict[str, Any], **fields: Any) -> dict[str, Any]:
    return {
        "slug": slug,
        "name": fields.pop("name", slug.replace("-", " ").title()),
        "description": fields.pop("description", f"{slug} does GPU things."),
        "tags": fields.pop("tags", ["gpu"]),
        "placements": list(placements),
        **fields,
    }


def bundle(*projects: dict[str, Any]) -> dict[str, Any]:
    return {"format": "ecomap.bundle/v1", "source": "tests", "projects": list(projects)}


def synthetic_bundle(count: int, *, rows_per_project: int = 1) -> dict[str, Any]:
    """`count` projects with `rows_per_project` rows each, spread over the three layers."""
    layers = list(LAYER_UNITS)
    projects = []
    for i in range(count):
        rows = [
            placement(
                f"row-{j}",
                layers[(i + j) % 3],
                provides=[f"resource:example.com/gpu-{i % 7}"],
                requires=["api:kubelet/device-plugin/v1beta1"],
            )
            for j in range(rows_per_project)
        ]
        projects.append(project(f"project-{i:05d}", *rows, tags=[f"tag-{i % 5}"]))
    return bundle(*projects)


def apply(document: dict[str, Any], **kwargs: Any):
    return bundle_apply(document=document, source="tests", **kwargs)


def streamed_json(response) -> Any:
    """The JSON body of a streamed response (the bundle export), read to the end."""
    assert response.streaming, "the export is streamed"
    return json.loads(b"".join(response.streaming_content))


def make_user(username: str, *, maintainer: bool = False, **fields: Any):
    user = get_user_model().objects.create_user(
        username=username, password=f"{username}-password", **fields
    )
    if maintainer:
        user.user_permissions.add(Permission.objects.get(codename="maintain_catalog"))
    return user


def builtin_rows(*, maintained_only: bool = False) -> dict[str, Row]:
    """The built-in catalog (catalog/data/*.yaml) as engine rows by id, without a database;
    `maintained_only` leaves out projects tagged unmaintained, as recommendable_rows does."""
    rows = (
        row_from_bundle(project["slug"], placement, project_name=project["name"])
        for path in sorted(Path(settings.CATALOG_DATA_DIR).glob("*.yaml"))
        for project in yaml.safe_load(path.read_text(encoding="utf-8"))["projects"]
        if not (maintained_only and "unmaintained" in project.get("tags", []))
        for placement in project["placements"]
    )
    return {row.id: row for row in rows}


def scaled_projects(rows: int, projects: int) -> list[dict[str, Any]]:
    """A big catalog derived from the built-in rows (bench/scalecatalog.py), as bundle projects."""
    bench = str(Path(settings.BASE_DIR) / "bench")
    if bench not in sys.path:
        sys.path.insert(0, bench)
    import scalecatalog

    return scalecatalog.scaled_projects(rows=rows, projects=projects)


def scaled_rows(rows: int, projects: int) -> list[Row]:
    """The same catalog as engine rows, without a database."""
    return [
        row_from_bundle(p["slug"], placement, project_name=p["name"])
        for p in scaled_projects(rows, projects)
        for placement in p["placements"]
    ]
