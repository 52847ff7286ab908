"""Matrix pages: the heatmap, one pair explained, and the data plane × control plane table."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.core.paginator import Paginator
from django.http import Http404, HttpResponseBadRequest, JsonResponse
from django.shortcuts import render
from django.utils.translation import gettext as _

from catalog.engine.express import expressibility
from catalog.engine.oracle import VERDICTS
from catalog.map.figure import MapFilters
from catalog.matrix.blocks import Selection, blocks
from catalog.matrix.chosen import (
    express_axis_live,
    express_rows,
    largest_projects,
    live_pair,
    matrix_of_choice,
    matrix_too_big,
    project_choices,
)
from catalog.matrix.figure import (
    VERDICT_COLOURS,
    cell_table,
    heatmap_payload,
    project_names,
    verdict_labels,
)
from catalog.matrix.selectors import localized_reasons, matrix_state, snapshot_result
from catalog.matrix.services import matrix_refresh_if_missing
from catalog.models import Layer


def _page_number(value: str | None) -> int:
    try:
        return max(1, int(value or 1))
    except ValueError:
        return 1


def _selection(request) -> Selection:
    focus = MapFilters.from_query(request.GET)  # the map's focus views: rows, pools, near
    return Selection(
        layers=tuple(v for v in request.GET.getlist("layer") if v),
        # A big catalog's form names projects in one field, comma-separated.
        projects=tuple(
            p.strip() for v in request.GET.getlist("project") for p in v.split(",") if p.strip()
        ),
        verdicts=tuple(v for v in request.GET.getlist("verdict") if v in VERDICTS),
        y=request.GET.get("y", "").strip(),
        x=request.GET.get("x", "").strip(),
        y_page=_page_number(request.GET.get("y_page")),
        x_page=_page_number(request.GET.get("x_page")),
        expand=tuple(dict.fromkeys(v for v in request.GET.getlist("expand") if v))[:50],
        rows=focus.rows,
        near=focus.near,
    )


def _query(request, **changes) -> str:
    query = request.GET.copy()
    for key, value in changes.items():
        query.pop(key, None)
        if value:
            query[key] = value
    return query.urlencode()


def _expand_query(request, slug: str) -> str:
    """The query with `slug` expanded to its rows, or folded back if it was."""
    query = request.GET.copy()
    expanded = [v for v in query.getlist("expand") if v]
    query.setlist(
        "expand", [v for v in expanded if v != slug] if slug in expanded else [*expanded, slug]
    )
    return query.urlencode()


def _status(state) -> dict:
    computing = state.computing
    return {
        "stale": state.stale,
        "current_revision": state.current_revision,
        "snapshot_revision": state.snapshot.catalog_revision if state.snapshot else None,
        "computing": bool(computing),
        "progress": computing.progress if computing else 100,
        "status": computing.status if computing else "ready",
    }


@login_required
def matrix_page(request):
    state = matrix_state()
    selection = _selection(request)
    context = {
        "state": state,
        "status": _status(state),
        "selection": selection,
        "layers": Layer.objects.all(),
        "verdicts": [(v, verdict_labels()[v], VERDICT_COLOURS[v]) for v in VERDICTS],
    }
    if state.snapshot is None:
        matrix_refresh_if_missing(state)
    if matrix_too_big(state):
        # Issue 41 H1: past CATALOG_PAGE_MAX_ROWS the snapshot is never unpacked here; the rows
        # the reader names are computed now, or the page says how to name them.
        choice = matrix_of_choice(
            layers=selection.layers, projects=selection.projects, rows=selection.rows,
            near=selection.near,
        )  # fmt: skip
        context.update(large=choice, projects=project_choices())
        if choice.result is None:
            context.update(largest=largest_projects(layers=selection.layers))
            return render(request, "catalog/matrix.html", context)
        result = choice.result
    elif state.snapshot is None:
        return render(request, "catalog/matrix.html", context)
    else:
        result = snapshot_result(state.snapshot)
    try:
        shown = blocks(result, selection)
    except ValueError as exc:
        return HttpResponseBadRequest(str(exc))
    labels = verdict_labels()
    names = project_names()
    payload = heatmap_payload(result, shown, names=names)
    if "projects" not in context:
        context["projects"] = sorted(
            {(row.project, names.get(row.project, row.project)) for row in result.rows},
            key=lambda item: item[1].lower(),
        )
    context.update(
        figure=payload,
        cell_table=cell_table(
            result,
            shown,
            payload,
            drill=lambda y, x: "?" + _query(request, y=y, x=x, y_page="", x_page=""),
            expand=lambda slug: "?" + _expand_query(request, slug),
        ),  # fmt: skip
        focus=MapFilters.from_query(request.GET),
        near_name=names.get(selection.near, selection.near),
        shown=shown,
        shown_cells=len(shown.y) * len(shown.x),
        drilled=bool(selection.y or selection.x),
        overview_query=_query(request, y="", x="", y_page="", x_page=""),
        pages=[
            (
                axis_name,
                page,
                pages,
                _query(request, **{f"{axis_name}_page": str(page - 1)}),
                _query(request, **{f"{axis_name}_page": str(page + 1)}),
            )
            for axis_name, page, pages in (
                ("y", selection.y_page, shown.y_pages),
                ("x", selection.x_page, shown.x_pages),
            )
            if pages > 1
        ],  # fmt: skip
        level=_level(shown),
        counts=[(v, labels[v], shown.totals[v], VERDICT_COLOURS[v]) for v in VERDICTS],
    )
    return render(request, "catalog/matrix.html", context)


def _level(shown) -> str:
    kinds = {group.kind for group in (*shown.y, *shown.x)}
    if kinds <= {"row"}:
        return _("Each cell is one pair of placement rows; click it for the explanation.")
    if "project" in kinds and "row" in kinds:
        return _(
            "Each line is a project, or a row of an expanded project. A cell counts the pairs "
            "between its two lines and is coloured by its most frequent verdict other than "
            "independent; click a project's own (diagonal) cell to expand it to its rows, any "
            "other cell to open the rows behind it."
        )
    if "function" in kinds:
        return _(
            "Too many rows to show one by one: each line is a layer × function block (a row "
            "with several functions is in several). A cell counts the pairs between two blocks "
            "and is coloured by its most frequent verdict other than independent; click it to "
            "open the rows behind it."
        )
    return _(
        "Each line is a project. A cell counts the pairs between two projects' rows and is "
        "coloured by its most frequent verdict other than independent; click a project's own "
        "(diagonal) cell to expand it to its rows, any other cell to open the rows behind it."
    )


@login_required
def matrix_status(request):
    return JsonResponse(_status(matrix_state()))


@login_required
def pair_page(request):
    state = matrix_state()
    too_big = matrix_too_big(state)
    if state.snapshot is None and not too_big:
        raise Http404("No matrix has been computed yet")
    a, b = request.GET.get("a", ""), request.GET.get("b", "")
    if a and a == b:
        return render(
            request,
            "catalog/matrix_pair_same.html",
            {"row_id": a, "state": state},
            status=400,
        )
    try:
        if too_big:  # explained from its two rows, never the whole snapshot (issue 41 H1)
            detail, rows = live_pair(a, b)
        else:
            result = snapshot_result(state.snapshot)
            detail = result.explain(a, b)
            rows = {row.id: row for row in result.rows}
    except KeyError:
        raise Http404("No such pair of placement rows in the matrix") from None
    labels = verdict_labels()
    return render(
        request,
        "catalog/matrix_pair.html",
        {
            "detail": detail,
            "a": rows[detail.a],
            "pair_rows": [rows[detail.a], rows[detail.b]],
            "b": rows[detail.b],
            "verdict_label": labels[detail.verdict],
            "holds": [(v, labels[v], VERDICT_COLOURS[v]) for v in detail.holds],
            "reasons": localized_reasons(detail),
            "state": state,
        },
    )


EXPRESS_DATA_PER_PAGE = 60
EXPRESS_CONTROLS_PER_PAGE = 30


def _express_axis(rows, layer: str, text: str, page: str | None, per_page: int):
    text = text.strip().lower()
    ids = sorted(row.id for row in rows if row.layer == layer and text in row.id.lower())
    return Paginator(ids, per_page).get_page(page)


@login_required
def express_page(request):
    """Every data-plane row against every control-plane row, a page of each at a time (a
    2,000-row catalog has ~600,000 such pairs); both axes filter by text."""
    state = matrix_state()
    context = {"state": state, "controls": [], "table": []}
    too_big = matrix_too_big(state)
    if state.snapshot is not None or too_big:
        # Past CATALOG_PAGE_MAX_ROWS, a page of each axis is read from the catalog, not every
        # row from the snapshot (issue 41 H1).
        axis = express_axis_live if too_big else _express_axis
        rows = None if too_big else snapshot_result(state.snapshot).rows
        data_page = axis(
            rows, "data_plane", request.GET.get("data", ""), request.GET.get("data_page"),
            EXPRESS_DATA_PER_PAGE,
        )  # fmt: skip
        control_page = axis(
            rows, "control_plane", request.GET.get("control", ""),
            request.GET.get("control_page"), EXPRESS_CONTROLS_PER_PAGE,
        )  # fmt: skip
        if too_big:
            rows = express_rows([*data_page.object_list, *control_page.object_list])
        by_id = {row.id: row for row in rows}
        controls = list(control_page.object_list)
        context.update(
            controls=controls,
            table=[
                (data, [expressibility(by_id[control], by_id[data]) for control in controls])
                for data in data_page.object_list
            ],
            data_page=data_page,
            control_page=control_page,
            data_query=request.GET.get("data", ""),
            control_query=request.GET.get("control", ""),
            pages=[
                (
                    name,
                    page,
                    _query(request, **{f"{name}_page": str(page.number - 1)}),
                    _query(request, **{f"{name}_page": str(page.number + 1)}),
                )
                for name, page in (("data", data_page), ("control", control_page))
                if page.paginator.num_pages > 1
            ],  # fmt: skip
        )
    return render(request, "catalog/matrix_express.html", context)
