"""How a snapshot stores its rows: enough to rebuild engine Rows and explain any pair later."""

from __future__ import annotations

from typing import Any

from catalog.engine.rows import Row


def row_to_dict(row: Row) -> dict[str, Any]:
    return {
        "id": row.id,
        "project": row.project,
        "key": row.key,
        "layer": row.layer,
        "name": row.name,
        "resource_units": sorted(row.resource_units),
        "enforcement_points": sorted(row.enforcement_points),
        "provides": sorted(row.provides),
        "requires": sorted(row.requires),
        "accepts": sorted(row.accepts),
        "exclusive": sorted(row.exclusive),
        "signals": sorted(row.signals),
        "functions": sorted(row.functions),
        "vendors": sorted(row.vendors),
        "isolation": dict(row.isolation),
    }


def row_from_dict(data: dict[str, Any]) -> Row:
    return Row(**data)
