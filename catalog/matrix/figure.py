"""The Plotly heatmap of a matrix snapshot: axes grouped by layer, one colour per verdict."""

from __future__ import annotations

import base64
from collections.abc import Callable
from typing import Any
from urllib.parse import urlencode

import numpy as np
from django.urls import reverse
from django.utils.translation import gettext as _

from catalog.engine.compatibility import MatrixResult
from catalog.engine.oracle import VERDICTS
from catalog.figure_text import plain
from catalog.matrix.blocks import NO_VERDICT, Blocks, Group
from catalog.models import Function, Layer, Project

# One colour per verdict, in VERDICTS order; same-row cells stay blank.
VERDICT_COLOURS = {
    "contains": "#1e3a8a",
    "conflicts": "#dc2626",
    "composes": "#16a34a",
    "competes": "#f59e0b",
    "incomparable": "#a78bfa",
    "complements": "#67e8f9",
    "independent": "#cbd5e1",
}


def verdict_labels() -> dict[str, str]:
    return {
        "contains": _("contains"),
        "conflicts": _("conflicts"),
        "composes": _("composes"),
        "competes": _("competes"),
        "incomparable": _("incomparable"),
        "complements": _("complements"),
        "independent": _("independent"),
    }


def project_names() -> dict[str, str]:
    """slug -> the project's name: axes say "NVIDIA device plugin", not its slug."""
    return dict(Project.objects.values_list("slug", "name"))


def _group_label(
    group: Group, rows, names: dict[str, str], functions: dict[str, str], projects: dict[str, str]
) -> str:
    size = len(group.members)
    if group.kind == "row":
        row = rows[int(group.members[0])]
        return f"{plain(projects.get(row.project, row.project))} · {plain(row.key)}"
    if group.kind == "project":
        return f"{plain(projects.get(group.value, group.value))} ({size})"
    layer, _, function = group.value.partition("/")
    layer_name = names.get(layer, layer)
    return f"{plain(layer_name)} · {plain(functions.get(function, function))} ({size})"


def _axis_payload(groups: list[Group], rows, names, functions, projects) -> dict[str, list[str]]:
    labels = [_group_label(group, rows, names, functions, projects) for group in groups]
    return {
        "keys": [group.key for group in groups],
        "labels": labels,
        # Tick labels wrap (y) or shorten (x, whose lines the y axis names in full) rather than
        # widen the figure past the page; hover has them whole.
        "ticks": [_wrapped(label) for label in labels],
        "short": [label if len(label) <= 32 else label[:31].rstrip() + "…" for label in labels],
        "layers": [group.layer for group in groups],
    }


def _wrapped(label: str, width: int = 40) -> str:
    words, lines = label.split(" "), [""]
    for word in words:
        if lines[-1] and len(lines[-1]) + 1 + len(word) > width:
            lines.append(word)
        else:
            lines[-1] = f"{lines[-1]} {word}".strip()
    return "<br>".join(lines)


def heatmap_payload(
    result: MatrixResult, shown: Blocks, *, names: dict[str, str] | None = None
) -> dict[str, Any]:
    """What the page's script draws: the Plotly layout, the axes, and the cells packed as bytes
    (one verdict byte per cell, base64; plus six little-endian uint32 counts per cell when an
    axis groups rows). The script builds the heatmap's z and hover text from them, so the page
    stays small whatever the catalog's size."""
    rows = result.rows or ()
    projects = names if names is not None else project_names()
    names = {layer.key: layer.name for layer in Layer.objects.all()}
    functions = {term.key: term.name for term in Function.objects.all()}
    labels = verdict_labels()
    y = _axis_payload(shown.y, rows, names, functions, projects)
    x = _axis_payload(shown.x, rows, names, functions, projects)
    n = len(VERDICTS)
    colourscale = []
    for position, verdict in enumerate(VERDICTS):
        colourscale.append([position / n, VERDICT_COLOURS[verdict]])
        colourscale.append([(position + 1) / n, VERDICT_COLOURS[verdict]])
    shapes, annotations = _layer_bands(y["layers"], x["layers"], names)
    wraps = max((label.count("<br>") + 1 for label in y["ticks"]), default=1)
    height = max(420, min((18 if wraps == 1 else 28) * len(shown.y) + 300, 3000))
    cells: dict[str, Any] = {
        "codes": base64.b64encode(shown.codes.astype(np.uint8).tobytes()).decode(),
        "none": NO_VERDICT,
    }
    if not shown.rows_only:
        counts = shown.counts.astype("<u4").tobytes()
        cells["counts"] = base64.b64encode(counts).decode()
    return {
        "y": y,
        "x": x,
        "cells": cells,
        "rows_only": shown.rows_only,
        "verdicts": [labels[v] for v in VERDICTS],
        "text": {"pairs": _("pairs"), "open": _("Click for the pair"), "drill": _("Click to open")},
        "trace": {
            "type": "heatmap",
            "hoverinfo": "text",
            "hoverlabel": {"align": "left"},
            "colorscale": colourscale,
            "zmin": -0.5,
            "zmax": n - 0.5,
            "xgap": 1,
            "ygap": 1,
            # the sidebar's verdict list is the legend
            "showscale": False,
        },
        "layout": {
            "height": height,
            "margin": {"l": 200, "r": 110, "t": 30, "b": 190},
            "xaxis": {"tickangle": -60, "automargin": True, "tickfont": {"size": 10}},
            "yaxis": {"autorange": "reversed", "automargin": True, "tickfont": {"size": 10}},
            "shapes": shapes,
            "annotations": annotations,
            "plot_bgcolor": "#ffffff",
            "font": {"family": "system-ui, 'Noto Sans CJK SC', sans-serif"},
        },
    }


def _edges(layers: list[str]) -> list[tuple[int, int, str]]:
    """(first, last, layer) of each run of one layer along an axis."""
    runs, start = [], 0
    for position in range(1, len(layers) + 1):
        if position == len(layers) or layers[position] != layers[start]:
            runs.append((start, position - 1, layers[start]))
            start = position
    return runs


def _layer_bands(
    y_layers: list[str], x_layers: list[str], names: dict[str, str]
) -> tuple[list[dict], list[dict]]:
    """Lines between layer groups on both axes, and a label per group of the y axis."""
    line = {"color": "#0f172a", "width": 2}
    shapes, annotations = [], []
    for first, _last, _layer in _edges(x_layers)[1:]:
        edge = first - 0.5
        shapes.append({"type": "line", "x0": edge, "x1": edge, "y0": -0.5,
                       "y1": len(y_layers) - 0.5, "line": line})  # fmt: skip
    for first, last, layer in _edges(y_layers):
        if first:
            edge = first - 0.5
            shapes.append({"type": "line", "y0": edge, "y1": edge, "x0": -0.5,
                           "x1": len(x_layers) - 0.5, "line": line})  # fmt: skip
        annotations.append(
            {
                "text": f"<b>{plain(names.get(layer, layer))}</b>",
                "x": 1.01,
                "xref": "paper",
                "y": (first + last) / 2,
                "yref": "y",
                "showarrow": False,
                "xanchor": "left",
                "font": {"size": 11},
            }
        )
    return shapes, annotations


def cell_table(
    result: MatrixResult,
    shown: Blocks,
    payload: dict[str, Any],
    *,
    drill: Callable[[str, str], str],
    expand: Callable[[str], str],
) -> list[dict[str, Any]]:
    """The heatmap as a list (its text alternative, reachable from the keyboard): per line of
    the y axis, the x lines it has pairs with, by verdict other than independent, each with the
    number of pairs and a link to the pair (two rows) or to the rows behind the cell."""
    labels = verdict_labels()
    pair_url = reverse("matrix:pair")
    out = []
    for i, group in enumerate(shown.y):
        verdicts = []
        for v, verdict in enumerate(VERDICTS):
            if verdict == "independent":
                continue
            partners = []
            for j, other in enumerate(shown.x):
                count = int(shown.counts[i, j, v])
                if not count:
                    continue
                if group.kind == other.kind == "row":
                    url = f"{pair_url}?{urlencode({'a': group.value, 'b': other.value})}"
                else:
                    url = drill(group.key, other.key)
                partners.append((payload["x"]["labels"][j], url, count))
            if partners:
                verdicts.append((verdict, labels[verdict], VERDICT_COLOURS[verdict], partners))
        out.append(
            {
                "label": payload["y"]["labels"][i],
                "kind": group.kind,
                "expand_url": expand(group.value) if group.kind == "project" else "",
                "collapse_url": expand(result.rows[int(group.members[0])].project)
                if group.kind == "row"
                else "",
                "verdicts": verdicts,
            }
        )
    return out
