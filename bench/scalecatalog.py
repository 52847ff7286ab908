"""A big, realistic catalog derived from the built-in one, for benchmarks and scale tests.

Real catalogs grow by distributions, forks and vendor editions of the same few kinds of
component, so the rows here are the built-in rows again under new project names, not random
noise: copy k of a project keeps its layer, units, enforcement points, functions, isolation,
costs, signals and baseline contracts (the kubelet device-plugin API, DRA, the scheduler
framework, node ownership tokens), and renames the contracts that belong to the project
itself (its CRD groups and, in every other copy, its own resource names), so forks of one
project compete with each other where upstream forks would and form their own CRD ecosystems.
Extra rows of a project are its editions (`<key>-e2`, `<key>-e3`): same contracts, other key.

Pure Python on bundle dicts (`ecomap.bundle/v1`); `bench/scale` writes them with
`bundle_apply`, and the engine tests turn them into rows with `row_from_bundle`.
"""

from __future__ import annotations

import copy
import math
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import yaml

REPO_ROOT = Path(__file__).resolve().parents[1]
BUILTIN_DIR = REPO_ROOT / "catalog" / "data"
LANDSCAPE = REPO_ROOT / "tests" / "data" / "cncf-landscape.yml"

# Contract prefixes shared by every implementation of a Kubernetes interface: never renamed.
SHARED_RESOURCE_DOMAINS = ("nvidia.com/", "amd.com/", "gpu.intel.com/", "k8s.io/")
CONTRACT_FIELDS = ("provides", "requires", "accepts")


def builtin_projects() -> list[dict[str, Any]]:
    """The built-in catalog's projects, in file order."""
    projects = []
    for path in sorted(BUILTIN_DIR.glob("*.yaml")):
        projects.extend(yaml.safe_load(path.read_text(encoding="utf-8"))["projects"])
    return projects


def _renamed(identifier: str, copy_number: int) -> str:
    if any(char in identifier for char in "*?["):
        return identifier  # a pattern (`resource:*`) accepts whatever its fork's peers provide
    kind, _, rest = identifier.partition(":")
    if kind == "crd":
        # crd:<group>/<version>/<Kind>: a fork's API group is its own.
        return f"crd:d{copy_number}.{rest}"
    if kind == "resource" and copy_number % 2 and not rest.startswith(SHARED_RESOURCE_DOMAINS):
        # Odd copies rename the project's own extended resources (hami.io/..., example.com/...).
        return f"resource:d{copy_number}.{rest}"
    return identifier


def _placement_copy(placement: dict[str, Any], copy_number: int, key: str) -> dict[str, Any]:
    data = copy.deepcopy(placement)
    data["key"] = key
    if copy_number:
        for field in CONTRACT_FIELDS:
            if field in data:
                data[field] = [_renamed(value, copy_number) for value in data[field]]
    return data


def scaled_projects(
    rows: int = 2000, projects: int = 500, *, base: Iterable[dict[str, Any]] | None = None
) -> list[dict[str, Any]]:
    """About `projects` projects holding exactly `rows` placement rows, copy 0 being the base."""
    base = list(base if base is not None else builtin_projects())
    base_rows = sum(len(p["placements"]) for p in base)
    copies = max(1, round(projects / len(base)))
    editions = max(1, math.ceil(rows / (base_rows * copies)))
    out: list[dict[str, Any]] = []
    remaining = rows
    for copy_number in range(copies):
        for project in base:
            if remaining <= 0:
                return out
            data = copy.deepcopy({k: v for k, v in project.items() if k != "placements"})
            if copy_number:
                data["slug"] = f"{project['slug']}-d{copy_number}"
                data["name"] = f"{project['name']} (distribution {copy_number})"
            placements = []
            for edition in range(1, editions + 1):
                for placement in project["placements"]:
                    if remaining <= 0:
                        break
                    key = placement["key"] if edition == 1 else f"{placement['key']}-e{edition}"
                    placements.append(_placement_copy(placement, copy_number, key))
                    remaining -= 1
            data["placements"] = placements
            out.append(data)
    return out


def unplaced_projects(count: int) -> list[dict[str, Any]]:
    """`count` projects without placement rows, shaped like landscape entries."""
    areas = ("observability", "storage", "networking", "security", "ci-cd", "database", "ml")
    return [
        {
            "slug": f"unplaced-{i:05d}",
            "name": f"Unplaced project {i:05d}",
            "vendor": f"Vendor {i % 997}",
            "homepage": f"https://example.org/p/{i}",
            "description": (
                f"A cloud-native {areas[i % len(areas)]} project, listed but not placed: "
                "it does not share or govern GPUs."
            ),
            "tags": [areas[i % len(areas)], "unplaced"],
            "placements": [],
        }
        for i in range(count)
    ]


def bundle(projects: list[dict[str, Any]], *, source: str = "bench/scale") -> dict[str, Any]:
    return {"format": "ecomap.bundle/v1", "source": source, "projects": projects}
