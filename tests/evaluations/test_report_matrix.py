"""The report's matrix SVG: well-formed, one square per pair, coloured and marked by verdict."""

import re
import xml.etree.ElementTree as ET

from evaluations.reports.matrix_svg import CELL_MM, COLOURS, LABEL_MM, MARKS, matrix_svg

SVG = "{http://www.w3.org/2000/svg}"


def parse(svg: str) -> ET.Element:
    return ET.fromstring(svg)  # noqa: S314 - our own output, not untrusted input


def grid():
    verdicts = [["self", "conflicts", "composes"], ["conflicts", "self", "same"],
                ["composes", "same", "self"]]  # fmt: skip
    labels = ["A & B <scheduler>", "HAMi device-plugin", "x" * 60]
    return [
        {
            "number": index + 1,
            "label": labels[index],
            "cells": [{"verdict": v, "mark": "" if v == "self" else "?"} for v in row],
        }
        for index, row in enumerate(verdicts)
    ]


def test_it_is_well_formed_and_sized_for_its_candidates():
    svg, width = matrix_svg(grid())

    root = parse(svg)
    assert width == LABEL_MM + 3 * CELL_MM
    assert root.get("width") == f"{width:g}mm"
    assert sum(len(squares(path)) for path in fills(root).values()) == 9


def test_labels_are_escaped_and_cut_to_fit():
    root = parse(matrix_svg(grid())[0])

    texts = [t.text for t in root.iter(f"{SVG}text")]
    assert "1 · A & B <scheduler>" in texts
    assert any(text.startswith("3 · xxx") and text.endswith("…") for text in texts)


def fills(root: ET.Element) -> dict[str, str]:
    """The filled paths (one per colour) by colour."""
    return {
        p.get("fill"): p.get("d") for p in root.findall(f"{SVG}path") if p.get("fill") != "none"
    }


def squares(d: str) -> list[tuple[float, float]]:
    return [(float(x), float(y)) for x, y in re.findall(r"M([\d.]+) ([\d.]+)h", d)]


def test_each_cell_has_its_verdicts_colour_and_each_verdict_one_path_of_marks():
    root = parse(matrix_svg(grid())[0])

    by_colour = fills(root)
    top = CELL_MM  # the first row of cells, under the column numbers
    # row 1, column 2 is "conflicts"; row 2, column 3 is "same"
    assert (LABEL_MM + CELL_MM, top) in squares(by_colour[COLOURS["conflicts"][0]])
    assert (LABEL_MM + 2 * CELL_MM, 2 * top) in squares(by_colour[COLOURS["same"][0]])
    assert len(squares(by_colour[COLOURS["conflicts"][0]])) == 2
    paths = {p.get("stroke"): p.get("d") for p in root.findall(f"{SVG}path")}
    assert paths[COLOURS["conflicts"][1]].count("M") == 2  # the two conflicts cells
    assert MARKS["composes"] in paths[COLOURS["composes"][1]]
