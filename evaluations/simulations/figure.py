"""The capacity figure: each sized stack's allocation and fragmentation curves, side by side
(Plotly JSON, drawn by static/js/capacity.js from plotly.js in static/; no inline script)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from django.utils.html import escape
from django.utils.translation import gettext as _

PERCENTS = list(range(131))
PLACED_COLOUR = "#2563eb"
FRAG_COLOUR = "#dc2626"
IDEAL_COLOUR = "#9ca3af"
GAP = 0.03  # between two stacks' panels, as a fraction of the figure's width


def capacity_figure(stacks: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """One panel per stack: the work placed and the fragmented GPUs (% of the stack's GPUs)
    against the work that arrived (% of its GPUs), with the diagonal a perfect packer follows.
    Text reaching Plotly is escaped (it renders a subset of HTML in labels)."""
    count = max(1, len(stacks))
    width = (1 - GAP * (count - 1)) / count
    data: list[dict[str, Any]] = []
    layout: dict[str, Any] = {
        "height": 300,
        "margin": {"l": 48, "r": 12, "t": 36, "b": 72},
        "showlegend": True,
        "legend": {"orientation": "h", "y": -0.3, "x": 0},
        "hovermode": "x unified",
        "annotations": [],
        "paper_bgcolor": "rgba(0,0,0,0)",
        "plot_bgcolor": "rgba(0,0,0,0)",
    }
    placed, fragmented, ideal = (
        escape(_("work placed")),
        escape(_("GPUs fragmented")),
        escape(_("all work placed")),
    )
    for index, stack in enumerate(stacks):
        suffix = "" if index == 0 else str(index + 1)
        axis_x, axis_y = f"x{suffix}", f"y{suffix}"
        start = index * (width + GAP)
        layout[f"xaxis{suffix}"] = {
            "domain": [start, start + width],
            "range": [0, 130],
            # xgettext:no-python-format
            "title": {"text": escape(_("work arrived, % of GPUs")), "font": {"size": 11}},
            "tickvals": [0, 50, 100, 130],
            "zeroline": False,
        }
        layout[f"yaxis{suffix}"] = {
            "range": [0, 105],
            "anchor": axis_x,
            "tickvals": [0, 25, 50, 75, 100],
            "showticklabels": index == 0,
            "zeroline": False,
        }
        if index == 0:
            # xgettext:no-python-format
            layout["yaxis"]["title"] = {"text": escape(_("% of GPUs")), "font": {"size": 11}}
        layout["annotations"].append(
            {
                "text": escape(
                    _("#%(rank)s · %(alloc)s %% placed at 100 %%")
                    % {"rank": stack.get("rank"), "alloc": f"{stack['alloc_at_100']:.1f}"}
                ),
                "x": start + width / 2,
                "y": 1.0,
                "xref": "paper",
                "yref": "paper",
                "xanchor": "center",
                "yanchor": "bottom",
                "showarrow": False,
                "font": {"size": 12},
            }
        )
        first = index == 0
        data += [
            {
                "type": "scatter", "mode": "lines", "x": [0, 100, 130], "y": [0, 100, 100],
                "xaxis": axis_x, "yaxis": axis_y, "name": ideal, "legendgroup": "ideal",
                "showlegend": first, "hoverinfo": "skip",
                "line": {"color": IDEAL_COLOUR, "width": 1, "dash": "dot"},
            },
            {
                "type": "scatter", "mode": "lines", "x": PERCENTS, "y": stack["alloc_curve"],
                "xaxis": axis_x, "yaxis": axis_y, "name": placed, "legendgroup": "placed",
                "showlegend": first, "line": {"color": PLACED_COLOUR, "width": 2},
                "hovertemplate": "%{y:.1f} %<extra></extra>",
            },
            {
                "type": "scatter", "mode": "lines", "x": PERCENTS, "y": stack["frag_curve"],
                "xaxis": axis_x, "yaxis": axis_y, "name": fragmented, "legendgroup": "frag",
                "showlegend": first, "line": {"color": FRAG_COLOUR, "width": 1.5, "dash": "dash"},
                "hovertemplate": "%{y:.1f} %<extra></extra>",
            },
        ]  # fmt: skip
    return {"data": data, "layout": layout}
