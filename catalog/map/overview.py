"""The map of a catalog too big to draw row by row: one bubble per layer and resource unit with its
count of rows (issue 41 H1). A click on a bubble opens that cell's rows as a focused map."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from django.utils.formats import number_format
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from catalog.engine.map_layout import BANDS
from catalog.figure_text import plain
from catalog.map.draw import BAND_FILLS, FONT, LAYER_COLOURS


@dataclass(frozen=True)
class OverviewCell:
    layer: str
    unit: str
    rows: int
    projects: int
    query: str  # the focused view of this cell's rows (the page's other filters kept)


def count_text(value: int) -> str:
    return number_format(value, force_grouping=True)


def _hover(cell: OverviewCell, layers: Mapping[str, str], units: Mapping[str, str], limit: int):
    counted = ngettext(
        "%(rows)s row in %(projects)s project", "%(rows)s rows in %(projects)s projects", cell.rows
    ) % {"rows": count_text(cell.rows), "projects": count_text(cell.projects)}
    action = (
        _("Click to draw them.")
        if cell.rows <= limit
        else _("More than the map draws at once: click, then narrow with a search or a project.")
    )
    name = f"{layers.get(cell.layer, cell.layer)} · {units.get(cell.unit, cell.unit)}"
    return f"<b>{plain(name)}</b><br>{plain(counted)}<br>{plain(action)}"


def overview_figure(
    cells: Sequence[OverviewCell],
    *,
    layers: Mapping[str, str],
    units: Mapping[str, str],
    limit: int,
) -> dict[str, Any]:
    """Plain Plotly JSON: the three bands, a column per resource unit holding rows, a bubble per
    (layer, unit) sized by its count."""
    used = [unit for unit in units if any(cell.unit == unit for cell in cells)]
    used += sorted({cell.unit for cell in cells} - set(used))
    column = {unit: i for i, unit in enumerate(used)}
    biggest = max((cell.rows for cell in cells), default=1)
    trace = {
        "type": "scatter",
        "uid": "overview",
        "x": [column[cell.unit] for cell in cells],
        "y": [BANDS.index(cell.layer) + 0.5 if cell.layer in BANDS else -0.5 for cell in cells],
        "mode": "markers+text",
        "text": [count_text(cell.rows) for cell in cells],
        "textposition": "middle center",
        "textfont": {"size": 12, "color": "#0f172a"},
        "marker": {
            "size": [18 + 52 * math.sqrt(cell.rows / biggest) for cell in cells],
            "color": [LAYER_COLOURS.get(cell.layer, "#64748b") for cell in cells],
            "opacity": 0.35,
            "line": {"color": [LAYER_COLOURS.get(c.layer, "#64748b") for c in cells], "width": 2},
        },
        "customdata": [cell.query for cell in cells],
        "hovertext": [_hover(cell, layers, units, limit) for cell in cells],
        "hoverinfo": "text",
        "showlegend": False,
        "name": _("rows per layer and resource unit"),
    }
    shapes = [
        {
            "type": "rect",
            "xref": "paper",
            "x0": 0,
            "x1": 1,
            "y0": i,
            "y1": i + 1,
            "fillcolor": BAND_FILLS[band],
            "line": {"width": 0},
            "layer": "below",
        }
        for i, band in enumerate(BANDS)
    ]
    return {
        "data": [trace],
        "layout": {
            "xaxis": {
                "range": [-0.6, max(len(used), 1) - 0.4],
                "tickvals": list(range(len(used))),
                "ticktext": [plain(units.get(unit, unit)) for unit in used],
                "showgrid": False,
                "zeroline": False,
                "fixedrange": True,
                "tickfont": {"size": 11, "color": "#334155"},
            },
            "yaxis": {
                "range": [0, len(BANDS)],
                "tickvals": [i + 0.5 for i in range(len(BANDS))],
                "ticktext": [plain(layers.get(band, band)) for band in BANDS],
                "showgrid": False,
                "zeroline": False,
                "fixedrange": True,
                "tickfont": {"size": 12, "color": "#334155"},
            },
            "shapes": shapes,
            "showlegend": False,
            "hovermode": "closest",
            "hoverlabel": {"bgcolor": "#ffffff", "font": {"size": 12, "family": FONT}},
            "margin": {"l": 110, "r": 12, "t": 12, "b": 48},
            "paper_bgcolor": "#ffffff",
            "plot_bgcolor": "#ffffff",
            "font": {"family": FONT, "color": "#0f172a"},
            "height": 460,
        },
    }
