"""What a report says: the evaluation gathered into the template context, rendered to PDF."""

from __future__ import annotations

import base64
import hashlib
import logging
import threading
import warnings
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from django.core.cache import cache
from django.template.loader import render_to_string
from django.utils import timezone, translation
from django.utils.translation import gettext as _

from catalog.engine.compatibility import compute_matrix
from catalog.engine.oracle import VERDICTS
from catalog.engine.rows import Row
from catalog.evidence import evidence_label
from catalog.matrix.figure import verdict_labels
from catalog.models import EnforcementPoint, Function, Layer, PlacementRow
from catalog.selectors import catalog_revision, engine_rows
from ecomap.gcpause import gc_paused
from evaluations import selectors
from evaluations.audit.selectors import audit_for
from evaluations.engine.misjudge import DIFFERENT_JOBS, NO_COMMON_UNIT
from evaluations.models import Evaluation, Step
from evaluations.reports.changes import changes_since_approval
from evaluations.reports.curves_picture import capacity_chapter
from evaluations.reports.deployed import deployed_state
from evaluations.reports.lists import audit_runs, text_items
from evaluations.reports.map_picture import SIZE as MAP_PRINT_SIZE
from evaluations.reports.map_picture import map_print_image
from evaluations.reports.matrix_picture import matrix_picture
from evaluations.review.choices import Verdict
from evaluations.steps.fleet_words import (
    FLEET_LABELS,
    fleet_in_words,
    time_windows_in_words,
    workload_isolation_in_words,
)
from evaluations.steps.forms import (
    CROSS_TENANT_CHOICES,
    FAILURE_CHOICES,
    ISOLATION_CHOICES,
    LEVEL_CHOICES,
    OBJECTIVE_CHOICES,
    PRIORITY_LABELS,
    TENANCY_CHOICES,
    WORKLOAD_CHOICES,
)
from evaluations.steps.mix_forms import workload_mix_in_words

logger = logging.getLogger(__name__)
TEMPLATE = "evaluations/report/report.html"
LAYER_ORDER = {"platform": 0, "control_plane": 1, "data_plane": 2}
# One glyph per verdict in the matrix grid (DejaVu Sans has them all); the legend names them.
VERDICT_MARKS = {
    "contains": "⊃",
    "conflicts": "✗",
    "composes": "⇄",
    "competes": "≈",
    "incomparable": "≠",
    "complements": "+",
    "independent": "·",
}
AUTHOR_ACTIONS = ("created", "step_saved", "decided")
# evidence_label says "repository · file"; the report says the repository once per line.
EVIDENCE_SEPARATOR = " · "
ALIKE = (NO_COMMON_UNIT, DIFFERENT_JOBS)


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
    gb = profile.get("gpu_memory_gb")

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
    ] + [
        # The cluster facts are optional: shown when answered, never as "not answered".
        (label, str(value))
        for label, value in (
            (_("Number of tenants"), profile.get("tenant_count")),
            (
                _("GPUs shared between tenants"),
                _choice_labels(CROSS_TENANT_CHOICES).get(profile.get("cross_tenant_sharing")),
            ),
            (
                _("Isolation per workload type"),
                workload_isolation_in_words(profile.get("workload_isolation")),
            ),
            (_("GPU model"), profile.get("gpu_model")),
            (_("Memory per GPU"), gb and _("{count} GB").format(count=gb)),
            (_("GPU nodes"), profile.get("node_count")),
            (_("GPUs per node"), profile.get("gpus_per_node")),
            (_("Workload mix"), workload_mix_in_words(profile.get("workload_mix"))),
            (_("When each workload runs"), time_windows_in_words(profile.get("time_windows"))),
            *(
                (str(FLEET_LABELS[name]), fleet_in_words(name, profile.get(name)))
                for name in ("node_groups", "tenants", "installed")
            ),
        )
        if value
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
        return {"rows": [], "counts": []}
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
    picture, width = matrix_picture(grid)
    return {
        "rows": grid,
        "counts": [(verdict_labels().get(v, v), n) for v, n in counts.items() if n],
        "uri": _jpeg_uri(picture),
        "width_mm": round(width, 1),
    }


MAP_CACHE_SECONDS = 7 * 24 * 3600


def _map_key(revision: int, rows: Sequence[Row], highlight: Sequence[str]) -> str:
    """One drawn map per catalog revision, language, rows shown and rows highlighted: a report
    built again with the same candidates (after a review, say) does not start Chromium."""
    what = repr((sorted(row.id for row in rows), sorted(highlight), MAP_PRINT_SIZE))
    digest = hashlib.blake2b(what.encode(), digest_size=12).hexdigest()
    return f"report:map:v4:{revision}:{translation.get_language()}:{digest}"


def _map_image(
    rows: Sequence[Row], highlight: Sequence[str], revision: int | None = None
) -> tuple[str, str]:
    """The map's own figure as a JPEG data URI, or an error text when it cannot be drawn."""
    if not rows:
        return "", ""
    key = _map_key(revision, rows, highlight) if revision is not None else ""
    picture = cache.get(key) if key else None
    if picture is not None:
        return _jpeg_uri(picture), ""
    try:
        _kaleido_server()
        with warnings.catch_warnings():
            # plotly passes options a running kaleido server ignores, and says so each time
            warnings.filterwarnings("ignore", "The kopts argument", UserWarning)
            picture = map_print_image(rows=rows, highlight=highlight)
    except Exception as exc:  # kaleido drives a browser: any failure must not sink the report
        logger.exception("the map could not be drawn for a report")
        return "", f"{type(exc).__name__}: {exc}"[:300]
    if key:
        cache.set(key, picture, MAP_CACHE_SECONDS)
    return _jpeg_uri(picture), ""


def _jpeg_uri(picture: bytes) -> str:
    return "data:image/jpeg;base64," + base64.b64encode(picture).decode()


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
    """Sources per project (its rows mostly cite the same ones), each address once, grouped by
    the repository or site they are in: `catalog.evidence.evidence_label` names a link
    "repository · file"; the repository is said once per line, each file is a link."""
    projects: dict[str, dict[str, Any]] = {}
    for card in cards:
        project = projects.setdefault(
            card.row.project.slug,
            {"name": card.row.project.name, "numbers": [], "seen": set(), "places": {}},
        )
        project["numbers"].append(card.number)
        for item in card.row.evidence or []:
            url = item.get("url", "") if isinstance(item, dict) else str(item)
            if not url or url in project["seen"]:
                continue
            project["seen"].add(url)
            where, _dot, label = evidence_label(url).partition(EVIDENCE_SEPARATOR)
            title = item.get("title", "") if isinstance(item, dict) else ""
            claim = item.get("claim", "") if isinstance(item, dict) else ""
            project["places"].setdefault(where, []).append(
                {"url": url, "label": title or label or where, "claim": claim}
            )
    return [
        {
            "name": project["name"],
            "numbers": project["numbers"],
            "places": [
                {"where": where, "links": links} for where, links in project["places"].items()
            ],
            "count": len(project["seen"]),
        }
        for project in projects.values()
        if project["seen"]
    ]


@dataclass
class ConflictGroup:
    """Candidates that each need one exclusive thing (a node's GPUs, say): the pairs among them
    cannot share a node pool. `complete` when every pair of them conflicts."""

    tokens: str
    refs: list[str] = field(default_factory=list)
    pairs: list[tuple[str, str]] = field(default_factory=list)
    numbers: dict[str, int] = field(default_factory=dict)

    @property
    def members(self) -> list[tuple[int | None, str]]:
        return [(self.numbers.get(ref), ref) for ref in self.refs]

    @property
    def numbered_pairs(self) -> list[tuple[int | None, str, int | None, str]]:
        return [(self.numbers.get(a), a, self.numbers.get(b), b) for a, b in self.pairs]

    @property
    def complete(self) -> bool:
        return len(self.pairs) == len(self.refs) * (len(self.refs) - 1) // 2


def _conflict_groups(
    conflicts: Sequence, numbers: dict[str, int]
) -> tuple[list, list[ConflictGroup]]:
    """Conflicts inside a decided pool (each breaks the decision: said in full), and the rest
    grouped by the exclusive thing the pair cannot share: fifty alike sentences become a few
    lines. A pair that shares two such things is in both groups."""
    broken = [conflict for conflict in conflicts if conflict.pools]
    groups: dict[str, ConflictGroup] = {}
    for conflict in conflicts:
        if conflict.pools:
            continue
        for token in conflict.tokens:
            group = groups.setdefault(token, ConflictGroup(token, numbers=numbers))
            group.pairs.append((conflict.a, conflict.b))
            for ref in (conflict.a, conflict.b):
                if ref not in group.refs:
                    group.refs.append(ref)
    for group in groups.values():
        group.refs.sort(key=lambda ref: (numbers.get(ref, 0), ref))
    return broken, sorted(groups.values(), key=lambda group: (-len(group.refs), group.tokens))


def _links_between(facts, names: dict[str, str]) -> dict[str, list[dict[str, Any]]]:
    """The project pairs that are not alternatives, by relation: for a composing pair which
    way the contracts run and through which interfaces; the others are alike and named only."""
    out: dict[str, list[dict[str, Any]]] = {"composes": [], "incomparable": [], "complements": []}
    for verdict, pairs in (
        ("composes", facts.composing),
        ("incomparable", facts.incomparable),
        ("complements", facts.complementing),
    ):
        for pair in pairs:
            first, second = (names.get(slug, slug) for slug in pair.projects)
            interfaces = sorted({link.interface for link in pair.links})
            providers = {link.provider.split("/")[0] for link in pair.links}
            forward, backward = pair.projects[0] in providers, pair.projects[1] in providers
            out[verdict].append(
                {
                    "first": first,
                    "second": second,
                    "arrow": "⇄" if forward and backward else "←" if backward else "→",
                    "interfaces": interfaces[:2],
                    "more": max(len(interfaces) - 2, 0),
                }
            )
    return out


@dataclass
class PairsOf:
    """Pairs listed by their first member: `a ≠ b, c, d` reads faster than three pairs."""

    ref: str
    others: list[str]


def _by_first(pairs) -> dict[str, Any]:
    """The pairs grouped by their first member, and how many pairs there are."""
    grouped: dict[str, list[str]] = {}
    count = 0
    for first, *rest in pairs:
        grouped.setdefault(first, []).extend(rest)
        count += 1
    return {"count": count, "rows": [PairsOf(ref, others) for ref, others in grouped.items()]}


def report_context(
    *, evaluation: Evaluation, with_map: bool = True, with_cards: bool = False, progress=None
) -> dict[str, Any]:
    """Everything the report template shows, read through the evaluation selectors.

    The body lists the candidates one line each, with the boundaries the team rewrote in full;
    `with_cards` adds every candidate's full placement card as an appendix (about a page per
    four candidates)."""
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
    map_uri, map_error = _map_image(map_rows, decided, revision) if with_map else ("", "")
    progress(40)

    try:
        recommendations = selectors.recommendations_for(evaluation=evaluation, limit=3)
        recommendation_error = ""
    except ValueError as exc:
        recommendations, recommendation_error = [], str(exc)
    reviews = list(selectors.reviews_for(evaluation))
    audit = list(audit_for(evaluation, limit=200))
    layer_names = {layer.key: layer.name for layer in Layer.objects.all()}
    point_names = {point.key: point.name for point in EnforcementPoint.objects.all()}
    broken_conflicts, conflict_groups = _conflict_groups(comparison.facts.conflicts, numbers)
    project_names = {card.row.project.slug: card.row.project.name for card in cards}
    progress(50)
    return {
        "evaluation": evaluation,
        "language": translation.get_language() or "en",
        # fontconfig knows zh-CN, not zh-Hans: under "zh-hans" any text set in a generic family
        # falls back to the first face of the Noto CJK collection, the Japanese one.
        "html_lang": "zh-CN" if (translation.get_language() or "").startswith("zh") else "en",
        "generated_at": timezone.now(),
        "catalog_revision": revision,
        "state_label": evaluation.get_state_display(),
        "people": _people(evaluation, audit, reviews),
        "profile": profile_rows(evaluation.profile or {}),
        "units": list(evaluation.units.select_related("unit")),
        "cards": cards,
        "with_cards": with_cards,
        "edited_cards": [card for card in cards if card.edited],
        "numbers": numbers,
        "map_uri": map_uri,
        "map_error": map_error,
        "map_drawn": with_map,
        "matrix": _matrix(candidate_rows, numbers),
        "verdict_legend": [
            (verdict, mark, verdict_labels()[verdict]) for verdict, mark in VERDICT_MARKS.items()
        ],
        "groups": comparison.groups,
        "facts": comparison.facts,
        "independent_count": len(comparison.facts.independent),
        "broken_conflicts": broken_conflicts,
        "conflict_groups": conflict_groups,
        # Same-layer pairs with no common unit, or doing different jobs, are many and alike:
        # listed as pairs, said once.
        "misjudgements": [m for m in comparison.misjudgements if m.kind not in ALIKE],
        "unit_mismatches": _by_first(
            m.rows for m in comparison.misjudgements if m.kind == NO_COMMON_UNIT
        ),
        "job_mismatches": _by_first(
            m.rows for m in comparison.misjudgements if m.kind == DIFFERENT_JOBS
        ),
        "links_between": _links_between(comparison.facts, project_names),
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
        "risk_items": text_items(decision.risks) if decision else [],
        "check_items": text_items(decision.acceptance_checks) if decision else [],
        "reviews": reviews,
        # A voided approval (its reviewer left the team or lost the role) approved nothing.
        "approvals": [r for r in reviews if r.verdict == Verdict.APPROVE and not r.voided_at],
        "audit": audit_runs(audit),
        "step_labels": {key: str(label) for key, label in Step.choices},
        "layer_names": layer_names,
        "point_names": point_names,
        "evidence": _evidence(cards),
        **capacity_chapter(evaluation),  # the last capacity run for step 1 as it is now
        **deployed_state(evaluation),  # the attached cluster snapshot's chapter, if any
        **changes_since_approval(evaluation),  # a re-review's appendix, if any
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


@gc_paused()
def render_report(context: dict[str, Any]) -> RenderedReport:
    """The report template through WeasyPrint: the PDF and its page count. The cyclic garbage
    collector waits meanwhile: WeasyPrint allocates a box tree of some hundred thousand objects,
    and each burst of allocations walked all of them again (a sixth of the build time)."""
    from weasyprint import HTML  # imported here: loading pango costs ~0.3 s at start-up

    html = render_to_string(TEMPLATE, context)
    document = HTML(string=html, base_url=None, url_fetcher=report_url_fetcher()).render()
    return RenderedReport(pdf=document.write_pdf(), pages=len(document.pages))


def render_report_pdf(context: dict[str, Any]) -> bytes:
    """The PDF bytes of a report context (no database writes): for the command and the bench."""
    return render_report(context).pdf
