"""Drawing the three-layer map: the Plotly traces (nodes, edges, their hover markers, the
legend) and the layout (bands, boundaries, axes) of one laid-out catalog."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from django.utils.translation import gettext as _

from catalog.engine.map_layout import (
    BANDS,
    Contracts,
    Edge,
    MapLayout,
)
from catalog.engine.rows import Row
from catalog.figure_text import plain

LAYER_COLOURS = {"platform": "#7c3aed", "control_plane": "#0369a1", "data_plane": "#047857"}
BAND_FILLS = {"platform": "#f6f1ff", "control_plane": "#eef7fc", "data_plane": "#eef9f4"}
POINT_SYMBOLS = ("square", "diamond", "circle", "triangle-up", "star", "hexagon", "pentagon")
COMPOSES_COLOUR = "#2563eb"
CONFLICT_COLOUR = "#dc2626"
PROJECT_COLOUR = "#64748b"
FONT = 'system-ui, "Noto Sans", "Noto Sans CJK SC", "PingFang SC", "Microsoft YaHei", sans-serif'

# Above this many nodes the nodes and edge markers switch to WebGL (two traces, one context):
# thousands of SVG markers make the first render slow.
WEBGL_ABOVE = 300
# Node labels stay readable up to about this many nodes on a page-wide figure.
LABELS_UP_TO = 80
OPTIONAL_LINKS_SHOWN_UP_TO = 40
# Bundle counts are written on the edges up to this many bundles (past it they are hover only).
COUNT_LABELS_UP_TO = 300
# Bundles of two are only thickened in hover text; from three on the count is written.
COUNT_LABELLED_FROM = 3


@dataclass(frozen=True)
class RowDetail:
    component: str = ""
    promise: str = ""
    non_promise: str = ""
    project_name: str = ""
    tags: tuple[str, ...] = ()


@dataclass(frozen=True)
class MapCatalog:
    """Everything the map needs, loaded in a fixed number of queries."""

    rows: tuple[Row, ...]
    details: Mapping[str, RowDetail]
    layers: Mapping[str, str]  # key -> name in the active language
    units: Mapping[str, str]
    points: Mapping[str, str]
    functions: Mapping[str, str] = field(default_factory=dict)
    tags: Mapping[str, str] = field(default_factory=dict)  # slug -> name, tags in use


def _names(keys: frozenset[str], names: Mapping[str, str]) -> list[str]:
    order = {key: i for i, key in enumerate(names)}
    return [names.get(key, key) for key in sorted(keys, key=lambda k: (order.get(k, 99), k))]


def _title(row: Row, detail: RowDetail) -> str:
    return detail.component or row.name or row.id


def _short(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def label_name(name: str) -> str:
    """A project's name as a node label: without a closing parenthetical ("KubeVirt (GPU and
    vGPU assignment to virtual machines)" is KubeVirt on the figure; its hover card, the table
    and the CSV give the whole name)."""
    if name.endswith(")") and " (" in name:
        return name[: name.rindex(" (")]
    return name


def wrap_label(text: str, width: int = 13) -> list[str]:
    """`text` in lines of about `width` characters, broken after spaces or hyphens; a word
    longer than a line keeps a line of its own. Nothing is ever cut off."""
    words = [word for word in text.replace("-", "- ").split(" ") if word]
    lines: list[str] = []
    for word in words:
        glue = "" if lines and lines[-1].endswith("-") else " "
        if lines and len(lines[-1]) + len(glue) + len(word) <= width:
            lines[-1] = lines[-1] + glue + word
        else:
            lines.append(word)
    return [line.strip() for line in lines] or [text]


def optional_links_hidden(layout: MapLayout) -> bool:
    """Optional links are most of a big catalog's edges: shown only when few enough to read,
    and never on the whole catalog's aggregated view (a legend click brings them back)."""
    optional = sum(1 for edge in layout.edges if edge.relation == "accepts")
    return layout.bundled or optional > OPTIONAL_LINKS_SHOWN_UP_TO


def drawn_edges(layout: MapLayout) -> list[Edge]:
    """The edges the figure shows before any legend click."""
    hidden = optional_links_hidden(layout)
    return [edge for edge in layout.edges if not (hidden and edge.relation == "accepts")]


def _figure(
    catalog: MapCatalog,
    layout: MapLayout,
    shown: Sequence[Row],
    highlighted: frozenset[str],
    *,
    static: bool,
    pools: Mapping[str, str] | None = None,
) -> dict[str, Any]:
    pools = pools or {}
    webgl = not static and len(shown) > WEBGL_ABOVE
    labels = len(shown) <= LABELS_UP_TO
    faded = bool(highlighted)
    by_id = {node.row_id: node for node in layout.nodes}
    names = {row.id: catalog.details.get(row.id, RowDetail()).project_name for row in shown}
    rows_per_project: dict[str, int] = defaultdict(int)
    for row in shown:
        rows_per_project[row.project] += 1
    symbol_of = {
        point: POINT_SYMBOLS[i % len(POINT_SYMBOLS)] for i, point in enumerate(catalog.points)
    }

    hide_optional = optional_links_hidden(layout)
    traces: list[Any] = []
    traces += _edge_traces(layout, highlighted, hide_optional=hide_optional, webgl=webgl)
    traces += _edge_markers(
        layout, catalog, names, highlighted, webgl=webgl, hide_optional=hide_optional
    )

    xs, ys, colours, symbols, sizes, opacities, outlines, widths, texts = ([] for _ in range(9))
    for row in shown:
        node = by_id[row.id]
        lit = row.id in highlighted
        xs.append(node.x)
        ys.append(node.y)
        colours.append(LAYER_COLOURS[row.layer])
        symbols.append(symbol_of.get(node.point, "circle"))
        sizes.append(17 if lit else 13)
        opacities.append(0.18 if faded and not lit else 1.0)
        outlines.append("#0f172a" if lit else "#ffffff")
        widths.append(2.5 if lit else 1.2)
        if labels:
            lines = [plain(line) for line in wrap_label(label_name(names[row.id] or row.project))]
            # The aggregated view names projects only: its hover card and table name the row.
            if rows_per_project[row.project] > 1 and not layout.bundled:
                lines += [
                    f"<span style='color:#475569'>{plain(line)}</span>"
                    for line in wrap_label(row.key, 16)
                ]
            if row.id in pools:
                lines.append(f"<i>{plain(_('pool %(name)s') % {'name': pools[row.id]})}</i>")
            texts.append("<br>".join(lines))
    node_trace = {
        "x": xs,
        "y": ys,
        "mode": "markers+text" if labels else "markers",
        "text": texts or None,
        "textposition": "bottom center",
        "textfont": {
            "size": 9.5,
            "color": [
                "#b6bfcc" if faded and row.id not in highlighted else "#1e293b" for row in shown
            ],
        },
        "marker": {
            "color": colours,
            "symbol": symbols,
            "size": sizes,
            "opacity": opacities,
            "line": {"color": outlines, "width": widths},
        },
        # The page shows its own HTML card on hover; Plotly's label would duplicate it.
        "hoverinfo": "none",
        "showlegend": False,
        "uid": "nodes",
        "name": "nodes",
    }
    traces.append({"type": "scattergl" if webgl else "scatter", **node_trace})
    traces += _legend_traces(catalog, symbol_of)

    return {"data": traces, "layout": _layout(catalog, layout, shown)}


def _edge_styles() -> dict[str, tuple[str, str, str, float, float]]:
    """Per edge style: legend label, colour, dash, width, opacity."""
    return {
        "requires": (_("composes: provider → consumer"), COMPOSES_COLOUR, "solid", 1.2, 0.55),
        "accepts": (_("composes, optional (accepts)"), COMPOSES_COLOUR, "dot", 1.0, 0.3),
        "conflicts": (_("conflicts (exclusive token)"), CONFLICT_COLOUR, "dash", 1.1, 0.3),
        "project": (_("same project"), PROJECT_COLOUR, "solid", 3.5, 0.35),
    }


def _style(edge: Edge) -> str:
    return edge.relation if edge.kind == "composes" else edge.kind


def _edge_traces(
    layout: MapLayout,
    highlighted: frozenset[str],
    *,
    hide_optional: bool,
    webgl: bool = False,
) -> list[dict[str, Any]]:
    """One line trace per style (and per style among the highlighted stack); legend toggles.

    On a WebGL map the lines are WebGL too: hundreds of SVG paths dominate a big map's first draw,
    and all scattergl traces of one plot share a single WebGL context.
    """
    faded = bool(highlighted)
    # (style, emphasis): emphasis is "lit" (both ends in the highlighted stack), "thick" (a
    # bundle of three or more contracts) or "".
    groups: dict[tuple[str, str], tuple[list[float | None], list[float | None]]] = defaultdict(
        lambda: ([], [])
    )
    for edge in layout.edges:
        lit = edge.source in highlighted and edge.target in highlighted
        emphasis = "lit" if lit else ("thick" if edge.count >= COUNT_LABELLED_FROM else "")
        xs, ys = groups[(_style(edge), emphasis)]
        xs.extend((*edge.xs, None))
        ys.extend((*edge.ys, None))
    traces = []
    for style, (label, colour, dash, width, opacity) in _edge_styles().items():
        present = [emphasis for emphasis in ("", "thick", "lit") if (style, emphasis) in groups]
        for emphasis in present:
            xs, ys = groups[(style, emphasis)]
            if emphasis == "lit":
                shown_opacity = 0.95
            elif faded:
                shown_opacity = 0.12
            else:
                shown_opacity = min(opacity + 0.15, 0.9) if emphasis == "thick" else opacity
            traces.append(
                {
                    "type": "scattergl" if webgl else "scatter",
                    "x": xs,
                    "y": ys,
                    "mode": "lines",
                    "line": {
                        "color": colour,
                        "dash": dash,
                        "width": width * (2 if emphasis else 1),
                    },
                    "opacity": shown_opacity,
                    "hoverinfo": "skip",
                    "name": label,
                    "legendgroup": style,
                    "showlegend": emphasis == present[0],
                    # Optional wildcard links outnumber the rest; they wait behind a legend click.
                    "visible": "legendonly"
                    if hide_optional and style == "accepts" and emphasis != "lit"
                    else True,
                    "uid": f"edges-{style}{'-' + emphasis if emphasis else ''}",
                }
            )
    return traces


def _edge_markers(
    layout: MapLayout,
    catalog: MapCatalog,
    names: Mapping[str, str],
    highlighted: frozenset[str],
    *,
    webgl: bool,
    hide_optional: bool,
) -> list[dict[str, Any]]:
    """Arrowheads mid-edge that carry each edge's hover text (lines themselves cannot hover).

    SVG maps get one marker trace per style, grouped with its lines so a legend click hides
    both; WebGL maps get a single trace, to stay within the browser's few WebGL contexts.
    """
    label = {
        row.id: plain(f"{names.get(row.id) or row.project} · {row.key}") for row in catalog.rows
    }
    groups: dict[str, dict[str, list[Any]]] = defaultdict(lambda: defaultdict(list))
    counts: dict[str, list[Any]] = defaultdict(list)
    for edge in layout.edges:
        if edge.kind == "project":
            continue
        style = "all" if webgl else _style(edge)
        group = groups[style]
        mid = len(edge.xs) // 2
        if len(edge.xs) == 2:  # a straight edge: take two points just past its middle
            (x0, x1), (y0, y1) = edge.xs, edge.ys
            points = [(x0 + (x1 - x0) * t, y0 + (y1 - y0) * t) for t in (0.5, 0.56)]
        else:
            points = [(edge.xs[mid - 1], edge.ys[mid - 1]), (edge.xs[mid], edge.ys[mid])]
        if edge.kind == "composes" and len(edge.pairs) > 1:
            head = _("%(count)s contracts between %(a)s and %(b)s") % {
                "count": edge.count,
                "a": f"<b>{plain(names.get(edge.source) or edge.source)}</b>",
                "b": f"<b>{plain(names.get(edge.target) or edge.target)}</b>",
            }
            lines = [f"{label[a]} → {label[b]}" for a, b in edge.pairs[:8]]
            text = head + "<br>" + "<br>".join(lines) + ("<br>…" if len(edge.pairs) > 8 else "")
            symbol, colour = ("circle" if webgl else "arrow"), COMPOSES_COLOUR
            if edge.count >= COUNT_LABELLED_FROM and not (
                hide_optional and edge.relation == "accepts"
            ):
                counts["x"].append(points[0][0])
                counts["y"].append(points[0][1])
                counts["text"].append(f"×{edge.count}")
        elif edge.kind == "composes":
            more = "<br>…" if len(edge.labels) > 6 else ""
            text = (
                f"<b>{label[edge.source]}</b> → <b>{label[edge.target]}</b><br>"
                + "<br>".join(plain(interface) for interface in edge.labels[:6])
                + more
            )
            symbol, colour = ("circle" if webgl else "arrow"), COMPOSES_COLOUR
        elif len(edge.pairs) > 1:
            head = _("%(count)s conflicting pairs between %(a)s and %(b)s") % {
                "count": edge.count,
                "a": f"<b>{plain(names.get(edge.source) or edge.source)}</b>",
                "b": f"<b>{plain(names.get(edge.target) or edge.target)}</b>",
            }
            lines = [f"{label[a]} ✕ {label[b]}" for a, b in edge.pairs[:8]]
            more = "<br>…" if len(edge.pairs) > 8 else ""
            text = (
                head
                + "<br>"
                + "<br>".join(lines)
                + more
                + "<br>"
                + _("conflict: both hold %(tokens)s") % {"tokens": plain(", ".join(edge.labels))}
            )
            symbol, colour = "x-thin-open", "rgba(220,38,38,0.6)"
        else:
            text = f"<b>{label[edge.source]}</b> ✕ <b>{label[edge.target]}</b><br>" + _(
                "conflict: both hold %(tokens)s"
            ) % {"tokens": plain(", ".join(edge.labels))}
            symbol, colour = "x-thin-open", "rgba(220,38,38,0.6)"
        dim = bool(highlighted) and not (edge.source in highlighted and edge.target in highlighted)
        colour = "rgba(148,163,184,0.35)" if dim else colour
        if webgl:
            # No arrowheads in WebGL: one hover point per edge keeps a big map's JSON small.
            group["x"].append(round(points[1][0], 3))
            group["y"].append(round(points[1][1], 3))
            group["text"].append(text)
            group["colour"].append(colour)
            continue
        for (x, y), size in zip([*points, (None, None)], (0, 9, 0), strict=True):
            group["x"].append(None if x is None else round(x, 4))
            group["y"].append(None if y is None else round(y, 4))
            group["text"].append(text if x is not None else "")
            group["symbol"].append(symbol)
            group["colour"].append(colour)
            group["size"].append(size)
    traces = []
    for style, group in groups.items():
        trace = {
            "type": "scattergl" if webgl else "scatter",
            "x": group["x"],
            "y": group["y"],
            "mode": "markers",
            "marker": {
                "symbol": group["symbol"] or "circle",
                "color": group["colour"],
                "size": group["size"] or 5,
            },
            "hovertext": group["text"],
            "hoverinfo": "text",
            "showlegend": False,
            "legendgroup": style,
            "uid": f"edge-markers-{style}",
            "name": "",
        }
        if not webgl:
            trace["marker"]["angleref"] = "previous"
            if hide_optional and style == "accepts":
                trace["visible"] = "legendonly"
        traces.append(trace)
    if counts["x"] and len(counts["x"]) <= COUNT_LABELS_UP_TO:
        # How many contracts a bundle stands for, written on the edge.
        traces.append(
            {
                "type": "scatter",
                "x": [round(x, 4) for x in counts["x"]],
                "y": [round(y, 4) for y in counts["y"]],
                "mode": "text",
                "text": counts["text"],
                "textfont": {"size": 10, "color": "#1d4ed8"},
                "hoverinfo": "skip",
                "showlegend": False,
                "uid": "edge-counts",
                "name": "",
            }
        )
    return traces


def _legend_traces(catalog: MapCatalog, symbol_of: Mapping[str, str]) -> list[dict[str, Any]]:
    """Legend-only entries for the marker shapes: empty traces cost nothing."""
    return [
        {
            "type": "scatter",
            "x": [None],
            "y": [None],
            "name": plain(name),
            "mode": "markers",
            "marker": {"symbol": symbol_of[key], "color": "#94a3b8", "size": 10},
            "hoverinfo": "skip",
            "legendgroup": f"point-{key}",
        }
        for key, name in catalog.points.items()
    ]


def _layout(catalog: MapCatalog, layout: MapLayout, shown: Sequence[Row]) -> dict[str, Any]:
    shapes: list[dict[str, Any]] = []
    annotations: list[dict[str, Any]] = []
    pad = 0.9
    # Only the bands that hold a shown row are drawn: a layer or a stack without a platform
    # is not two-thirds empty space.
    by_id = {node.row_id: node for node in layout.nodes}
    used = sorted({min(int(by_id[row.id].y), len(BANDS) - 1) for row in shown if row.id in by_id})
    low, high = (used[0], used[-1] + 1) if used else (0, len(BANDS))
    for index, band in enumerate(BANDS):
        if not low <= index < high:
            continue
        shapes.append(
            {
                "type": "rect",
                "xref": "paper",
                "x0": 0,
                "x1": 1,
                "y0": index,
                "y1": index + 1,
                "fillcolor": BAND_FILLS[band],
                "line": {"width": 0},
                "layer": "below",
            }
        )
        annotations.append(
            {
                "xref": "paper",
                "x": 0.005,
                "y": index + 0.985,
                "xanchor": "left",
                "yanchor": "top",
                "text": f"<b>{plain(catalog.layers.get(band, band))}</b>",
                "showarrow": False,
                "font": {"size": 13, "color": LAYER_COLOURS[band]},
            }
        )
    boundaries = (
        _(
            "boundary · the data plane offers resource units and signals; "
            "the control plane governs with them"
        ),
        _("boundary · the platform packages both into an operable product"),
    )
    for height, text in zip((1, 2), boundaries, strict=True):
        if not low < height < high:
            continue
        shapes.append(
            {
                "type": "line",
                "xref": "paper",
                "x0": 0,
                "x1": 1,
                "y0": height,
                "y1": height,
                "line": {"color": "#475569", "width": 1.5, "dash": "dash"},
            }
        )
        annotations.append(
            {
                "xref": "paper",
                "x": 0.995,
                "y": height,
                "xanchor": "right",
                "yanchor": "middle",
                "text": text,
                "showarrow": False,
                "font": {"size": 11, "color": "#334155"},
                "bgcolor": "rgba(255,255,255,0.92)",
                "bordercolor": "#94a3b8",
                "borderwidth": 1,
                "borderpad": 3,
            }
        )
    for column in layout.columns[1:]:
        shapes.append(
            {
                "type": "line",
                "x0": column.x0 - 0.4,
                "x1": column.x0 - 0.4,
                "y0": 0,
                "y1": 3,
                "line": {"color": "#cbd5e1", "width": 1, "dash": "dot"},
                "layer": "below",
            }
        )
    # Wrapped labels need about 88 px per lane; big unlabelled maps keep a screen-sized height.
    labelled = len(catalog.rows) <= LABELS_UP_TO
    bands = high - low
    height = max(200 * bands + 200, bands * layout.lanes * 88 + 150) if labelled else 780
    if not shown:
        annotations.append(
            {
                "xref": "paper",
                "x": 0.5,
                "y": 1.5,
                "text": _("No placement row matches")
                if catalog.rows
                else _("The catalog is empty"),
                "showarrow": False,
                "font": {"size": 15, "color": "#5b6477"},
            }
        )
    return {
        "xaxis": {
            "range": [-pad, layout.width + pad],
            "tickvals": [round(column.centre, 3) for column in layout.columns],
            "ticktext": [plain(catalog.units.get(c.unit, c.unit)) for c in layout.columns],
            "showgrid": False,
            "zeroline": False,
            "fixedrange": False,
            "tickfont": {"size": 11, "color": "#334155"},
            "title": {
                "text": _("resource unit (a row sits with its coarsest unit)"),
                "font": {"size": 11, "color": "#5b6477"},
            },
        },
        "yaxis": {
            "range": [low - 0.02, high + 0.02],
            "showticklabels": False,
            "showgrid": False,
            "zeroline": False,
        },
        "shapes": shapes,
        "annotations": annotations,
        "showlegend": True,
        "legend": {
            "orientation": "h",
            "x": 0,
            # Just under the axis title, whatever the figure's height.
            "y": -64 / (height - 12 - 96),
            "yanchor": "top",
            "font": {"size": 11},
            # Groups would stack the horizontal legend into a column.
            "traceorder": "normal",
        },
        "hovermode": "closest",
        "hoverlabel": {"bgcolor": "#ffffff", "font": {"size": 12, "family": FONT}},
        "dragmode": "pan",
        "margin": {"l": 12, "r": 12, "t": 12, "b": 96},
        "paper_bgcolor": "#ffffff",
        "plot_bgcolor": "#ffffff",
        "font": {"family": FONT, "color": "#0f172a"},
        "uirevision": "map",
        "height": height,
    }


@dataclass(frozen=True)
class MapView:
    """A built map: the figure plus what the page needs to describe its nodes."""

    figure: dict[str, Any]  # plain Plotly JSON: validating thousands of points costs seconds
    layout: MapLayout
    shown: tuple[Row, ...]
    catalog: MapCatalog
    highlighted: frozenset[str]
    contracts: Contracts = Contracts((), ())
    pools: Mapping[str, str] = field(default_factory=dict)  # row id -> node pool name
    conflicts_drawn: bool = True
    row_pools: Mapping[str, tuple[str, ...]] = field(default_factory=dict)  # every pool of a row
