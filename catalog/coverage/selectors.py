"""Catalog coverage: rows per layer and unit, unsourced rows, review and verification dates."""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass, field
from datetime import date, timedelta

from django.db.models import Count, F, Q, QuerySet
from django.utils import timezone

from catalog.models import Layer, PlacementRow, ResourceUnit

# A row not re-read against upstream for this long is flagged: GPU projects move fast.
STALE_AFTER = timedelta(days=365)


@dataclass
class ProjectReview:
    slug: str
    name: str
    rows: int
    layers: list[str]
    version: str
    reviewed: date | None
    unverified: int


@dataclass
class RowVerification:
    ref: str
    project: str
    layer: str
    version: str
    verified_at: date | None

    def stale(self, today: date) -> bool:
        return self.verified_at is None or today - self.verified_at > STALE_AFTER


@dataclass
class Coverage:
    layers: list[tuple[str, str]]  # (key, name)
    units: list[tuple[str, str]]
    rows_by_layer_unit: dict[tuple[str, str], int] = field(default_factory=dict)
    projects_by_layer: dict[str, int] = field(default_factory=dict)
    rows_by_layer: dict[str, int] = field(default_factory=dict)
    unsourced: list[str] = field(default_factory=list)
    projects: list[ProjectReview] = field(default_factory=list)
    rows: list[RowVerification] = field(default_factory=list)  # least recently verified first
    total_rows: int = 0
    total_projects: int = 0
    unverified_claims: int = 0
    unsourced_count: int = 0  # the page lists the first UNSOURCED_LISTED of them

    def stale_rows(self, today: date | None = None) -> list[RowVerification]:
        today = today or timezone.localdate()
        return [row for row in self.rows if row.stale(today)]

    def unit_totals(self) -> dict[str, int]:
        totals: Counter[str] = Counter()
        for (_layer, unit), count in self.rows_by_layer_unit.items():
            totals[unit] += count
        return dict(totals)


def catalog_coverage() -> Coverage:
    """Everything the coverage page and docs/catalog.md show, in four queries."""
    coverage = Coverage(
        layers=[(layer.key, layer.name) for layer in Layer.objects.all()],
        units=[(unit.key, unit.name) for unit in ResourceUnit.objects.all()],
    )
    rows = list(
        PlacementRow.objects.values_list(
            "id", "project__slug", "project__name", "key", "layer__key", "evidence",
            "unverified", "project_version", "reviewed_on", "verified_at",
        ).order_by("project__slug", "key")
    )  # fmt: skip
    units: dict[int, list[str]] = defaultdict(list)
    for row_id, unit in PlacementRow.resource_units.through.objects.values_list(
        "placementrow_id", "resourceunit__key"
    ):
        units[row_id].append(unit)
    projects_in_layer: dict[str, set[str]] = defaultdict(set)
    per_project: dict[str, ProjectReview] = {}
    for row_id, slug, name, key, layer, evidence, unverified, version, reviewed, verified in rows:
        coverage.total_rows += 1
        coverage.rows.append(RowVerification(f"{slug}/{key}", name, layer, version, verified))
        coverage.rows_by_layer[layer] = coverage.rows_by_layer.get(layer, 0) + 1
        projects_in_layer[layer].add(slug)
        for unit in units[row_id]:
            cell = (layer, unit)
            coverage.rows_by_layer_unit[cell] = coverage.rows_by_layer_unit.get(cell, 0) + 1
        if not evidence:
            coverage.unsourced.append(f"{slug}/{key}")
        coverage.unverified_claims += len(unverified)
        review = per_project.setdefault(
            slug, ProjectReview(slug, name, 0, [], version, reviewed, 0)
        )
        review.rows += 1
        if layer not in review.layers:
            review.layers.append(layer)
        review.unverified += len(unverified)
        if reviewed and (review.reviewed is None or reviewed < review.reviewed):
            review.reviewed = reviewed  # the oldest review is the one to redo first
    coverage.projects_by_layer = {layer: len(slugs) for layer, slugs in projects_in_layer.items()}
    coverage.projects = sorted(per_project.values(), key=lambda p: (p.reviewed or date.min, p.slug))
    coverage.total_projects = len(per_project)
    coverage.rows.sort(key=lambda row: (row.verified_at or date.min, row.ref))
    return coverage


# The coverage page lists this many rows without evidence; the rest are counted.
UNSOURCED_LISTED = 100
# Rows read at a time by the page's one pass over the catalog.
PASS_CHUNK = 2000


def coverage_summary() -> Coverage:
    """What the coverage page shows above its table of rows, with the counts from SQL and one
    pass over slim row tuples for the projects (issue 41 H1: every row with its evidence and
    a line object per row were held at once, 476 MB at 30,000 rows). `rows` stays empty: the
    page reads its rows a page at a time (`rows_least_recently_verified`)."""
    coverage = Coverage(
        layers=[(layer.key, layer.name) for layer in Layer.objects.all()],
        units=[(unit.key, unit.name) for unit in ResourceUnit.objects.all()],
    )
    through = PlacementRow.resource_units.through.objects
    for layer, unit, count in through.values_list(
        "placementrow__layer__key", "resourceunit__key"
    ).annotate(count=Count("placementrow_id")):
        coverage.rows_by_layer_unit[(layer, unit)] = count
    for layer, rows, projects in PlacementRow.objects.values_list("layer__key").annotate(
        rows=Count("pk"), projects=Count("project_id", distinct=True)
    ):
        coverage.rows_by_layer[layer] = rows
        coverage.projects_by_layer[layer] = projects
    unsourced = PlacementRow.objects.filter(Q(evidence=[]) | Q(evidence__isnull=True))
    coverage.unsourced_count = unsourced.count()
    coverage.unsourced = [
        f"{slug}/{key}"
        for slug, key in unsourced.order_by("project__slug", "key").values_list(
            "project__slug", "key"
        )[:UNSOURCED_LISTED]
    ]
    per_project: dict[str, ProjectReview] = {}
    rows = PlacementRow.objects.order_by("project__slug", "key").values_list(
        "project__slug", "project__name", "layer__key", "unverified", "project_version",
        "reviewed_on",
    )  # fmt: skip
    for slug, name, layer, unverified, version, reviewed in rows.iterator(PASS_CHUNK):
        coverage.total_rows += 1
        coverage.unverified_claims += len(unverified)
        review = per_project.setdefault(
            slug, ProjectReview(slug, name, 0, [], version, reviewed, 0)
        )
        review.rows += 1
        if layer not in review.layers:
            review.layers.append(layer)
        review.unverified += len(unverified)
        if reviewed and (review.reviewed is None or reviewed < review.reviewed):
            review.reviewed = reviewed
    coverage.projects = sorted(per_project.values(), key=lambda p: (p.reviewed or date.min, p.slug))
    coverage.total_projects = len(per_project)
    return coverage


def rows_least_recently_verified() -> QuerySet[PlacementRow]:
    """The rows as the page's verification table orders them (never verified first), to be
    read a page at a time."""
    return PlacementRow.objects.order_by(
        F("verified_at").asc(nulls_first=True), "project__slug", "key"
    ).values_list("project__slug", "key", "project__name", "layer__key", "project_version",
                  "verified_at")  # fmt: skip


def stale_row_count(today: date | None = None) -> int:
    today = today or timezone.localdate()
    return PlacementRow.objects.filter(
        Q(verified_at__isnull=True) | Q(verified_at__lt=today - STALE_AFTER)
    ).count()


def row_verifications(values: list[tuple]) -> list[RowVerification]:
    return [
        RowVerification(f"{slug}/{key}", name, layer, version, verified)
        for slug, key, name, layer, version, verified in values
    ]
