"""Reading bundle files and request bodies: JSON or YAML, parsed safely, errors with positions."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import yaml


class BundleParseError(ValueError):
    """The text is not well-formed JSON or YAML; the message carries the parser's position."""


def parse_document(text: str, *, hint: str = "") -> Any:
    """Parse JSON (if it looks like JSON or the hint says so) else YAML, with yaml.safe_load."""
    stripped = text.lstrip()
    if hint == "json" or (hint != "yaml" and stripped[:1] in ("{", "[")):
        try:
            return json.loads(text)
        except json.JSONDecodeError as exc:
            raise BundleParseError(
                f"invalid JSON: {exc.msg} at line {exc.lineno}, column {exc.colno}"
            ) from exc
    try:
        return yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark else ""
        problem = getattr(exc, "problem", None) or str(exc)
        raise BundleParseError(f"invalid YAML: {problem}{where}") from exc


def read_document(path: Path) -> Any:
    hint = {".json": "json", ".yaml": "yaml", ".yml": "yaml"}.get(path.suffix.lower(), "")
    return parse_document(path.read_text(encoding="utf-8"), hint=hint)


def merge_bundles(documents: list[dict[str, Any]], *, source: str) -> dict[str, Any]:
    """One bundle holding the projects of several (the built-in catalog is one file per project)."""
    return {
        "format": "ecomap.bundle/v1",
        "source": source,
        "projects": [project for document in documents for project in document.get("projects", [])],
    }
