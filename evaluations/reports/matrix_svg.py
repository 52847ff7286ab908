"""The report's compatibility matrix as one SVG image.

A 30-candidate grid is 900 table cells: as HTML, WeasyPrint styles and lays out each of them
(a fifth of the report's build time). As an SVG it is one replaced element, drawn once, and it
scales down to the page width when there are more candidates than fit.
"""

from __future__ import annotations

from typing import Any
from xml.sax.saxutils import escape, quoteattr

# Sizes in millimetres (the SVG's user unit): label column, one square per candidate.
LABEL_MM = 52.0
CELL_MM = 4.6
FONT_MM = 2.45  # 7 pt
LABEL_CHARS = 34

# (fill, text) per cell kind; the same colours as the legend under the grid.
COLOURS = {
    "self": ("#e2e8f0", "#e2e8f0"),
    "same": ("#f1f5f9", "#475569"),
    "conflicts": ("#fecaca", "#991b1b"),
    "composes": ("#bfdbfe", "#1e3a8a"),
    "competes": ("#fde68a", "#78350f"),
    "incomparable": ("#e9d5ff", "#581c87"),
    "complements": ("#cffafe", "#155e75"),
    "independent": ("#f8fafc", "#94a3b8"),
}
UNKNOWN = ("#ffffff", "#0f172a")
# Each verdict's mark as a path around the cell's centre (unit: mm): the legend's glyphs drawn
# as lines, all cells of one verdict in one path (text marks cost a font layout each).
MARKS = {
    "conflicts": "m-0.8 -0.8l1.6 1.6m0 -1.6l-1.6 1.6",
    "composes": "m-0.9 -0.45h1.8l-0.45 -0.4m0.45 1.25h-1.8l0.45 0.4",
    "competes": "m-0.9 -0.3q0.45 -0.45 0.9 0t0.9 0m-1.8 0.75q0.45 -0.45 0.9 0t0.9 0",
    "incomparable": "m-0.9 -0.35h1.8m-1.8 0.7h1.8m-0.5 -1.25l-0.8 1.8",
    "complements": "m-0.8 0h1.6m-0.8 -0.8v1.6",
    # a dot: a short stroke with round caps (two arcs cost WeasyPrint ten times as much)
    "independent": "m-0.03 0h0.06",
    "same": "m-0.9 -0.35h1.8m-1.8 0.7h1.8",
}
GRID = "#cbd5e1"
FONT = "DejaVu Sans, Noto Sans CJK SC, sans-serif"


def _label(text: str) -> str:
    return text if len(text) <= LABEL_CHARS else text[: LABEL_CHARS - 1] + "…"


def matrix_svg(grid: list[dict[str, Any]]) -> tuple[str, float]:
    """The grid of `_matrix` (rows with a number, a label and their cells) as an SVG document,
    and its natural width in millimetres."""
    count = len(grid)
    width = LABEL_MM + CELL_MM * count
    height = CELL_MM * (count + 1)
    baseline = CELL_MM / 2 + FONT_MM * 0.36  # vertically centred text
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width:g}mm" height="{height:g}mm" '
        f'viewBox="0 0 {width:g} {height:g}" font-family="{FONT}" font-size="{FONT_MM}">',
        '<g fill="#0f172a" text-anchor="middle">',
    ]
    for column, line in enumerate(grid):
        x = LABEL_MM + CELL_MM * (column + 0.5)
        parts.append(f'<text x="{x:g}" y="{baseline:g}" font-weight="bold">{line["number"]}</text>')
    parts.append("</g>")
    # All squares of one colour are one path, as the marks are: 900 <rect> nodes cost
    # WeasyPrint a style cascade each; eight paths cost next to nothing.
    fills: dict[str, list[str]] = {}
    marks: dict[str, list[str]] = {}
    for index, line in enumerate(grid):
        y = CELL_MM * (index + 1)
        label = escape(_label(f"{line['number']} · {line['label']}"))
        parts.append(f'<text x="1" y="{y + baseline:g}" fill="#0f172a">{label}</text>')
        for column, cell in enumerate(line["cells"]):
            verdict = cell["verdict"]
            x = LABEL_MM + CELL_MM * column
            fill = COLOURS.get(verdict, UNKNOWN)[0]
            fills.setdefault(fill, []).append(f"M{x:g} {y:g}h{CELL_MM}v{CELL_MM}h-{CELL_MM}z")
            if verdict in MARKS:
                centre = f"M{x + CELL_MM / 2:.2f} {y + CELL_MM / 2:.2f}"
                marks.setdefault(verdict, []).append(centre + MARKS[verdict])
    for fill, squares in fills.items():
        parts.append(f'<path d="{"".join(squares)}" fill="{fill}"/>')
    for verdict, paths in marks.items():
        ink = COLOURS[verdict][1]
        parts.append(
            f'<path d="{"".join(paths)}" stroke="{ink}" stroke-width="0.28" fill="none" '
            'stroke-linecap="round" stroke-linejoin="round"/>'
        )
    # Grid lines last, over the fills: one path for all of them.
    lines = [f"M0 {CELL_MM * row:g}H{width:g}" for row in range(1, count + 2)]
    lines += [f"M{LABEL_MM + CELL_MM * col:g} 0V{height:g}" for col in range(count + 1)]
    parts.append(
        f'<path d={quoteattr("".join(lines))} stroke="{GRID}" stroke-width="0.14" fill="none"/>'
    )
    parts.append("</svg>")
    return "".join(parts), width
