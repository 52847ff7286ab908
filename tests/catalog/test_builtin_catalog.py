"""The built-in catalog files: valid bundles, complete and sourced rows, real-world verdicts."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest
import yaml
from django.conf import settings

from catalog.engine.bundle import SCHEMA_PATH

DATA_FILES = sorted(Path(settings.CATALOG_DATA_DIR).glob("*.yaml"))
SCHEMA = json.loads(SCHEMA_PATH.read_text())
COMPLETE_FIELDS = (
    "component", "isolation", "non_promise", "costs", "failure_modes", "evidence",
    "project_version", "reviewed",
)  # fmt: skip


def _placements():
    for path in DATA_FILES:
        for project in yaml.safe_load(path.read_text())["projects"]:
            for placement in project.get("placements", []):
                yield path.name, project, placement


@pytest.mark.parametrize("path", DATA_FILES, ids=lambda p: p.name)
def test_every_catalog_file_validates_against_the_published_bundle_schema(path):
    document = yaml.safe_load(path.read_text())

    errors = list(jsonschema.Draft202012Validator(SCHEMA).iter_errors(document))

    assert errors == [], [(list(e.absolute_path), e.message) for e in errors]
    assert [p["slug"] for p in document["projects"]] == [path.stem]


def test_the_catalog_holds_at_least_30_projects_and_45_rows():
    projects = {project["slug"] for _, project, _ in _placements()}
    rows = list(_placements())

    assert len(projects) >= 30
    assert len(rows) >= 45


def test_every_row_is_complete_and_sourced():
    incomplete = [
        f"{name}:{placement['key']}: {field}"
        for name, _, placement in _placements()
        for field in COMPLETE_FIELDS
        if not placement.get(field)
    ]
    costs = [
        f"{name}:{placement['key']}: costs.{aspect}"
        for name, _, placement in _placements()
        for aspect in ("performance", "reconfiguration", "intrusiveness", "compatibility")
        if aspect not in placement.get("costs", {})
    ]

    assert incomplete + costs == []


def test_every_evidence_link_points_at_the_projects_own_docs_or_code_with_a_claim():
    bad = [
        f"{name}:{placement['key']}: {item}"
        for name, _, placement in _placements()
        for item in placement["evidence"]
        if not isinstance(item, dict)
        or not item.get("claim")
        or not item["url"].startswith("https://")
    ]

    assert bad == []


def test_the_catalog_covers_all_three_layers():
    layers = {placement["layer"] for _, _, placement in _placements()}

    assert layers == {"data_plane", "control_plane", "platform"}
