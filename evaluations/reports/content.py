"""What a report says: the evaluation gathered into the template context, rendered to PDF."""

from __future__ import annotations

import base64
import logging
import threading
import warnings
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from django.template.loader import render_to_string
from django.utils import timezone, translation
from django.utils.translation import gettext as _

from catalog.engine.compatibility import compute_matrix
from catalog.engine.oracle import VERDICTS
from catalog.engine.rows import Row
from catalog.map.figure import map_svg
from catalog.models import EnforcementPoint, Function, Layer, PlacementRow
from catalog.selectors import catalog_revision, engine_rows
from evaluations import selectors
from evaluations.engine.misjudge import NO_COMMON_UNIT
from evaluations.forms import (
    FAILURE_CHOICES,
    ISOLATION_CHOICES,
    LEVEL_CHOICES,
    OBJECTIVE_CHOICES,
    PRIORITY_LABELS,
    TENANCY_CHOICES,
    WORKLOAD_CHOICES,
)
from evaluations.models import Evaluation, Step, Verdict
from evaluations.reports.matrix_svg import matrix_svg

logger = logging.getLogger(__name__)
TEMPLATE = "evaluations/report/report.html"
LAYER_ORDER = {"platform": 0, "control_plane": 1, "data_plane": 2}
# One glyph per verdict in the matrix grid (DejaVu Sans has them all); the legend names them.
VERDICT_MARKS = {
    "conflicts": "✗",
    "composes": "⇄",
    "competes": "≈",
    "incomparable": "≠",
    "complements": "+",
    "independent": "·",
}
MAP_SIZE = (960, 640)
AUTHOR_ACTIONS = ("created", "step_saved", "decided")


# ---- gathering ----------------------------------------------------------------------------------


def _choice_labels(*choices: Sequence[tuple[str, Any]]) -> dict[str, str]:
    return {key: str(label) for group in choices for key, label in group}


def profile_rows(profile: dict[str, Any]) -> list[tuple[str, str]]:
    """The step-1 answers as (question, answer) in words; unanswered ones say so."""
    words = _choice_labels(
        WORKLOAD_CHOICES,
        OBJECTIVE_CHOICES,
        FAILURE_CHOICES,
        TENANCY_CHOICES,
        ISOLATION_CHOICES,
    )
    levels = _choice_labels(LEVEL_CHOICES)
    missing = _("not answered")
    target = profile.get("p99_target_ms")

    def said(key: str, table: dict[str, str] = words) -> str:
        value = profile.get(key)
        return table.get(value, str(value)) if value else missing

    return [
        (
            _("Workload types"),
            ", ".join(words.get(v, v) for v in profile.get("workload_types") or []) or missing,
        ),
        (_("Primary objective"), said("primary_objective")),
        (_("P99 target"), f"{target:g} ms" if isinstance(target, int | float) else missing),
        (_("Jitter tolerance"), said("jitter_tolerance", levels)),
        (_("Isolation requirement"), said("isolation")),
        (_("A failure is"), said("failure_semantics")),
        (_("Tenancy"), said("tenancy")),
        (
            _("Priorities, most important first"),
            " › ".join(str(PRIORITY_LABELS.get(p, p)) for p in profile.get("priorities") or [])
            or missing,
        ),
    ]


@dataclass
class Card:
    """A candidate's placement card: the catalog row as the team confirmed it."""

    number: int
    ref: str
    row: PlacementRow
    points: list[str]
    points_confirmed: bool
    alternative_group: str
    promise: str
    non_promise: str
    edited: bool
    units: list[str]
    functions: list[str]
    costs: list[tuple[str, str, str]]
    contracts: dict[str, list[str]]
    decided: bool


def _cards(candidates, decided: set[str]) -> list[Card]:
    cost_names = {
        "performance": _("performance overhead"),
        "reconfiguration": _("reconfiguration cost"),
        "intrusiveness": _("intrusiveness"),
        "compatibility": _("compatibility cost"),
    }
    function_names = {term.key: term.name for term in Function.objects.all()}
    cards = []
    for number, candidate in enumerate(candidates, start=1):
        row = candidate.row
        contracts: dict[str, list[str]] = defaultdict(list)
        for contract in row.contracts.all():
            contracts[contract.relation].append(contract.interface.identifier)
        costs = [
            (
                str(cost_names[aspect]),
                str(dict(LEVEL_CHOICES).get(value["level"], "")),
                value["note"],
            )
            for aspect, value in row.costs().items()
        ]
        cards.append(
            Card(
                number=number,
                ref=row.ref,
                row=row,
                points=[point.name for point in candidate.enforcement_points.all()],
                points_confirmed=candidate.points_confirmed,
                alternative_group=candidate.alternative_group,
                promise=candidate.boundary_promise,
                non_promise=candidate.boundary_non_promise,
                edited=bool(candidate.promise or candidate.non_promise),
                units=[unit.name for unit in row.resource_units.all()],
                functions=[function_names.get(key, key) for key in row.functions],
                costs=costs,
                contracts=dict(contracts),
                decided=row.ref in decided,
            )
        )
    return cards


def _matrix(rows: Sequence[Row], numbers: dict[str, int]) -> dict[str, Any]:
    """The candidates' compatibility matrix as a grid: one glyph per pair, layers grouped."""
    ordered = sorted(rows, key=lambda row: (LAYER_ORDER.get(row.layer, 9), row.id))
    if len(ordered) < 2:
        return {"rows": [], "counts": {}}
    result = compute_matrix(ordered)
    same = result.same_project
    grid, counts = [], dict.fromkeys(VERDICTS, 0)
    for i, row in enumerate(ordered):
        cells = []
        for j in range(len(ordered)):
            if i == j:
                cells.append({"mark": "", "verdict": "self"})
                continue
            verdict = result.verdict_of(i, j) or ""
            if i < j:
                counts[verdict] = counts.get(verdict, 0) + 1
            if same[i, j]:
                cells.append({"mark": "=", "verdict": "same", "title": verdict})
            else:
                cells.append({"mark": VERDICT_MARKS.get(verdict, "?"), "verdict": verdict})
        grid.append({"number": numbers.get(row.id, i + 1), "label": row.label, "cells": cells})
    svg, width = matrix_svg(grid)
    return {
        "rows": grid,
        "counts": {v: n for v, n in counts.items() if n},
        "uri": "data:image/svg+xml;base64," + base64.b64encode(svg.encode()).decode(),
        "width_mm": round(width, 1),
    }


def _map_image(rows: Sequence[Row], highlight: Sequence[str]) -> tuple[str, str]:
    """The map's own figure as an SVG data URI, or an error text when it cannot be drawn."""
    if not rows:
        return "", ""
    try:
        _kaleido_server()
        with warnings.catch_warnings():
            # plotly passes options a running kaleido server ignores, and says so each time
            warnings.filterwarnings("ignore", "The kopts argument", UserWarning)
            svg = map_svg(
                rows=rows,
                highlight=highlight,
                language=translation.get_language(),
                # narrower than the page's figure, so its labels stay legible at A4 width
                width=MAP_SIZE[0],
                height=MAP_SIZE[1],
            )
    except Exception as exc:  # kaleido drives a browser: any failure must not sink the report
        logger.exception("the map could not be drawn for a report")
        return "", f"{type(exc).__name__}: {exc}"[:300]
    return "data:image/svg+xml;base64," + base64.b64encode(svg.encode()).decode(), ""


_kaleido_lock = threading.Lock()
_kaleido_started = False


def _kaleido_server() -> None:
    """Start kaleido's browser once per process (a cold export costs seconds, a warm one ~0.3)."""
    global _kaleido_started
    with _kaleido_lock:
        if _kaleido_started:
            return
        import kaleido

        # kaleido and its browser driver log every export at INFO, and again from atexit after
        # a test runner closed the streams; their warnings and errors still come through.
        for name in ("kaleido", "choreographer"):
            logging.getLogger(name).setLevel(logging.WARNING)
        kaleido.start_sync_server(silence_warnings=True)
        _kaleido_started = True


def _people(evaluation: Evaluation, audit: Sequence, reviews: Sequence) -> dict[str, list[str]]:
    authors = [evaluation.created_by.get_username()] if evaluation.created_by else []
    for entry in reversed(audit):
        name = entry.actor.get_username() if entry.actor else ""
        if entry.action in AUTHOR_ACTIONS and name and name not in authors:
            authors.append(name)
    reviewers: list[str] = []
    for review in reversed(reviews):
        name = review.reviewer.get_username() if review.reviewer else ""
        if name and name not in reviewers:
            reviewers.append(name)
    return {"authors": authors, "reviewers": reviewers}


def _evidence(cards: Sequence[Card]) -> list[dict[str, Any]]:
    out = []
    for card in cards:
        links = []
        for item in card.row.evidence or []:
            url = item.get("url", "") if isinstance(item, dict) else str(item)
            if url:
                claim = item.get("claim", "") if isinstance(item, dict) else ""
                links.append({"url": url, "claim": claim})
        if links:
            out.append({"card": card, "links": links})
    return out


def report_context(
    *, evaluation: Evaluation, with_map: bool = True, progress=None
) -> dict[str, Any]:
    """Everything the report template shows, read through the evaluation selectors."""
    progress = progress or (lambda percent: None)
    evaluation = Evaluation.objects.select_related("team", "created_by").get(pk=evaluation.pk)
    revision = catalog_revision()
    decision = getattr(evaluation, "decision", None)
    decided = list(decision.rows) if decision else []
    comparison = selectors.comparison_for(evaluation)
    candidates = comparison.candidates
    cards = _cards(candidates, set(decided))
    numbers = {card.ref: card.number for card in cards}
    progress(15)

    candidate_rows = selectors.candidate_engine_rows(candidates)
    # The map shows the candidates and the decided stack (which may include rows not put up).
    extra = selectors.placement_rows_by_ref(ref for ref in decided if ref not in numbers)
    map_rows = candidate_rows + (
        engine_rows(rows=PlacementRow.objects.filter(pk__in=[row.pk for row in extra.values()]))
        if extra
        else []
    )
    map_uri, map_error = _map_image(map_rows, decided) if with_map else ("", "")
    progress(40)

    try:
        recommendations = selectors.recommendations_for(evaluation=evaluation, limit=3)
        recommendation_error = ""
    except ValueError as exc:
        recommendations, recommendation_error = [], str(exc)
    reviews = list(selectors.reviews_for(evaluation))
    audit = list(selectors.audit_for(evaluation, limit=200))
    layer_names = {layer.key: layer.name for layer in Layer.objects.all()}
    point_names = {point.key: point.name for point in EnforcementPoint.objects.all()}
    progress(50)
    return {
        "evaluation": evaluation,
        "language": translation.get_language() or "en",
        "generated_at": timezone.now(),
        "catalog_revision": revision,
        "state_label": evaluation.get_state_display(),
        "people": _people(evaluation, audit, reviews),
        "profile": profile_rows(evaluation.profile or {}),
        "units": list(evaluation.units.select_related("unit")),
        "cards": cards,
        "numbers": numbers,
        "map_uri": map_uri,
        "map_error": map_error,
        "map_drawn": with_map,
        "matrix": _matrix(candidate_rows, numbers),
        "verdict_marks": VERDICT_MARKS,
        "groups": comparison.groups,
        "facts": comparison.facts,
        "independent_count": len(comparison.facts.independent),
        # Same-layer pairs with no common unit are many and alike: listed as pairs, said once.
        "misjudgements": [m for m in comparison.misjudgements if m.kind != NO_COMMON_UNIT],
        "unit_mismatches": [m.rows for m in comparison.misjudgements if m.kind == NO_COMMON_UNIT],
        "recommendations": recommendations,
        "recommendation_error": recommendation_error,
        "decision": decision,
        "decision_rows": [
            {
                "ref": ref,
                "number": numbers.get(ref),
                "pools": [name for name, refs in (decision.pools or {}).items() if ref in refs],
            }
            for ref in decided
        ],
        "stack_report": selectors.decision_report(evaluation),
        "reviews": reviews,
        "approvals": [r for r in reviews if r.verdict == Verdict.APPROVE],
        "audit": audit,
        "step_labels": {key: str(label) for key, label in Step.choices},
        "layer_names": layer_names,
        "point_names": point_names,
        "evidence": _evidence(cards),
    }


# ---- rendering ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class RenderedReport:
    pdf: bytes
    pages: int


def report_url_fetcher():
    """What WeasyPrint may load: only `data:` URLs (the map and the matrix are embedded so).
    Catalog and evaluation text is untrusted; `file:` or `http:` must never be reachable, even
    if a value slipped past template escaping."""
    from weasyprint.urls import URLFetcher

    return URLFetcher(allowed_protocols={"data"}, allow_redirects=False, timeout=5)


def render_report(context: dict[str, Any]) -> RenderedReport:
    """The report template through WeasyPrint: the PDF and its page count."""
    from weasyprint import HTML  # imported here: loading pango costs ~0.3 s at start-up

    html = render_to_string(TEMPLATE, context)
    document = HTML(string=html, base_url=None, url_fetcher=report_url_fetcher()).render()
    return RenderedReport(pdf=document.write_pdf(), pages=len(document.pages))


def render_report_pdf(context: dict[str, Any]) -> bytes:
    """The PDF bytes of a report context (no database writes): for the command and the bench."""
    return render_report(context).pdf
