"""Matrix pages: the heatmap, one pair explained, and the data plane × control plane table."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import Http404, JsonResponse
from django.shortcuts import render

from catalog.engine.express import expressibility_table
from catalog.engine.oracle import VERDICTS
from catalog.matrix.figure import VERDICT_COLOURS, heatmap_figure, verdict_labels
from catalog.matrix.selectors import (
    CellFilter,
    localized_reasons,
    matrix_state,
    selected_indices,
    snapshot_result,
)
from catalog.matrix.services import matrix_refresh_if_missing
from catalog.models import Layer


def _selection(request) -> CellFilter:
    return CellFilter(
        layers=tuple(v for v in request.GET.getlist("layer") if v),
        projects=tuple(v for v in request.GET.getlist("project") if v),
        verdicts=tuple(v for v in request.GET.getlist("verdict") if v in VERDICTS),
    )


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
    else:
        result = snapshot_result(state.snapshot)
        context["figure"] = heatmap_figure(result, selection)
        context["projects"] = sorted({row.project for row in result.rows})
        context["shown_rows"] = len(selected_indices(result, selection))
        context["counts"] = [
            (v, verdict_labels()[v], state.snapshot.counts.get(v, 0), VERDICT_COLOURS[v])
            for v in VERDICTS
        ]
    return render(request, "catalog/matrix.html", context)


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
