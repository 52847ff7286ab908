"""Matrix pages: the heatmap, one pair explained, and the data plane × control plane table."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpResponseBadRequest, JsonResponse
from django.shortcuts import render
from django.utils.translation import gettext as _

from catalog.engine.express import expressibility_table
from catalog.engine.oracle import VERDICTS
from catalog.matrix.blocks import Selection, blocks
from catalog.matrix.figure import VERDICT_COLOURS, heatmap_payload, verdict_labels
from catalog.matrix.selectors import localized_reasons, matrix_state, snapshot_result
from catalog.matrix.services import matrix_refresh_if_missing
from catalog.models import Layer


def _page_number(value: str | None) -> int:
    try:
        return max(1, int(value or 1))
    except ValueError:
        return 1


def _selection(request) -> Selection:
    return Selection(
        layers=tuple(v for v in request.GET.getlist("layer") if v),
        projects=tuple(v for v in request.GET.getlist("project") if v),
        verdicts=tuple(v for v in request.GET.getlist("verdict") if v in VERDICTS),
        y=request.GET.get("y", "").strip(),
        x=request.GET.get("x", "").strip(),
        y_page=_page_number(request.GET.get("y_page")),
        x_page=_page_number(request.GET.get("x_page")),
    )


def _query(request, **changes) -> str:
    query = request.GET.copy()
    for key, value in changes.items():
        query.pop(key, None)
        if value:
            query[key] = value
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
        return render(request, "catalog/matrix.html", context)
    result = snapshot_result(state.snapshot)
    try:
        shown = blocks(result, selection)
    except ValueError as exc:
        return HttpResponseBadRequest(str(exc))
    labels = verdict_labels()
    payload = heatmap_payload(result, shown)
    context.update(
        figure=payload,
        projects=sorted({row.project for row in result.rows}),
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
    if "function" in kinds:
        return _(
            "Too many rows to show one by one: each line is a layer × function block (a row "
            "with several functions is in several). A cell counts the pairs between two blocks "
            "and is coloured by its most frequent verdict other than independent; click it to "
            "open the rows behind it."
        )
    return _(
        "Each line is a project. A cell counts the pairs between two projects' rows and is "
        "coloured by its most frequent verdict other than independent; click it to open the rows."
    )


@login_required
def matrix_status(request):
    return JsonResponse(_status(matrix_state()))


@login_required
def pair_page(request):
    state = matrix_state()
    if state.snapshot is None:
        raise Http404("No matrix has been computed yet")
    result = snapshot_result(state.snapshot)
    a, b = request.GET.get("a", ""), request.GET.get("b", "")
    if a and a == b:
        return render(
            request,
            "catalog/matrix_pair_same.html",
            {"row_id": a, "state": state},
            status=400,
        )
    try:
        detail = result.explain(a, b)
    except KeyError:
        raise Http404("No such pair of placement rows in the matrix") from None
    rows = {row.id: row for row in result.rows}
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


@login_required
def express_page(request):
    state = matrix_state()
    table = []
    controls = []
    if state.snapshot is not None:
        result = snapshot_result(state.snapshot)
        cells = expressibility_table(result.rows)
        controls = sorted({cell.control for cell in cells})
        by_data: dict[str, dict[str, object]] = {}
        for cell in cells:
            by_data.setdefault(cell.data, {})[cell.control] = cell
        table = [(data, [by_data[data][c] for c in controls]) for data in sorted(by_data)]
    return render(
        request,
        "catalog/matrix_express.html",
        {"state": state, "controls": controls, "table": table},
    )
