"""The matrix past `CATALOG_PAGE_MAX_ROWS` rows (issue 41 H1): no page or API call unpacks a
snapshot that big (at 10,000 rows the heatmap took 3.1 GB and 15 s to aggregate one). They
compute, now, the pairs of the rows a reader names (projects, a project's neighbourhood, named
rows; a layer narrows them) when those are few enough, and otherwise say how many rows there are
and how to choose them. A pair is explained from its two rows alone.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from django.conf import settings
from django.core.paginator import Page, Paginator
from django.db.models import CharField, Count, Q, QuerySet, Value
from django.db.models.functions import Concat

from catalog.engine.compatibility import MatrixResult, compute_matrix
from catalog.engine.oracle import PairResult, pair_verdicts
from catalog.engine.rows import Row
from catalog.map.large import PROJECT_CHOICES_UP_TO
from catalog.map.neighbours import neighbourhood_rows
from catalog.models import PlacementRow, Project
from catalog.selectors import engine_rows

LARGEST_PROJECTS = 12


def page_max_rows() -> int:
    return settings.CATALOG_PAGE_MAX_ROWS


def matrix_too_big(state) -> bool:
    """Whether pages must not unpack the matrix: its snapshot (or, with none, the catalog) has
    more rows than a page computes."""
    if state.snapshot is not None:
        return state.snapshot.row_count > page_max_rows()
    return PlacementRow.objects.count() > page_max_rows()


@dataclass(frozen=True)
class Choice:
    """Rows a reader chose in a big catalog: their matrix when it could be computed."""

    count: int  # rows chosen (the whole catalog when nothing is named)
    total: int  # rows in the catalog
    limit: int
    named: bool  # projects, rows or a neighbourhood were named
    result: MatrixResult | None = None


def _named_rows(names: Sequence[str]) -> Q:
    query = Q(pk__in=[])
    for name in names:
        slug, _, key = name.partition("/")
        query |= Q(project__slug=slug, key=key) if key else Q(project__slug=slug)
    return query


def chosen_rows(
    *, layers: Sequence[str] = (), projects: Sequence[str] = (), rows: Sequence[str] = (),
    near: str = "",
) -> tuple[QuerySet[PlacementRow], frozenset[int]]:  # fmt: skip
    """The rows named, in SQL, and the anchors of a neighbourhood (kept to relate the rest)."""
    chosen = PlacementRow.objects.all()
    if layers:
        chosen = chosen.filter(layer__key__in=list(layers))
    if projects:
        chosen = chosen.filter(project__slug__in=list(projects))
    if rows:
        chosen = chosen.filter(_named_rows(rows))
    anchors: frozenset[int] = frozenset()
    if near:
        found = neighbourhood_rows(anchor=near)
        chosen = chosen.filter(pk__in=found.rows)
        anchors = found.anchors
    return chosen, anchors


def matrix_of_choice(
    *, layers: Sequence[str] = (), projects: Sequence[str] = (), rows: Sequence[str] = (),
    near: str = "",
) -> Choice:  # fmt: skip
    """The pairs of the named rows computed now, when they fit `CATALOG_PAGE_MAX_ROWS`."""
    limit = page_max_rows()
    chosen, anchors = chosen_rows(layers=layers, projects=projects, rows=rows, near=near)
    count = chosen.count()
    named = bool(projects or rows or near)
    choice = Choice(count, PlacementRow.objects.count(), limit, named)
    if not named or count > limit:
        return choice
    loaded = PlacementRow.objects.filter(Q(pk__in=chosen.values("pk")) | Q(pk__in=anchors))
    return Choice(count, choice.total, limit, named, compute_matrix(engine_rows(rows=loaded)))


def largest_projects(*, layers: Sequence[str] = ()) -> list[tuple[str, str, int]]:
    """(slug, name, rows) of the projects with the most rows (in the layers, if any)."""
    rows = PlacementRow.objects.all()
    if layers:
        rows = rows.filter(layer__key__in=list(layers))
    counted = (
        rows.values("project__slug", "project__name")
        .annotate(rows=Count("pk"))
        .order_by("-rows", "project__name")[:LARGEST_PROJECTS]
    )
    return [(item["project__slug"], item["project__name"], item["rows"]) for item in counted]


def project_choices() -> list[tuple[str, str]] | None:
    """Placed projects for the filters, or None when there are too many for a list."""
    placed = Project.objects.filter(placements__isnull=False).distinct()
    if placed.count() > PROJECT_CHOICES_UP_TO:
        return None
    return sorted(placed.values_list("slug", "name"), key=lambda item: item[1].lower())


def live_pair(a: str, b: str) -> tuple[PairResult, dict[str, Row]]:
    """One pair explained from its two rows as the catalog holds them now (KeyError when a row
    is not in the catalog)."""
    found = {
        row.id: row
        for row in engine_rows(rows=PlacementRow.objects.filter(_named_rows([a, b])))
        if row.id in (a, b)
    }
    for ref in (a, b):
        if ref not in found:
            raise KeyError(f"row {ref!r} is not in the catalog")
    return pair_verdicts(found[a], found[b]), found


def express_axis_live(_rows, layer: str, text: str, page: str | None, per_page: int) -> Page:
    """A page of the row ids of one layer whose id contains `text`, from the catalog."""
    ids = (
        PlacementRow.objects.filter(layer__key=layer)
        .annotate(ref=Concat("project__slug", Value("/"), "key", output_field=CharField()))
        .filter(ref__icontains=text.strip())
        .order_by("ref")
        .values_list("ref", flat=True)
    )
    return Paginator(ids, per_page).get_page(page)


def express_rows(refs: Sequence[str]) -> list[Row]:
    """The engine rows of a page of the express table."""
    return engine_rows(rows=PlacementRow.objects.filter(_named_rows([r for r in refs if "/" in r])))
