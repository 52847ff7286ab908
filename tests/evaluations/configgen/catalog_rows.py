"""Decided rows as the built-in catalog bundles state them (the generators' real input), for the
queue and DRA generator tests."""

from __future__ import annotations

import functools
from pathlib import Path

import yaml

from evaluations.configgen.model import Chart, RowFacts

DATA = Path(__file__).resolve().parents[3] / "catalog" / "data"


@functools.cache
def _bundle(project: str) -> dict:
    return yaml.safe_load((DATA / f"{project}.yaml").read_text(encoding="utf-8"))


def bundle_row(ref: str) -> RowFacts:
    """The row `project/key` as the catalog bundle states it, its DRA driver names included."""
    project, key = ref.split("/", 1)
    for entry in _bundle(project)["projects"]:
        for row in entry["placements"]:
            if row["key"] == key:
                return RowFacts(
                    ref=ref,
                    layer=row["layer"],
                    units=tuple(row.get("resource_units") or ()),
                    provides=tuple(row.get("provides") or ()),
                    version=str(row.get("project_version") or ""),
                    dra_drivers=tuple((row.get("detect") or {}).get("dra_drivers") or ()),
                    chart=Chart.of(row.get("config")),
                )
    raise LookupError(ref)
