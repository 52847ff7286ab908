"""The three-layer map as the report prints it: a landscape page's worth of the page's figure.

The map page's figure is drawn for a screen (hover cards, 9.5 px labels cut at 15 characters,
a legend whose line samples carry the faded lines' opacity). In print nothing hovers, so the
report redraws the same figure at the page's proportions with whole names, larger type and
legend samples drawn at full strength.
"""

from __future__ import annotations

import copy
import textwrap
from collections import Counter
from collections.abc import Sequence
from typing import Any

import plotly.graph_objects as go
import plotly.io as pio
from django.utils import translation

from catalog.engine.rows import Row
from catalog.figure_text import plain
from catalog.map.figure import build_map, map_catalog

# A4 landscape inside the report's margins, less the chapter heading: 267 x 154 mm. At 1300 px
# across, a pixel prints at 0.2 mm, so 11.5 px type prints at about 6.7 pt.
SIZE = (1300, 750)
# Drawn at twice its size: a JPEG embeds as it is, and the labels stay sharp in print.
SCALE = 2
LABEL_PX = 11.5
LINE_PX = 13  # a label line, leading included
NODE_PX = 30  # half the node above, half the node below, the gaps to its label
LABEL_WRAP = 20  # characters per line of a node's name, where nothing stands beside it
MIN_CHARS = 9
CHAR_PX = 6.2  # an average character of the labels' face at LABEL_PX
LABEL_GAP_PX = 8
TICK_CHAR_PX = 7.4
TICK_LINE_PX = 16
Y_SPAN, Y_FLOOR = 3.04, -0.02  # the y axis: three bands and a little
LEGEND_PX = 12
TICK_PX = 13
BAND_TITLE_PX = 15
BOUNDARY_PX = 11.5
FADED_LABEL = "#6b7588"  # the screen's #b6bfcc all but vanishes on paper
FADED_NODE_OPACITY = 0.4
FADED_LINE_OPACITY = 0.22
X_PAD = 1.35  # room for a centred label under a node in the first or last column
MARGIN = {"l": 10, "r": 10, "t": 8, "b": 100}


def label_room(
    nodes: Sequence[Any], plot_height: float, px_per_x: float
) -> dict[str, tuple[int, int]]:
    """Lines and characters per line each node's label may take: down to the node under it
    (or the bottom of the plot), across to the nearest node on its lane (two centred labels
    share the gap between their nodes)."""
    px_per_y = plot_height / Y_SPAN
    room = {}
    for node in nodes:
        below, beside = [], []
        for other in nodes:
            if other is node:
                continue
            if abs(other.x - node.x) < 0.5 and other.y < node.y:
                below.append(node.y - other.y)
            if abs(other.y - node.y) < 0.05:
                beside.append(abs(other.x - node.x))
        down = (min(below) if below else node.y - Y_FLOOR) * px_per_y
        across = min(beside) * px_per_x if beside else 10 * LABEL_WRAP * CHAR_PX
        lines = max(1, min(3, int((down - NODE_PX) // LINE_PX)))
        chars = max(MIN_CHARS, min(LABEL_WRAP, int((across - LABEL_GAP_PX) // CHAR_PX)))
        room[node.row_id] = (lines, chars)
    return room


def node_label(name: str, key: str, *, with_key: bool, lines: int, chars: int = 0) -> str:
    """A node's label in at most `lines` lines of `chars` characters: the project's name
    wrapped (cut with … only where the lines run out), then the row's key when the project has
    several rows."""
    chars = chars or LABEL_WRAP
    key_lines = 1 if with_key and lines > 1 else 0
    wrapped = textwrap.wrap(name, chars, break_long_words=False) or [name]
    room = max(1, lines - key_lines)
    shown = wrapped[:room]
    if len(wrapped) > room:
        shown[-1] = shown[-1].rstrip() + "…"
    shown = [line if len(line) <= chars + 1 else line[:chars].rstrip() + "…" for line in shown]
    text = "<br>".join(plain(line) for line in shown)
    if key_lines:
        key = key if len(key) <= chars + 1 else key[:chars].rstrip() + "…"
        text += f"<br><span style='color:#475569'>{plain(key)}</span>"
    return text


def tick_label(text: str, width_px: float) -> str:
    """A column's name in two lines when it is wider than its column (a Chinese glyph counts
    as two Latin characters)."""
    wide = sum(1 for char in text if ord(char) >= 0x2E80)
    if (len(text) + wide) * TICK_CHAR_PX <= width_px:
        return plain(text)
    if " " in text and not wide:
        lines = textwrap.wrap(text, max(4, int(width_px // TICK_CHAR_PX)))
        if len(lines) > 2:  # two lines a little wider than the column, never a cut name
            lines = textwrap.wrap(text, (len(text) + 1) // 2 + 2)
    else:
        per_line = max(2, int(width_px // (TICK_CHAR_PX * 2)), (len(text) + 1) // 2)
        lines = [text[i : i + per_line] for i in range(0, len(text), per_line)]
    return "<br>".join(plain(line.strip()) for line in lines)


def _legend_sample(trace: dict[str, Any]) -> dict[str, Any]:
    """A legend-only copy of a line trace, at full strength: the legend samples the trace's own
    opacity, and a faded line's 0.12 prints as nothing."""
    line = dict(trace.get("line") or {})
    line["width"] = max(float(line.get("width") or 1), 2.2)
    return {
        "type": "scatter",
        "x": [None],
        "y": [None],
        "mode": "lines",
        "line": line,
        "opacity": 1,
        "name": trace.get("name", ""),
        "legendgroup": trace.get("legendgroup", ""),
        "showlegend": True,
        "hoverinfo": "skip",
    }


def print_figure(
    figure: dict[str, Any], shown: Sequence[Row], names: dict[str, str], nodes: Sequence[Any]
) -> dict[str, Any]:
    """The screen figure (plain Plotly JSON) adapted for the page: whole names, print-sized
    type, a legend that neither fades nor runs into the axis title, nothing cut at the edges."""
    figure = copy.deepcopy(figure)
    rows_per_project = Counter(row.project for row in shown)
    width, height = SIZE
    plot_height = height - MARGIN["t"] - MARGIN["b"]
    layout = figure["layout"]
    xaxis = layout["xaxis"]
    low, high = xaxis["range"]
    xaxis["range"] = [low - (X_PAD - 0.9), high + (X_PAD - 0.9)]
    px_per_x = (width - MARGIN["l"] - MARGIN["r"]) / (xaxis["range"][1] - xaxis["range"][0])
    room = label_room(nodes, plot_height, px_per_x)
    data: list[dict[str, Any]] = []
    samples: list[dict[str, Any]] = []
    for trace in figure["data"]:
        if trace.get("visible") == "legendonly":
            continue  # links the screen hides behind a legend click are not drawn in print
        if trace.get("uid") == "nodes":
            trace["text"] = [
                node_label(
                    names.get(row.id) or row.project,
                    row.key,
                    with_key=rows_per_project[row.project] > 1,
                    lines=room.get(row.id, (1, LABEL_WRAP))[0],
                    chars=room.get(row.id, (1, LABEL_WRAP))[1],
                )
                for row in shown
            ]
            font = trace.setdefault("textfont", {})
            font["size"] = LABEL_PX
            if isinstance(font.get("color"), list):
                font["color"] = [c if c == "#1e293b" else FADED_LABEL for c in font["color"]]
            marker = trace.setdefault("marker", {})
            if isinstance(marker.get("opacity"), list):
                marker["opacity"] = [max(o, FADED_NODE_OPACITY) for o in marker["opacity"]]
        elif trace.get("mode") == "lines":
            if trace.get("showlegend", True):
                samples.append(_legend_sample(trace))
            trace["showlegend"] = False
            if (trace.get("opacity") or 1) < FADED_LINE_OPACITY:
                trace["opacity"] = FADED_LINE_OPACITY
        data.append(trace)
    figure["data"] = data + samples

    layout.pop("height", None)
    layout["margin"] = MARGIN
    ticks = xaxis.get("tickvals") or []
    spacing = min((b - a for a, b in zip(ticks, ticks[1:], strict=False)), default=3) * px_per_x
    xaxis["ticktext"] = [tick_label(text, spacing - 6) for text in xaxis.get("ticktext") or []]
    xaxis["tickangle"] = 0
    xaxis["tickfont"] = {**xaxis.get("tickfont", {}), "size": TICK_PX}
    # The caption under the figure says what the columns are: an axis title would sit between
    # the tick labels and the legend and collide with one of them.
    xaxis["title"] = {"text": ""}
    tick_lines = max((text.count("<br>") + 1 for text in xaxis["ticktext"]), default=1)
    for note in layout.get("annotations", []):
        size = (note.get("font") or {}).get("size")
        if size == 13:  # a band's title
            note["font"]["size"] = BAND_TITLE_PX
        elif size == 11:  # a boundary between bands
            note["font"]["size"] = BOUNDARY_PX
    layout["legend"] = {
        **layout.get("legend", {}),
        "orientation": "h",
        "x": 0,
        # Just under the tick labels, never on them.
        "y": -(tick_lines * TICK_LINE_PX + 12) / plot_height,
        "yanchor": "top",
        "font": {"size": LEGEND_PX},
        "itemwidth": 40,
        "tracegroupgap": 0,
    }
    return figure


def map_print_image(*, rows: Sequence[Row], highlight: Sequence[str]) -> bytes:
    """The candidates' map as a JPEG for a landscape page (kaleido, system Chromium), labelled
    in the active language."""
    with translation.override(translation.get_language()):
        catalog = map_catalog(rows=rows)
        view = build_map(catalog, highlight=highlight, static=True)
        names = {
            row.id: detail.project_name
            for row in view.shown
            if (detail := catalog.details.get(row.id))
        }
        figure = print_figure(view.figure, view.shown, names, view.layout.nodes)
    width, height = SIZE
    return pio.to_image(go.Figure(figure), format="jpeg", width=width, height=height, scale=SCALE)
