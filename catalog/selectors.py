"""Catalog reads: vocabulary, lists with counts, cards, bundle-shaped views of rows."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from django.db.models import Count, Max, Q, QuerySet

from catalog.engine.bundle import COST_ASPECTS, Vocabulary
from catalog.models import (
    CatalogChange,
    EnforcementPoint,
    Layer,
    PlacementRow,
    Project,
    Relation,
    ResourceUnit,
    Tag,
)

REQUIRED_PLACEMENT_KEYS = ("key", "layer", "resource_units", "enforcement_points", "promise")


def vocabulary_current() -> Vocabulary:
    return Vocabulary(
        layers=tuple(Layer.objects.values_list("key", flat=True)),
        resource_units=tuple(ResourceUnit.objects.values_list("key", flat=True)),
        enforcement_points=tuple(EnforcementPoint.objects.values_list("key", flat=True)),
    )


def catalog_revision() -> int:
    """The id of the latest catalog change: bumps with every write, 0 for an empty catalog."""
    return CatalogChange.objects.aggregate(revision=Max("id"))["revision"] or 0


@dataclass(frozen=True)
class CatalogFilters:
    layer: str = ""
    unit: str = ""
    enforcement_point: str = ""
    tag: str = ""
    text: str = ""
    unplaced: bool = False


def project_list(*, filters: CatalogFilters) -> QuerySet[Project]:
    projects = Project.objects.all()
    if filters.layer:
        projects = projects.in_layer(filters.layer)
    if filters.unit:
        projects = projects.with_unit(filters.unit)
    if filters.enforcement_point:
        projects = projects.with_enforcement_point(filters.enforcement_point)
    if filters.tag:
        projects = projects.tagged(filters.tag)
    if filters.text:
        projects = projects.search(filters.text)
    if filters.unplaced:
        projects = projects.unplaced()
    return projects.with_cards().order_by("name")


def facet_counts() -> dict[str, list[dict[str, Any]]]:
    """Projects per layer, unit, enforcement point and tag, for the catalog filters."""

    def counted(model, path: str) -> list[dict[str, Any]]:
        return list(
            model.objects.annotate(
                project_count=Count(path, distinct=True),
            ).order_by(*model._meta.ordering)
        )

    return {
        "layers": counted(Layer, "placements__project"),
        "units": counted(ResourceUnit, "placements__project"),
        "enforcement_points": counted(EnforcementPoint, "placements__project"),
        "tags": list(
            Tag.objects.annotate(project_count=Count("projects", distinct=True))
            .filter(project_count__gt=0)
            .order_by("-project_count", "name")[:40]
        ),
    }


def catalog_totals() -> dict[str, int]:
    return Project.objects.aggregate(
        projects=Count("id", distinct=True),
        rows=Count("placements", distinct=True),
        unplaced=Count("id", filter=Q(placements__isnull=True), distinct=True),
    )


def project_get(*, slug: str) -> Project:
    """The project with everything its page shows; raises Project.DoesNotExist."""
    return Project.objects.with_cards().get(slug=slug)


def project_history(*, project: Project, limit: int = 50) -> QuerySet[CatalogChange]:
    return CatalogChange.objects.filter(project_slug=project.slug).select_related("actor")[:limit]


def contracts_of(row: PlacementRow) -> dict[str, list[str]]:
    """The row's interface identifiers by relation, in their stored order (uses the prefetch)."""
    by_relation: dict[str, list[str]] = {relation: [] for relation in Relation.values}
    for contract in sorted(row.contracts.all(), key=lambda c: (c.relation, c.position)):
        by_relation[contract.relation].append(contract.interface.identifier)
    return by_relation


def placement_to_bundle(row: PlacementRow, vocabulary: Vocabulary) -> dict[str, Any]:
    """A stored row in the normalised bundle form (same keys and order as normalize_placement)."""
    unit_order = {key: i for i, key in enumerate(vocabulary.resource_units)}
    point_order = {key: i for i, key in enumerate(vocabulary.enforcement_points)}
    contracts = contracts_of(row)
    return {
        "key": row.key,
        "component": row.component,
        "layer": row.layer.key,
        "resource_units": sorted(
            (unit.key for unit in row.resource_units.all()),
            key=lambda u: (unit_order.get(u, 99), u),
        ),
        "enforcement_points": sorted(
            (point.key for point in row.enforcement_points.all()),
            key=lambda p: (point_order.get(p, 99), p),
        ),
        "isolation": row.isolation(),
        "promise": row.promise,
        "non_promise": row.non_promise,
        "costs": {
            aspect: {
                "level": getattr(row, f"cost_{aspect}"),
                "note": getattr(row, f"cost_{aspect}_note"),
            }
            for aspect in COST_ASPECTS
            if getattr(row, f"cost_{aspect}")
        },
        "signals": contracts["signals"],
        "provides": contracts["provides"],
        "requires": contracts["requires"],
        "accepts": contracts["accepts"],
        "exclusive": contracts["exclusive"],
        "failure_modes": list(row.failure_modes),
        "evidence": [{"url": e["url"], "claim": e.get("claim", "")} for e in row.evidence],
        "project_version": row.project_version,
        "reviewed": row.reviewed_on.isoformat() if row.reviewed_on else "",
        "unverified": list(row.unverified),
    }


def _compact(data: dict[str, Any], keep: tuple[str, ...]) -> dict[str, Any]:
    """Drop empty optional values so an exported document validates and re-imports unchanged."""
    return {key: value for key, value in data.items() if key in keep or value not in ("", [], {})}


def project_to_bundle(project: Project, vocabulary: Vocabulary) -> dict[str, Any]:
    """A stored project (prefetched with `with_cards`) as an exportable bundle project."""
    placements = [
        _compact(placement_to_bundle(row, vocabulary), keep=REQUIRED_PLACEMENT_KEYS)
        for row in sorted(project.placements.all(), key=lambda r: r.key)
    ]
    data = {
        "slug": project.slug,
        "name": project.name,
        "vendor": project.vendor,
        "homepage": project.homepage,
        "repository": project.repository,
        "license": project.license,
        "description": project.description,
        "tags": sorted(tag.name for tag in project.tags.all()),
    }
    return {**_compact(data, keep=("slug", "name")), "placements": placements}


def bundle_export(*, projects: Iterable[Project] | None = None, source: str = "") -> dict[str, Any]:
    """The catalog (or the given projects) as one `ecomap.bundle/v1` document."""
    vocabulary = vocabulary_current()
    if projects is None:
        projects = Project.objects.with_cards().order_by("slug")
    return {
        "format": "ecomap.bundle/v1",
        "source": source,
        "projects": [project_to_bundle(project, vocabulary) for project in projects],
    }
