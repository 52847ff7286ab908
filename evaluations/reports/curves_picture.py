"""The report's capacity chapter: the sized stacks of the evaluation's last capacity run for step
1 as it is now, and their curves as one small SVG (a handful of polylines per stack, embedded as
a `data:` URL, the only kind the report's fetcher loads)."""

from __future__ import annotations

import base64
from collections.abc import Sequence
from typing import Any

from django.utils.html import escape
from django.utils.translation import gettext as _

from evaluations.models import Evaluation
from evaluations.simulations.figure import FRAG_COLOUR, IDEAL_COLOUR, PLACED_COLOUR
from evaluations.simulations.selectors import capacity_of_rows, capacity_panel

# One panel per stack, in SVG user units (1 unit = 0.25 mm printed at 170 mm wide).
PANEL_W, PANEL_H, GAP, LEFT, BOTTOM, TOP = 120, 90, 14, 22, 18, 14


def _points(curve: Sequence[float], x0: float, y0: float) -> str:
    width, height = PANEL_W - LEFT, PANEL_H - BOTTOM - TOP
    return " ".join(
        f"{x0 + LEFT + width * i / 130:.1f},{y0 + TOP + height * (1 - min(v, 105) / 105):.1f}"
        for i, v in enumerate(curve)
    )


def curves_svg(stacks: Sequence[dict[str, Any]]) -> str:
    """Each stack's work placed and fragmented GPUs against the work arrived (0 … 130 %)."""
    count = max(1, len(stacks))
    width = count * PANEL_W + (count - 1) * GAP + 8  # room for the last panel's "130"
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} {PANEL_H}" '
        f'font-family="sans-serif" font-size="6">'
    ]
    for index, stack in enumerate(stacks):
        x0 = index * (PANEL_W + GAP)
        left, right = x0 + LEFT, x0 + PANEL_W
        top, bottom = TOP, PANEL_H - BOTTOM
        title = _("#%(rank)s · %(alloc)s %% placed at 100 %%") % {
            "rank": stack["rank"],
            "alloc": f"{stack['alloc_at_100']:.1f}",
        }
        parts.append(
            f'<text x="{(left + right) / 2:.1f}" y="8" text-anchor="middle" font-size="7">'
            f"{escape(title)}</text>"
        )
        parts.append(
            f'<rect x="{left}" y="{top}" width="{right - left}" height="{bottom - top}" '
            'fill="none" stroke="#cbd5e1" stroke-width="0.5"/>'
        )
        for value in (0, 50, 100):
            y = top + (bottom - top) * (1 - value / 105)
            if index == 0:
                parts.append(
                    f'<text x="{left - 2}" y="{y + 2:.1f}" text-anchor="end">{value}</text>'
                )
        for value in (0, 50, 100, 130):
            x = left + (right - left) * value / 130
            parts.append(f'<text x="{x:.1f}" y="{bottom + 7}" text-anchor="middle">{value}</text>')
        ideal = _points([min(i, 100) for i in range(131)], x0, 0)
        parts.append(
            f'<polyline points="{ideal}" fill="none" stroke="{IDEAL_COLOUR}" '
            'stroke-width="0.6" stroke-dasharray="1.5,1.5"/>'
        )
        parts.append(
            f'<polyline points="{_points(stack["alloc_curve"], x0, 0)}" fill="none" '
            f'stroke="{PLACED_COLOUR}" stroke-width="1.2"/>'
        )
        parts.append(
            f'<polyline points="{_points(stack["frag_curve"], x0, 0)}" fill="none" '
            f'stroke="{FRAG_COLOUR}" stroke-width="0.9" stroke-dasharray="3,1.5"/>'
        )
    parts.append("</svg>")
    return "".join(parts)


def capacity_chapter(evaluation: Evaluation) -> dict[str, Any]:
    """The report context of the capacity chapter: the panel, its picture and the sized stack
    the decision adopted (if it is one of them)."""
    panel = capacity_panel(evaluation=evaluation, back="recommendations")
    stacks = panel["stacks"]
    decision = getattr(evaluation, "decision", None)
    uri = ""
    if stacks:
        svg = curves_svg(stacks).encode()
        uri = "data:image/svg+xml;base64," + base64.b64encode(svg).decode()
    return {
        "capacity": panel,
        "capacity_uri": uri,
        "decided_capacity": (
            capacity_of_rows(panel, decision.rows, pools=decision.pools) if decision else None
        ),
    }
