"""The report's compatibility matrix as one picture (JPEG, drawn with Pillow at print resolution).

A 30-candidate grid is 900 squares, 900 marks and 60 labels. As HTML cells WeasyPrint styled
and laid out each of them; as an SVG it still parsed and drew every path and shaped every label
(0.2 s of a 2 s report). A JPEG is embedded as it is. At 12 pixels per millimetre (about 300 dpi)
the marks and the 7 pt labels print sharp.
"""

from __future__ import annotations

import functools
import io
import shutil
import subprocess
from typing import Any

from PIL import Image, ImageDraw, ImageFont

# Sizes in millimetres: label column, one square per candidate.
LABEL_MM = 52.0
CELL_MM = 4.6
FONT_MM = 2.45  # 7 pt
LABEL_CHARS = 34
PX_PER_MM = 12

# (fill, ink) per cell kind; the same colours as the legend under the grid.
COLOURS = {
    "self": ("#e2e8f0", "#e2e8f0"),
    "same": ("#f1f5f9", "#475569"),
    "contains": ("#c7d2fe", "#1e3a8a"),
    "conflicts": ("#fecaca", "#991b1b"),
    "composes": ("#bfdbfe", "#1e3a8a"),
    "competes": ("#fde68a", "#78350f"),
    "incomparable": ("#e9d5ff", "#581c87"),
    "complements": ("#cffafe", "#155e75"),
    "independent": ("#f8fafc", "#94a3b8"),
}
UNKNOWN = ("#ffffff", "#0f172a")
GRID = "#cbd5e1"
TEXT = "#0f172a"
# Each verdict's mark as strokes around the cell's centre, in millimetres: the legend's glyphs.
MARKS: dict[str, list[list[tuple[float, float]]]] = {
    # `contains` (issue 43): a ⊃, an open arc and its two ends.
    "contains": [
        [(-0.9, -0.7), (0.3, -0.7), (0.8, -0.35), (0.9, 0), (0.8, 0.35), (0.3, 0.7), (-0.9, 0.7)]
    ],
    "conflicts": [[(-0.8, -0.8), (0.8, 0.8)], [(0.8, -0.8), (-0.8, 0.8)]],
    "composes": [
        [(-0.9, -0.45), (0.9, -0.45), (0.45, -0.85)],
        [(0.9, 0.45), (-0.9, 0.45), (-0.45, 0.85)],
    ],  # noqa: E501
    "competes": [
        [(-0.9, -0.3), (-0.45, -0.6), (0, -0.3), (0.45, 0), (0.9, -0.3)],
        [(-0.9, 0.45), (-0.45, 0.15), (0, 0.45), (0.45, 0.75), (0.9, 0.45)],
    ],  # fmt: skip
    "incomparable": [
        [(-0.9, -0.35), (0.9, -0.35)],
        [(-0.9, 0.35), (0.9, 0.35)],
        [(0.4, -0.9), (-0.4, 0.9)],
    ],  # noqa: E501
    "complements": [[(-0.8, 0), (0.8, 0)], [(0, -0.8), (0, 0.8)]],
    "same": [[(-0.9, -0.35), (0.9, -0.35)], [(-0.9, 0.35), (0.9, 0.35)]],
}
DOT_MM = 0.18  # `independent`: a dot
STROKE_MM = 0.28


def _label(text: str) -> str:
    return text if len(text) <= LABEL_CHARS else text[: LABEL_CHARS - 1] + "…"


@functools.cache
def _font_file(pattern: str) -> tuple[str, int]:
    """The font file (and face index) fontconfig picks for `pattern`, as WeasyPrint would."""
    fc_match = shutil.which("fc-match")
    if fc_match:
        found = subprocess.run(  # noqa: S603 - a fixed program and pattern
            [fc_match, "-f", "%{file}\t%{index}", pattern],
            capture_output=True,
            text=True,
            check=False,
        ).stdout
        path, _, index = found.partition("\t")
        if path:
            return path, int(index or 0)
    return "DejaVuSans.ttf", 0


@functools.cache
def _font(bold: bool, cjk: bool) -> ImageFont.FreeTypeFont:
    pattern = "Noto Sans CJK SC" if cjk else "DejaVu Sans"
    path, index = _font_file(f"{pattern}:bold" if bold else pattern)
    return ImageFont.truetype(path, round(FONT_MM * PX_PER_MM), index=index)


def _needs_cjk(text: str) -> bool:
    # DejaVu Sans covers Latin, Greek, Cyrillic and the punctuation used here; anything beyond
    # (Chinese, Japanese, Korean, fullwidth forms) is set in Noto Sans CJK.
    return any(ord(char) >= 0x2E80 for char in text)


def _px(mm: float) -> int:
    return round(mm * PX_PER_MM)


def matrix_picture(grid: list[dict[str, Any]]) -> tuple[bytes, float]:
    """The grid of `_matrix` (rows with a number, a label and their cells) as JPEG bytes, and
    its natural width in millimetres."""
    count = len(grid)
    width, height = LABEL_MM + CELL_MM * count, CELL_MM * (count + 1)
    image = Image.new("RGB", (_px(width), _px(height)), "#ffffff")
    draw = ImageDraw.Draw(image)
    stroke = max(1, _px(STROKE_MM))
    for column, line in enumerate(grid):
        centre = (_px(LABEL_MM + CELL_MM * (column + 0.5)), _px(CELL_MM / 2))
        draw.text(centre, str(line["number"]), fill=TEXT, font=_font(True, False), anchor="mm")
    for index, line in enumerate(grid):
        top = CELL_MM * (index + 1)
        label = _label(f"{line['number']} · {line['label']}")
        font = _font(False, _needs_cjk(label))
        draw.text((_px(1), _px(top + CELL_MM / 2)), label, fill=TEXT, font=font, anchor="lm")
        for column, cell in enumerate(line["cells"]):
            verdict = cell["verdict"]
            left = LABEL_MM + CELL_MM * column
            fill, ink = COLOURS.get(verdict, UNKNOWN)
            box = (_px(left), _px(top), _px(left + CELL_MM), _px(top + CELL_MM))
            draw.rectangle(box, fill=fill)
            cx, cy = left + CELL_MM / 2, top + CELL_MM / 2
            if verdict == "independent":
                r = DOT_MM
                draw.ellipse((_px(cx - r), _px(cy - r), _px(cx + r), _px(cy + r)), fill=ink)
            for points in MARKS.get(verdict, ()):
                xy = [(_px(cx + x), _px(cy + y)) for x, y in points]
                draw.line(xy, fill=ink, width=stroke, joint="curve")
    for row in range(1, count + 2):
        y = _px(CELL_MM * row)
        draw.line([(0, y), (image.width, y)], fill=GRID, width=2)
    for column in range(count + 1):
        x = _px(LABEL_MM + CELL_MM * column)
        draw.line([(x, 0), (x, image.height)], fill=GRID, width=2)
    out = io.BytesIO()
    image.save(out, "JPEG", quality=92, dpi=(PX_PER_MM * 25.4, PX_PER_MM * 25.4))
    return out.getvalue(), width
