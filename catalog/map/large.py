"""The map of a catalog past `CATALOG_PAGE_MAX_ROWS` rows (issue 41 H1): counts, or the rows a
filter selects, never the whole catalog row by row.

A catalog of up to that many rows is drawn whole, as always (`figure.map_page_data`, cached per
revision; this module does not touch it). Past it, the rows a query selects are counted in SQL
first (layer, unit, enforcement point, tag, search, named rows, a project's neighbourhood): a
selection that fits is loaded alone and drawn row by row like any focus view; a bigger one is
drawn as a bubble per layer and resource unit with its count, each a link to its rows, with the
largest projects of the selection and their neighbourhoods. The page says which it shows.
"""

from __future__ import annotations

import hashlib
from collections import defaultdict
from collections.abc import Iterator, Sequence
from typing import Any
from urllib.parse import urlencode

from django.conf import settings
from django.core.cache import cache
from django.db.models import Case, CharField, Count, IntegerField, Q, QuerySet, Value, When
from django.db.models.functions import Concat
from django.utils import translation

from catalog.map.figure import (
    CACHE_SECONDS,
    MapFilters,
    map_catalog,
    map_page_data,
    map_payload,
    map_view,
)
from catalog.map.neighbours import neighbourhood_rows
from catalog.map.overview import OverviewCell, overview_figure
from catalog.map.table import (
    CSV_HEADER,
    TABLE_ROWS_UP_TO,
    csv_line,
    map_csv_lines,
    map_table,
    safe_cell,
)
from catalog.models import EnforcementPoint, Layer, PlacementRow, Project, ResourceUnit, Tag
from catalog.selectors import catalog_revision_for_pages, engine_rows

# The neighbourhood choice is a list of projects up to this many, a text field past it.
PROJECT_CHOICES_UP_TO = 1000
# Words of a search looked up in SQL (the engine checks the whole text on the rows found).
SEARCH_WORDS = 8
# Rows read per query while a CSV of a big selection streams out.
CSV_CHUNK = 2000
# The overview lists the selection's largest projects, each a link to its neighbourhood.
LARGEST_PROJECTS = 12
LAYER_ORDER = ("platform", "control_plane", "data_plane")


def page_max_rows() -> int:
    return settings.CATALOG_PAGE_MAX_ROWS


def filters_query(filters: MapFilters, **changes: str) -> str:
    """`filters` as the map's query string, with `changes` (query names) put in or taken out."""
    params: dict[str, Any] = {
        "layer": filters.layer,
        "unit": filters.unit,
        "point": filters.point,
        "tag": filters.tag,
        "q": filters.text,
        "near": filters.near,
        "with": filters.composes_with,
        "rows": ",".join(filters.rows) if filters.rows and not filters.pools else "",
        "pool": [f"{name}:{','.join(members)}" for name, members in filters.pools],
        "conflicts": "1" if filters.conflicts else "",
    }
    params.update(changes)
    return urlencode([(k, v) for k, v in params.items() if v], doseq=True)


def _text_matching(rows: QuerySet[PlacementRow], text: str) -> QuerySet[PlacementRow]:
    """The map's search in SQL, as a superset the engine narrows: the map looks for `text` in
    the row's id, name, component, promises and project tags joined by spaces, so each of its
    words is in one of them."""
    space = Value(" ")
    haystack = Concat(
        "project__slug", Value("/"), "key", space, "project__name", space, "key", space,
        "project__name", space, "component", space, "promise", space, "non_promise",
        output_field=CharField(),
    )  # fmt: skip
    rows = rows.annotate(map_haystack=haystack)
    for word in text.split()[:SEARCH_WORDS]:
        tagged = Project.tags.through.objects.filter(tag__slug__icontains=word)
        rows = rows.filter(
            Q(map_haystack__icontains=word) | Q(project_id__in=tagged.values("project_id"))
        )
    return rows


def _named(rows: Sequence[str]) -> Q:
    query = Q(pk__in=[])
    for name in rows:
        slug, _, key = name.partition("/")
        query |= Q(project__slug=slug, key=key) if key else Q(project__slug=slug)
    return query


def scope_rows(filters: MapFilters) -> tuple[QuerySet[PlacementRow], frozenset[int]]:
    """The rows `filters` select, in SQL (a superset the engine narrows once they are loaded),
    and the anchors of a neighbourhood, which the engine needs to relate the others to."""
    rows = PlacementRow.objects.all()
    if filters.layer:
        rows = rows.filter(layer__key=filters.layer)
    if filters.unit:
        units = PlacementRow.resource_units.through.objects.filter(resourceunit__key=filters.unit)
        rows = rows.filter(pk__in=units.values("placementrow_id"))
    if filters.point:
        points = PlacementRow.enforcement_points.through.objects.filter(
            enforcementpoint__key=filters.point
        )
        rows = rows.filter(pk__in=points.values("placementrow_id"))
    if filters.tag:
        tagged = Project.tags.through.objects.filter(tag__slug=filters.tag).values("project_id")
        rows = rows.filter(project_id__in=tagged)
    if filters.text:
        rows = _text_matching(rows, filters.text)
    if filters.rows:
        rows = rows.filter(_named(filters.rows))
    anchors: frozenset[int] = frozenset()
    for anchor in (filters.near, filters.composes_with):
        if anchor:
            near = neighbourhood_rows(anchor=anchor)
            rows = rows.filter(pk__in=near.rows)
            anchors |= near.anchors
    return rows, anchors


def _choices() -> dict[str, Any]:
    placed = Project.objects.filter(placements__isnull=False).distinct()
    projects = None
    if placed.count() <= PROJECT_CHOICES_UP_TO:
        projects = sorted(placed.values_list("slug", "name"), key=lambda item: item[1].lower())
    tags = Tag.objects.filter(projects__in=placed.values("id")).distinct()
    return {
        "tags": sorted(tags.values_list("slug", "name"), key=lambda item: item[1].lower()),
        "units": [(term.key, term.name) for term in ResourceUnit.objects.all()],
        "points": [(term.key, term.name) for term in EnforcementPoint.objects.all()],
        "layers": [(term.key, term.name) for term in Layer.objects.all()],
        "projects": projects,
    }


def _overview(
    rows: QuerySet[PlacementRow], filters: MapFilters, choices: dict[str, Any], limit: int
) -> dict[str, Any]:
    """Counts per (layer, resource unit) and the largest projects of the selection."""
    through = PlacementRow.resource_units.through.objects.filter(
        placementrow_id__in=rows.values("pk")
    )
    counted = through.values("placementrow__layer__key", "resourceunit__key").annotate(
        rows=Count("placementrow_id"),
        projects=Count("placementrow__project_id", distinct=True),
    )
    cells = [
        OverviewCell(
            layer=item["placementrow__layer__key"],
            unit=item["resourceunit__key"],
            rows=item["rows"],
            projects=item["projects"],
            query=filters_query(
                filters, layer=item["placementrow__layer__key"], unit=item["resourceunit__key"]
            ),
        )
        for item in counted
    ]
    layers, units = dict(choices["layers"]), dict(choices["units"])
    unit_order = {key: i for i, key in enumerate(units)}
    cells.sort(key=lambda c: (LAYER_ORDER.index(c.layer), unit_order.get(c.unit, 99), c.unit))
    largest = (
        rows.values("project__slug", "project__name")
        .annotate(rows=Count("pk"))
        .order_by("-rows", "project__name")[:LARGEST_PROJECTS]
    )
    return {
        "figure": overview_figure(cells, layers=layers, units=units, limit=limit),
        "table": [
            {
                "layer": layer,
                "name": layers.get(layer, layer),
                "cells": [
                    next((c for c in cells if c.layer == layer and c.unit == unit), None)
                    for unit in units
                ],
            }
            for layer in LAYER_ORDER
        ],
        "units": list(units.items()),
        "projects": [
            {
                "slug": item["project__slug"],
                "name": item["project__name"],
                "rows": item["rows"],
                "query": filters_query(filters, near=item["project__slug"]),
            }
            for item in largest
        ],
    }


def _focused_view(rows: QuerySet[PlacementRow], anchors: frozenset[int], **kwargs: Any):
    """The selected rows alone, drawn row by row; anchors outside the selection (a
    neighbourhood in another layer) are loaded to relate the rest to them."""
    loaded = PlacementRow.objects.filter(Q(pk__in=rows.values("pk")) | Q(pk__in=anchors))
    return map_view(catalog=map_catalog(rows=engine_rows(rows=loaded)), **kwargs)


def _large_page(
    *, highlight: Sequence[str], filters: MapFilters, total: int, limit: int
) -> dict[str, Any]:
    rows, anchors = scope_rows(filters)
    count = rows.count()
    choices = _choices()
    large = {"total": total, "count": count, "limit": limit, "overview": count > limit}
    if count > limit:
        overview = _overview(rows, filters, choices, limit)
        payload = {
            "figure": overview["figure"],
            "large": True,
            "overview": True,
            "shown": 0,
            "counted": count,
            "total": total,
            "hidden_edges": 0,
            "highlighted": 0,
            "aggregated": True,
            "conflicts": filters.conflicts,
        }
        return {
            "payload": payload,
            "table": [],
            "table_total": count,
            "choices": choices,
            "large": large,
            "overview": overview,
        }
    view = _focused_view(rows, anchors, highlight=highlight, filters=filters)
    table = map_table(view)
    payload = {**map_payload(filters=filters, view=view), "total": total, "large": True}
    return {
        "payload": payload,
        "table": table[:TABLE_ROWS_UP_TO],
        "table_total": len(table),
        "choices": choices,
        "large": large,
    }


def map_page(
    *,
    highlight: Sequence[str] = (),
    filters: MapFilters = MapFilters(),  # noqa: B008 (frozen, so a shared default is safe)
) -> dict[str, Any]:
    """What the map page, its embed, data and table show: the drawn catalog up to
    `CATALOG_PAGE_MAX_ROWS` rows, else the selection counted or, when it fits, drawn alone."""
    total, limit = PlacementRow.objects.count(), page_max_rows()
    if total <= limit:
        return {**map_page_data(highlight=highlight, filters=filters), "large": None}
    language = translation.get_language() or ""
    query = hashlib.blake2b(repr((tuple(highlight), filters, limit)).encode(), digest_size=12)
    key = f"map:large:v1:{catalog_revision_for_pages()}:{language}:{query.hexdigest()}"
    data = cache.get(key)
    if data is None:
        data = _large_page(highlight=highlight, filters=filters, total=total, limit=limit)
        cache.set(key, data, CACHE_SECONDS)
    return data


def map_cache_warm() -> None:
    """Draw the unfiltered map in every language ahead of the first reader (the matrix job calls
    this after each catalog change), or count it when the catalog is too big to draw whole."""
    for language, _name in settings.LANGUAGES:
        with translation.override(language):
            map_page(filters=MapFilters.from_query({}))


def _listed_rows(rows: QuerySet[PlacementRow]) -> Iterator[str]:
    """CSV lines of `rows` without their contracts (which need the engine), a chunk of rows at
    a time, in the table's order: layer, project name, row."""
    layer_rank = Case(
        *[When(layer__key=key, then=Value(i)) for i, key in enumerate(LAYER_ORDER)],
        default=Value(9),
        output_field=IntegerField(),
    )
    ordered = rows.annotate(layer_rank=layer_rank).order_by(
        "layer_rank", "project__name", "project__slug", "key"
    )
    fields = ("pk", "project__slug", "key", "project__name", "component", "layer__key")
    unit_names = {term.key: term.name for term in ResourceUnit.objects.all()}
    chunk: list[tuple] = []
    for values in ordered.values_list(*fields).iterator(chunk_size=CSV_CHUNK):
        chunk.append(values)
        if len(chunk) == CSV_CHUNK:
            yield from _chunk_lines(chunk, unit_names)
            chunk = []
    yield from _chunk_lines(chunk, unit_names)


def _chunk_lines(chunk: list[tuple], unit_names: dict[str, str]) -> Iterator[str]:
    units: dict[int, list[str]] = defaultdict(list)
    for row_id, key in PlacementRow.resource_units.through.objects.filter(
        placementrow_id__in=[values[0] for values in chunk]
    ).values_list("placementrow_id", "resourceunit__key"):
        units[row_id].append(key)
    order = {key: i for i, key in enumerate(unit_names)}
    for pk, slug, key, project_name, component, layer in chunk:
        named = sorted(units[pk], key=lambda unit: (order.get(unit, 99), unit))
        head = [
            f"{slug}/{key}", project_name or slug, component or f"{project_name} {key}", layer,
            ", ".join(unit_names.get(unit, unit) for unit in named), "",
        ]  # fmt: skip
        yield csv_line([*(safe_cell(value) for value in head), "", "", "", ""])


def map_csv_stream(*, filters: MapFilters) -> Iterator[str]:
    """The CSV download of a query, line by line: the figure's rows and contracts as the page
    draws them; past `CATALOG_PAGE_MAX_ROWS` selected rows, every selected row without its
    contracts, read a chunk at a time."""
    total, limit = PlacementRow.objects.count(), page_max_rows()
    if total <= limit:
        yield from map_csv_lines(map_view(filters=filters, catalog=map_catalog()))
        return
    rows, anchors = scope_rows(filters)
    if rows.count() <= limit:
        yield from map_csv_lines(_focused_view(rows, anchors, filters=filters))
        return
    yield csv_line(CSV_HEADER)
    yield from _listed_rows(rows)
