"""Known migration paths between placement rows (catalog/data/facts/migrations.yaml), validated.

A path says how a stack moves from one row to another: the rows it brings along, whether it is a
new install pool by pool or an in-place switch, and its steps, each citing the projects' docs.
"""

from __future__ import annotations

import functools
import re
from pathlib import Path
from typing import Any

from catalog.imports.parsing import parse_document

MIGRATIONS_PATH = Path(__file__).resolve().parent / "data" / "facts" / "migrations.yaml"
FORMAT = "ecomap.migrations/v1"
INSTALLS = ("new_per_pool", "in_place")
_REF = re.compile(r"^[a-z0-9][a-z0-9-]*/([a-z0-9*][a-z0-9.*-]*)$")
_INTERFACE = re.compile(r"^[a-z]+:\S+$")
_GATE = re.compile(r"^[A-Z][A-Za-z0-9]+$")


class MigrationsInvalid(ValueError):
    """The migrations file breaks its format; the message names the item (paths[1].steps[0])."""


def migration_paths_parse(text: str) -> list[dict[str, Any]]:
    """Validate a migrations document; the paths as plain dicts, in file order."""
    document = parse_document(text, hint="yaml")
    if not isinstance(document, dict) or document.get("format") != FORMAT:
        raise MigrationsInvalid(f"format: expected {FORMAT}")
    paths = document.get("paths")
    if not isinstance(paths, list):
        raise MigrationsInvalid("paths: expected a list")
    keys: set[str] = set()
    return [_path(item, f"paths[{i}]", keys) for i, item in enumerate(paths)]


def _path(item: Any, where: str, keys: set[str]) -> dict[str, Any]:
    if not isinstance(item, dict):
        raise MigrationsInvalid(f"{where}: expected an object")
    key = _text(item, "key", where)
    if key in keys:
        raise MigrationsInvalid(f"{where}.key: {key!r} appears twice")
    keys.add(key)
    for name in ("from", "to"):
        if not _REF.match(_text(item, name, where)):
            raise MigrationsInvalid(f"{where}.{name}: expected a row ref project/key")
    if "*" in item["to"]:
        raise MigrationsInvalid(f"{where}.to: one row, not a pattern")
    companions = item.get("with") or []
    if not isinstance(companions, list) or not all(
        isinstance(ref, str) and _REF.match(ref) and "*" not in ref for ref in companions
    ):
        raise MigrationsInvalid(f"{where}.with: expected a list of row refs")
    if item.get("install") not in INSTALLS:
        raise MigrationsInvalid(f"{where}.install: one of {', '.join(INSTALLS)}")
    steps = item.get("steps")
    if not isinstance(steps, list) or not steps:
        raise MigrationsInvalid(f"{where}.steps: expected at least one step")
    return {
        "key": key,
        "from": item["from"],
        "to": item["to"],
        "with": list(companions),
        "install": item["install"],
        "title": _text(item, "title", where),
        "steps": [_step(step, f"{where}.steps[{i}]") for i, step in enumerate(steps)],
    }


def _step(step: Any, where: str) -> dict[str, Any]:
    if not isinstance(step, dict):
        raise MigrationsInvalid(f"{where}: expected an object")
    evidence = step.get("evidence")
    # Unsourced steps are left out of the file, never shown without a source.
    if not isinstance(evidence, list) or not evidence:
        raise MigrationsInvalid(f"{where}.evidence: every step cites at least one source")
    for url in evidence:
        if not isinstance(url, str) or not url.startswith("https://"):
            raise MigrationsInvalid(f"{where}.evidence: expected https URLs")
    feature = step.get("feature")
    if feature is not None and not (isinstance(feature, str) and _GATE.match(feature)):
        raise MigrationsInvalid(f"{where}.feature: expected a feature gate name")
    restores = step.get("restores") or []
    if not isinstance(restores, list) or not all(
        isinstance(i, str) and _INTERFACE.match(i) for i in restores
    ):
        raise MigrationsInvalid(f"{where}.restores: expected a list of interface ids")
    return {
        "text": " ".join(_text(step, "text", where).split()),
        "evidence": list(evidence),
        "feature": feature,
        "restores": list(restores),
    }


def _text(item: dict[str, Any], name: str, where: str) -> str:
    value = item.get(name)
    if not isinstance(value, str) or not value.strip():
        raise MigrationsInvalid(f"{where}.{name}: required text")
    return value.strip()


@functools.cache
def migration_paths() -> tuple[dict[str, Any], ...]:
    """The built-in migration paths (read and validated once per process)."""
    return tuple(migration_paths_parse(MIGRATIONS_PATH.read_text(encoding="utf-8")))
