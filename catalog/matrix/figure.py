"""The Plotly heatmap of a matrix snapshot: rows grouped by layer, one colour per verdict."""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext as _

from catalog.engine.compatibility import MatrixResult
from catalog.engine.oracle import VERDICTS, pair_verdicts
from catalog.figure_text import plain
from catalog.matrix.selectors import CellFilter, localized_reasons, selected_indices
from catalog.models import Layer

# One colour per verdict, in VERDICTS order; same-row cells stay blank.
VERDICT_COLOURS = {
    "conflicts": "#dc2626",
    "composes": "#16a34a",
    "competes": "#f59e0b",
    "incomparable": "#a78bfa",
    "complements": "#67e8f9",
    "independent": "#cbd5e1",
}
# Hover reasons cost one oracle call per pair; past this many rows the hover names the verdict.
REASONS_UP_TO_ROWS = 160


def verdict_labels() -> dict[str, str]:
    return {
        "conflicts": _("conflicts"),
        "composes": _("composes"),
        "competes": _("competes"),
        "incomparable": _("incomparable"),
        "complements": _("complements"),
        "independent": _("independent"),
    }


def heatmap_figure(result: MatrixResult, selection: CellFilter) -> dict[str, Any]:
    """Figure JSON for Plotly.newPlot: a discrete heatmap with reasons on hover."""
    indices = selected_indices(result, selection)
    rows = result.rows or ()
    ids = [rows[i].id for i in indices]
    labels = verdict_labels()
    explain = len(indices) <= REASONS_UP_TO_ROWS
    z: list[list[float | None]] = []
    text: list[list[str]] = []
    for i in indices:
        z_row: list[float | None] = []
        text_row: list[str] = []
        for j in indices:
            verdict = result.verdict_of(i, j) if i != j else None
            if verdict is None or (selection.verdicts and verdict not in selection.verdicts):
                z_row.append(None)
                text_row.append("")
                continue
            z_row.append(VERDICTS.index(verdict))
            hover = f"<b>{plain(rows[i].id)}</b> × <b>{plain(rows[j].id)}</b><br>{labels[verdict]}"
            if explain:
                detail = pair_verdicts(rows[i], rows[j])
                reasons = localized_reasons(detail)
                hover += "<br>" + "<br>".join(
                    _wrap(plain(reason)) for _verdict, reason in reasons[:2]
                )
            text_row.append(hover)
        z.append(z_row)
        text.append(text_row)
    n = len(VERDICTS)
    colourscale = []
    for position, verdict in enumerate(VERDICTS):
        colourscale.append([position / n, VERDICT_COLOURS[verdict]])
        colourscale.append([(position + 1) / n, VERDICT_COLOURS[verdict]])
    layer_of = [rows[i].layer for i in indices]
    shapes, annotations = _layer_bands(layer_of)
    size = max(420, min(18 * len(indices) + 260, 2400))
    return {
        "data": [
            {
                "type": "heatmap",
                "z": z,
                "x": ids,
                "y": ids,
                "text": text,
                "hoverinfo": "text",
                "hoverlabel": {"align": "left"},
                "colorscale": colourscale,
                "zmin": -0.5,
                "zmax": n - 0.5,
                "xgap": 1,
                "ygap": 1,
                "colorbar": {
                    "tickvals": list(range(n)),
                    "ticktext": [labels[v] for v in VERDICTS],
                    "thickness": 14,
                    # right of the layer labels, which sit just outside the plot
                    "x": 1.09,
                    "xanchor": "left",
                },
            }
        ],
        "layout": {
            "height": size,
            "margin": {"l": 260, "r": 150, "t": 30, "b": 230},
            "xaxis": {"tickangle": -60, "automargin": True, "tickfont": {"size": 10}},
            "yaxis": {"autorange": "reversed", "automargin": True, "tickfont": {"size": 10}},
            "shapes": shapes,
            "annotations": annotations,
            "plot_bgcolor": "#ffffff",
            "font": {"family": "system-ui, 'Noto Sans CJK SC', sans-serif"},
        },
    }


def _wrap(text: str, width: int = 90) -> str:
    words, lines, line = text.split(), [], ""
    for word in words:
        if len(line) + len(word) + 1 > width:
            lines.append(line)
            line = word
        else:
            line = f"{line} {word}".strip()
    lines.append(line)
    return "<br>".join(lines)


def _layer_bands(layers: list[str]) -> tuple[list[dict], list[dict]]:
    """Lines between layer groups on both axes, and a label per group."""

    names = {layer.key: layer.name for layer in Layer.objects.all()}
    shapes, annotations = [], []
    start = 0
    for position in range(1, len(layers) + 1):
        if position == len(layers) or layers[position] != layers[start]:
            if position < len(layers):
                edge = position - 0.5
                line = {"color": "#0f172a", "width": 2}
                shapes.append({"type": "line", "x0": edge, "x1": edge, "y0": -0.5,
                               "y1": len(layers) - 0.5, "line": line})  # fmt: skip
                shapes.append({"type": "line", "y0": edge, "y1": edge, "x0": -0.5,
                               "x1": len(layers) - 0.5, "line": line})  # fmt: skip
            annotations.append(
                {
                    "text": f"<b>{plain(names.get(layers[start], layers[start]))}</b>",
                    "x": 1.01,
                    "xref": "paper",
                    "y": (start + position - 1) / 2,
                    "yref": "y",
                    "showarrow": False,
                    "xanchor": "left",
                    "font": {"size": 11},
                }
            )
            start = position
    return shapes, annotations
