"""The three-layer map as a Plotly figure: one builder for the page, the embed and the reports."""

from __future__ import annotations

import hashlib
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import plotly.graph_objects as go
import plotly.io as pio
from django.core.cache import cache
from django.utils import translation

from catalog.engine.compatibility import (
    COMPOSES_BIT,
    CONTAINS_BIT,
    MatrixTooLarge,
    compute_matrix,
)
from catalog.engine.map_focus import focus_rows, pool_of, pools_of
from catalog.engine.map_layout import (
    CONTRACT_MAX_PAIRS,
    Contracts,
    catalog_contracts,
    layout_map,
)
from catalog.engine.rows import Row
from catalog.map.draw import (
    LABELS_UP_TO,
    WEBGL_ABOVE,
    MapCatalog,
    MapView,
    RowDetail,
    _figure,
    _names,
    _title,
)
from catalog.map.table import TABLE_ROWS_UP_TO, map_table
from catalog.models import EnforcementPoint, Function, Layer, PlacementRow, Project, ResourceUnit
from catalog.selectors import catalog_revision_for_pages, engine_rows

# Every catalog write bumps the revision in the cache key; the timeout only bounds how long an
# admin's rename of a vocabulary term (which is not a catalog change) can take to show.
CACHE_SECONDS = 10 * 60
# Edges drawn per kind; past this a map is a hairball and the JSON outgrows the page budget.
MAX_EDGES = 1500
# A WebGL-sized map is unreadable past a few hundred lines of each kind, and each costs bytes.
MAX_EDGES_WEBGL = 500


@dataclass(frozen=True)
class MapFilters:
    """What the map shows: rows matching every given criterion (empty means any)."""

    tag: str = ""
    unit: str = ""
    point: str = ""
    text: str = ""
    composes_with: str = ""  # a project slug or a `project/key` row id
    # Focus views, laid out on their own rows only: one layer, a project's neighbourhood (its
    # rows and every row one contract away), or named rows (an evaluation's candidates, a
    # decision's stack) with their node pools as (name, row ids) pairs.
    layer: str = ""
    near: str = ""  # a project slug: its neighbourhood
    rows: tuple[str, ...] = ()
    pools: tuple[tuple[str, tuple[str, ...]], ...] = ()
    # The page draws conflicts only when asked (`?conflicts=1`); reports always do.
    conflicts: bool = True

    @classmethod
    def from_query(cls, query: Mapping[str, str]) -> MapFilters:
        pools = []
        for value in query.getlist("pool") if hasattr(query, "getlist") else ():
            name, _, members = value.partition(":")
            if name.strip() and members.strip():
                pools.append((name.strip()[:60], _id_list(members)))
        return cls(
            tag=(query.get("tag") or "").strip(),
            unit=(query.get("unit") or "").strip(),
            point=(query.get("point") or "").strip(),
            text=(query.get("q") or "").strip()[:200],
            composes_with=(query.get("with") or "").strip(),
            layer=(query.get("layer") or "").strip(),
            near=(query.get("near") or "").strip(),
            rows=tuple(
                dict.fromkeys(
                    _id_list(query.get("rows") or "") + tuple(i for _, m in pools for i in m)
                )
            ),
            pools=tuple(pools),
            conflicts=(query.get("conflicts") or "") in ("1", "on", "true"),
        )

    @property
    def active(self) -> bool:
        return any((self.tag, self.unit, self.point, self.text, self.composes_with)) or self.focused

    @property
    def focused(self) -> bool:
        """A focus view: drawn on its own rows, row by row, rather than the whole catalog."""
        return bool(self.layer or self.near or self.rows)


def _id_list(value: str) -> tuple[str, ...]:
    # Bounded: a URL names a stack, not the catalog.
    return tuple(dict.fromkeys(part.strip() for part in value.split(",") if part.strip()))[:200]


def stack_from_query(value: str) -> tuple[str, ...]:
    """`?stack=hami/device-plugin,volcano` as ids; a bare slug stands for all its project's rows."""
    return tuple(dict.fromkeys(part.strip() for part in value.split(",") if part.strip()))


def map_catalog(*, rows: Sequence[Row] | None = None) -> MapCatalog:
    """The catalog's rows (or the given ones) with card details and vocabulary names: 9 queries."""
    given = rows is not None
    rows = tuple(engine_rows() if rows is None else rows)
    details: dict[str, RowDetail] = {}
    project_tags: dict[str, list[tuple[str, str]]] = defaultdict(list)
    tags_of, details_of = Project.tags.through.objects.all(), PlacementRow.objects.all()
    if given:
        # Only the given rows' details (a report's candidates, a focus of a big catalog), not
        # every row's texts (issue 41 H1).
        slugs = {row.project for row in rows}
        tags_of = tags_of.filter(project__slug__in=slugs)
        details_of = details_of.filter(project__slug__in=slugs)
    for slug, tag_slug, tag_name in tags_of.values_list("project__slug", "tag__slug", "tag__name"):
        project_tags[slug].append((tag_slug, tag_name))
    for slug, key, component, promise, non_promise, name in details_of.values_list(
        "project__slug", "key", "component", "promise", "non_promise", "project__name"
    ):
        details[f"{slug}/{key}"] = RowDetail(
            component, promise, non_promise, name, tuple(t for t, _ in project_tags[slug])
        )
    tags = {tag: name for pairs in project_tags.values() for tag, name in pairs}
    return MapCatalog(
        rows=rows,
        details=details,
        layers={term.key: term.name for term in Layer.objects.all()},
        units={term.key: term.name for term in ResourceUnit.objects.all()},
        points={term.key: term.name for term in EnforcementPoint.objects.all()},
        functions={term.key: term.name for term in Function.objects.all()},
        tags=dict(sorted(tags.items(), key=lambda item: item[1].lower())),
    )


def _matches(row: Row, detail: RowDetail, filters: MapFilters) -> bool:
    if filters.tag and filters.tag not in detail.tags:
        return False
    if filters.unit and filters.unit not in row.resource_units:
        return False
    if filters.point and filters.point not in row.enforcement_points:
        return False
    if filters.text:
        haystack = " ".join(
            (row.id, row.name, detail.project_name, detail.component, detail.promise)
            + (detail.non_promise,)
            + detail.tags
        ).lower()
        return filters.text.lower() in haystack
    return True


def _selected(rows: Sequence[Row], wanted: str) -> set[int]:
    return {i for i, row in enumerate(rows) if wanted in (row.id, row.project)}


def _visible(catalog: MapCatalog, filters: MapFilters) -> list[Row]:
    rows = catalog.rows
    keep = [_matches(row, catalog.details.get(row.id, RowDetail()), filters) for row in rows]
    if filters.layer:
        keep = [kept and row.layer == filters.layer for row, kept in zip(rows, keep, strict=True)]
    if filters.rows:
        named = set(focus_rows(rows, filters.rows))
        keep = [kept and row.id in named for row, kept in zip(rows, keep, strict=True)]
    # A project's neighbourhood is what composes with it, the project included.
    for anchor, bits in (
        (filters.composes_with, COMPOSES_BIT),
        # A row's neighbourhood also holds what ships it or what it ships (issue 43).
        (filters.near, COMPOSES_BIT | CONTAINS_BIT),
    ):
        if not anchor:
            continue
        anchors = _selected(rows, anchor)
        partners = set(anchors)
        if anchors:
            marked = np.zeros(len(rows), dtype=bool)
            marked[list(anchors)] = True
            try:
                matrix = compute_matrix(rows, max_pairs=CONTRACT_MAX_PAIRS)
            except MatrixTooLarge:
                matrix = None  # too large to relate here: the anchors alone are shown
            # The stored (sparse) pairs: a pair not stored is independent, so it never composes.
            for i, j, flags in matrix.stored_chunks() if matrix is not None else ():
                hit = (flags & bits) != 0
                partners.update(j[hit & marked[i]].tolist())
                partners.update(i[hit & marked[j]].tolist())
        keep = [kept and i in partners for i, kept in enumerate(keep)]
    return [row for row, kept in zip(rows, keep, strict=True) if kept]


def build_map(
    catalog: MapCatalog,
    *,
    highlight: Sequence[str] = (),
    filters: MapFilters = MapFilters(),  # noqa: B008 (frozen, so a shared default is safe)
    static: bool = False,
    aggregate: bool = False,
) -> MapView:
    """Lay out and draw the catalog; `static` keeps every trace SVG for image export.

    `aggregate` draws one edge per pair of projects with its count and no ties between a
    project's rows (its label names it): the page's whole-catalog view. A focus view is laid
    out on its own rows and drawn row by row.
    """
    shown = _visible(catalog, filters)
    max_edges = MAX_EDGES if static or len(shown) <= WEBGL_ABOVE else MAX_EDGES_WEBGL
    contracts = catalog_contracts(shown, limit=max_edges) if shown else Contracts((), ())
    placed = shown if filters.focused else catalog.rows
    layout = layout_map(
        placed,
        contracts=contracts,
        unit_order=tuple(catalog.units),
        point_order=tuple(catalog.points),
        max_edges=max_edges,
        visible=[row.id for row in shown],
        # Labelled maps need wide columns; unlabelled ones fill the width with more columns.
        aspect=0.8 if len(placed) <= LABELS_UP_TO else 1.6,
        bundle=aggregate,
        conflicts=filters.conflicts,
        project_ties=not aggregate,
    )
    highlighted = frozenset(
        row.id for row in shown if row.id in highlight or row.project in highlight
    )
    pools = pool_of(dict(filters.pools), shown)
    figure = _figure(catalog, layout, shown, highlighted, static=static, pools=pools)
    return MapView(
        figure,
        layout,
        tuple(shown),
        catalog,
        highlighted,
        contracts,
        pools,
        filters.conflicts,
        row_pools=pools_of(dict(filters.pools), shown),
    )


def map_figure(
    *,
    rows: Sequence[Row] | MapCatalog | None = None,
    highlight: Sequence[str] = (),
    filters: MapFilters = MapFilters(),  # noqa: B008 (frozen, so a shared default is safe)
    language: str | None = None,
    static: bool = False,
) -> go.Figure:
    """The map as a Plotly figure, labelled in `language` (default: the active one)."""
    with translation.override(language or translation.get_language()):
        catalog = rows if isinstance(rows, MapCatalog) else map_catalog(rows=rows)
        view = build_map(catalog, highlight=highlight, filters=filters, static=static)
        return go.Figure(view.figure)


def map_svg(
    *,
    rows: Sequence[Row] | MapCatalog | None = None,
    highlight: Sequence[str] = (),
    filters: MapFilters = MapFilters(),  # noqa: B008 (frozen, so a shared default is safe)
    language: str | None = None,
    width: int = 1200,
    height: int = 760,
) -> str:
    """The same figure as a standalone SVG document (kaleido, system Chromium)."""
    return map_image(
        rows=rows, highlight=highlight, filters=filters, language=language, width=width,
        height=height, format="svg",
    ).decode()  # fmt: skip


def map_image(
    *,
    rows: Sequence[Row] | MapCatalog | None = None,
    highlight: Sequence[str] = (),
    filters: MapFilters = MapFilters(),  # noqa: B008 (frozen, so a shared default is safe)
    language: str | None = None,
    width: int = 1200,
    height: int = 760,
    format: str = "svg",  # noqa: A002 (plotly's name)
    scale: float = 1,
) -> bytes:
    """The figure drawn by kaleido (system Chromium) as svg, png or jpeg bytes."""
    figure = map_figure(
        rows=rows, highlight=highlight, filters=filters, language=language, static=True
    )
    return pio.to_image(figure, format=format, width=width, height=height, scale=scale)


def map_view(
    *,
    highlight: Sequence[str] = (),
    filters: MapFilters = MapFilters(),  # noqa: B008 (frozen, so a shared default is safe)
    catalog: MapCatalog | None = None,
) -> MapView:
    """The map as the page draws it: the whole catalog aggregated, a focus row by row."""
    catalog = catalog if catalog is not None else map_catalog()
    return build_map(catalog, highlight=highlight, filters=filters, aggregate=not filters.focused)


def map_payload(
    *,
    highlight: Sequence[str] = (),
    filters: MapFilters = MapFilters(),  # noqa: B008 (frozen, so a shared default is safe)
    catalog: MapCatalog | None = None,
    view: MapView | None = None,
) -> dict[str, Any]:
    """The page's JSON: the figure, and per shown node what its hover card and panel show."""
    if view is None:
        view = map_view(highlight=highlight, filters=filters, catalog=catalog)
    catalog = view.catalog
    details = [catalog.details.get(row.id, RowDetail()) for row in view.shown]
    return {
        "figure": view.figure,
        "nodes": {
            "id": [row.id for row in view.shown],
            "project": [row.project for row in view.shown],
            "name": [
                detail.project_name or row.project
                for row, detail in zip(view.shown, details, strict=True)
            ],
            "title": [_title(row, detail) for row, detail in zip(view.shown, details, strict=True)],
            "layer": [catalog.layers.get(row.layer, row.layer) for row in view.shown],
            "layer_key": [row.layer for row in view.shown],
            "units": [_names(row.resource_units, catalog.units) for row in view.shown],
            "points": [_names(row.enforcement_points, catalog.points) for row in view.shown],
            "functions": [_names(row.functions, catalog.functions) for row in view.shown],
            "promise": [detail.promise for detail in details],
            "non_promise": [detail.non_promise for detail in details],
            "pool": [view.pools.get(row.id, "") for row in view.shown],
        },
        "shown": len(view.shown),
        "total": len(catalog.rows),
        "hidden_edges": view.layout.hidden_edges,
        "highlighted": len(view.highlighted),
        "aggregated": not filters.focused,
        "conflicts": filters.conflicts,
    }


def map_page_key(
    *,
    highlight: Sequence[str] = (),
    filters: MapFilters = MapFilters(),  # noqa: B008 (frozen, so a shared default is safe)
) -> str:
    """Where the map page's data for this query is cached: per catalog revision, language and
    query (the page's drawn body is cached under it too)."""
    language = translation.get_language() or ""
    # A stable digest, unlike hash(), so every worker shares the entry.
    query = hashlib.blake2b(repr((tuple(highlight), filters)).encode(), digest_size=12)
    return f"map:page:v2:{catalog_revision_for_pages()}:{language}:{query.hexdigest()}"


def map_page_data(
    *,
    highlight: Sequence[str] = (),
    filters: MapFilters = MapFilters(),  # noqa: B008 (frozen, so a shared default is safe)
) -> dict[str, Any]:
    """The payload, the table and the filter choices, cached per catalog revision, language
    and query."""
    key = map_page_key(highlight=highlight, filters=filters)
    data = cache.get(key)
    if data is None:
        catalog = map_catalog()
        view = map_view(highlight=highlight, filters=filters, catalog=catalog)
        table = map_table(view)
        data = {
            "payload": map_payload(filters=filters, view=view),
            "table": table[:TABLE_ROWS_UP_TO],
            "table_total": len(table),
            "choices": {
                "tags": list(catalog.tags.items()),
                "units": list(catalog.units.items()),
                "points": list(catalog.points.items()),
                "layers": list(catalog.layers.items()),
                "projects": sorted(
                    {
                        (row.project, catalog.details[row.id].project_name)
                        for row in catalog.rows
                        if row.id in catalog.details
                    },
                    key=lambda project: project[1].lower(),
                ),
            },
        }
        cache.set(key, data, CACHE_SECONDS)
    return data
