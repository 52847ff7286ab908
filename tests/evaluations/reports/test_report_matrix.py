"""The report's matrix picture: sized for its candidates, each cell in its verdict's colour with
its verdict's mark, labels that fit (Chinese ones included)."""

import io

from PIL import Image, ImageColor

from evaluations.reports.matrix_picture import (
    CELL_MM,
    COLOURS,
    LABEL_MM,
    PX_PER_MM,
    _font,
    _label,
    _needs_cjk,
    matrix_picture,
)


def grid():
    verdicts = [["self", "conflicts", "composes"], ["conflicts", "self", "same"],
                ["composes", "same", "self"]]  # fmt: skip
    labels = ["A & B <scheduler>", "海光 DCU 设备插件", "x" * 60]
    return [
        {
            "number": index + 1,
            "label": labels[index],
            "cells": [{"verdict": v, "mark": "" if v == "self" else "?"} for v in row],
        }
        for index, row in enumerate(verdicts)
    ]


def picture() -> Image.Image:
    data, _width = matrix_picture(grid())
    return Image.open(io.BytesIO(data)).convert("RGB")


def near(pixel, colour: str, tolerance: int = 24) -> bool:
    return all(
        abs(a - b) <= tolerance for a, b in zip(pixel, ImageColor.getrgb(colour), strict=True)
    )


def cell_pixel(image, row: int, column: int, dx: float, dy: float):
    """A pixel of cell (row, column), offset (mm) from its top-left corner."""
    x = (LABEL_MM + CELL_MM * column + dx) * PX_PER_MM
    y = (CELL_MM * (row + 1) + dy) * PX_PER_MM
    return image.getpixel((round(x), round(y)))


def test_it_is_a_jpeg_sized_for_its_candidates_at_print_resolution():
    data, width = matrix_picture(grid())

    image = Image.open(io.BytesIO(data))
    assert image.format == "JPEG"
    assert width == LABEL_MM + 3 * CELL_MM
    assert image.size == (round(width * PX_PER_MM), round(4 * CELL_MM * PX_PER_MM))


def test_each_cell_has_its_verdicts_colour_and_its_mark_in_the_middle():
    image = picture()

    corner = 0.6  # mm inside the cell: the fill, away from the grid line and the mark
    assert near(cell_pixel(image, 0, 1, corner, corner), COLOURS["conflicts"][0])
    assert near(cell_pixel(image, 0, 2, corner, corner), COLOURS["composes"][0])
    assert near(cell_pixel(image, 1, 2, corner, corner), COLOURS["same"][0])
    assert near(cell_pixel(image, 2, 2, corner, corner), COLOURS["self"][0])
    # the conflicts cross passes through the centre in its ink colour
    assert near(cell_pixel(image, 0, 1, CELL_MM / 2, CELL_MM / 2), COLOURS["conflicts"][1], 60)
    # a row with itself has no mark
    assert near(cell_pixel(image, 2, 2, CELL_MM / 2, CELL_MM / 2), COLOURS["self"][0])


def test_labels_are_cut_to_fit_and_chinese_ones_use_a_chinese_face():
    assert _label("3 · " + "x" * 60).endswith("…")
    assert len(_label("3 · " + "x" * 60)) == 34
    assert _needs_cjk("2 · 海光 DCU 设备插件") and not _needs_cjk("1 · A & B <scheduler>")
    chinese = _font(False, True)
    assert chinese.getbbox("设")[2] > 0  # the face has the glyph (no empty box)
    assert "CJK" in chinese.getname()[0]
