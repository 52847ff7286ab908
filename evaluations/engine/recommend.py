"""Ranked candidate stacks for a step-1 profile: METHOD.md's decision flow, checked and scored.

Drafting (`drafting.py`) proposes stacks per shape, scoring (`scoring.py`) weighs and words
them; here the best are checked with the stack check and ranked.

The search is bounded, so a big catalog costs about what the built-in one does. Each slot of a
shape (the presenter of each pool, the control plane) keeps only its best `Budget.per_slot`
candidates by profile fit before any are combined, and the combinations are drafted best fit
first, up to `Budget.drafts` drafts and `Budget.seconds` seconds. When the budget runs out the
ranking is the best found so far, and says so (`Ranking.complete`).
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, replace
from dataclasses import replace as dataclass_replace
from itertools import product
from typing import Any

from catalog.engine.profile import Profile
from catalog.engine.rows import Row
from catalog.engine.stack import StackReport, check_stack, governed
from catalog.engine.text import Text, _
from evaluations.engine.alternatives import (
    ALTERNATIVES,
    _alternative_planes,
    _kind,
    _shape_label,
    _with_alternatives,
)
from evaluations.engine.drafting import (
    INFERENCE_POOL,
    INTERACTIVE_POOL,
    POOL_LABELS,
    SHAPES,
    TRAINING_POOL,
    _Draft,
    _draft,
    _pool_signals,
    _Slots,
    _slots,
    _weights,
)
from evaluations.engine.gpu_filter import _gpu_filter
from evaluations.engine.index import _Index
from evaluations.engine.pools import (
    acceptance_checks,
    demand_warnings,
    explanation,
    ordered,
    pool_details,
    trade_off,
)
from evaluations.engine.scoring import (
    _governor_fit,
    _presenter_fit,
    _score_draft,
    _score_report,
    _Verdict,
)

__all__ = [
    "DEFAULT_BUDGET",
    "INFERENCE_POOL",
    "INTERACTIVE_POOL",
    "POOL_LABELS",
    "RANKING_VERSION",
    "SHAPES",
    "TRAINING_POOL",
    "UNBOUNDED",
    "Budget",
    "Ranking",
    "Recommendation",
    "recommend",
]


@dataclass(frozen=True, slots=True)
class Budget:
    """How far one ranking may search.

    `per_slot` bounds the candidates combined per slot. 12 is the narrowest that leaves the
    built-in catalog's rankings as an unbounded search makes them (at 10 a top ten changed, at 8
    top fives did; tests/evaluations/engine/test_recommend_bounded.py pins them). `drafts` is
    above the built-in catalog's largest search (960 drafts) and bounds the work on a big one;
    `seconds` is the safety net. None means no bound.
    """

    per_slot: int | None = 12
    drafts: int | None = 1500
    seconds: float | None = 5.0


DEFAULT_BUDGET = Budget()
# Part of the key rankings are cached under: bump it with any change to drafting, scoring or
# the budget that can change a ranking, so no cache serves a ranking this code would not make.
RANKING_VERSION = 7
UNBOUNDED = Budget(per_slot=None, drafts=None, seconds=None)
# How many more drafts the ranking checks, once its list is full, to find the best stack of a
# shape not shown yet.
SHAPE_SEARCH = 300


class Ranking(list):
    """Recommendations best first (or their dicts), and how far the search went to find them.

    A list, so callers that only want the stacks need not know; `complete` is False when the
    budget stopped the search and the stacks are the best found so far; `examined` counts the
    stacks drafted.
    """

    examined: int
    complete: bool
    left_out: list[str]  # what the GPU models' facts kept out of the search, and why (texts)
    left_out_rows: list[dict[str, str]]  # the same per row: {"row", "reason"}
    unknown_models: list[str]  # node groups' models the GPU facts do not know
    alike: Text | None  # said when fewer sound data planes exist than alternatives shown

    def __init__(
        self,
        items: Iterable[Any] = (),
        *,
        examined: int = 0,
        complete: bool = True,
        left_out: Iterable[str] = (),
        left_out_rows: Iterable[dict[str, str]] = (),
        unknown_models: Iterable[str] = (),
        alike: Text | None = None,
    ):
        super().__init__(items)
        self.examined = examined
        self.complete = complete
        self.left_out = list(left_out)
        self.left_out_rows = list(left_out_rows)
        self.unknown_models = list(unknown_models)
        # Set when the profile leaves fewer sound data planes than the three alternatives.
        self.alike = alike

    def head(self, limit: int) -> Ranking:
        """The first `limit` stacks, with the same account of the search."""
        return Ranking(
            self[:limit],
            examined=self.examined,
            complete=self.complete,
            left_out=self.left_out,
            left_out_rows=self.left_out_rows,
            unknown_models=self.unknown_models,
            alike=self.alike,
        )

    def envelope(self, stacks: list[Any]) -> dict[str, Any]:
        """The ranking as `recommend --json` and the API give it (DESIGN.md, profile v2):
        `stacks` (each stack's dict), `left_out` per row with its reason, `unknown_models`,
        and `notes` (the texts the page shows above the list)."""
        notes = [*self.left_out, *([self.alike] if self.alike else [])]
        notes += [self.note] if self.note else []
        return {
            "stacks": stacks,
            "left_out": [dict(item) for item in self.left_out_rows],
            "unknown_models": list(self.unknown_models),
            "notes": notes,
            "complete": self.complete,
            "examined": self.examined,
        }

    @property
    def note(self) -> Text | None:
        """What the page, the API and the command say when the budget stopped the search."""
        if self.complete:
            return None
        return _(
            "Search stopped after %(count)s stacks; these are the best found so far.",
            count=self.examined,
        )


@dataclass(frozen=True, slots=True)
class Recommendation:
    """One ranked stack: rows per pool, how it fits the profile, and how to accept it."""

    shape: str
    pools: dict[str, list[str]]
    cluster_wide: list[str]
    rows: list[str]
    score: float
    rank: int
    fits: list[str]
    missing: list[str]
    acceptance_checks: list[str]
    explanation: str
    report: StackReport
    pool_details: dict[str, dict[str, Any]]
    trade_off: str

    def to_dict(self) -> dict[str, Any]:
        return {
            "rank": self.rank,
            "shape": self.shape,
            "score": self.score,
            "pools": {name: list(ids) for name, ids in self.pools.items()},
            "cluster_wide": list(self.cluster_wide),
            "rows": list(self.rows),
            "fits": list(self.fits),
            "missing": list(self.missing),
            "acceptance_checks": list(self.acceptance_checks),
            "explanation": self.explanation,
            "trade_off": self.trade_off,
            "pool_details": {
                name: {
                    **pool,
                    "units": list(pool["units"]),
                    "isolation": dict(pool["isolation"]),
                    "workloads": list(pool["workloads"]),
                    "acceptance_checks": list(pool["acceptance_checks"]),
                }
                for name, pool in self.pool_details.items()
            },
            "report": self.report.to_dict(),
        }


class _Search:
    """The budget being spent: drafts examined so far and the deadline."""

    def __init__(self, budget: Budget) -> None:
        self.budget = budget
        self.examined = 0
        self.complete = True
        self.deadline = None if budget.seconds is None else time.monotonic() + budget.seconds

    def spent(self) -> bool:
        over = (self.budget.drafts is not None and self.examined >= self.budget.drafts) or (
            self.deadline is not None and time.monotonic() >= self.deadline
        )
        if over:
            self.complete = False
        return over


def _best(scored: list[tuple[float, int, Any]], width: int | None) -> list[tuple[float, int, Any]]:
    # Best fit first; equal fits keep catalog order, so pruning never depends on input order.
    return sorted(scored, key=lambda item: (-item[0], item[1]))[:width]


def _combinations(
    index: _Index, slots: _Slots, profile: Profile, width: int | None
) -> Iterator[tuple[tuple[int, ...], tuple[Row, ...], Row | None]]:
    """(catalog order, presenters, governor) of the best-fitting combinations, best first.

    The catalog order is where the combination comes in an unpruned search, which resolves
    drafts that end up as the same stack: the first one drafted there is the one kept.
    """
    weights = _weights(profile)
    governor_width = width
    if width is not None and len(slots.plans) > 2:
        # Three pools: keep the product of the slots' widths (and so the drafts) bounded.
        width, governor_width = max(1, width * 5 // 12), max(1, width // 3)
    per_plan = [
        _best(
            [
                (_presenter_fit(index, row, plan, profile, weights), position, row)
                for position, row in _distinct(candidates)
            ],
            width,
        )
        for plan, candidates in zip(slots.plans, slots.presenters, strict=True)
    ]
    if not all(per_plan):
        return
    leaders = {plan.name: fits[0][2] for plan, fits in zip(slots.plans, per_plan, strict=True)}
    # Only governors under which every pool has a presenter that can run: a presenter tied to
    # one governor (volcano-vgpu to Volcano) never meets another.
    governors = _best(
        [
            (
                0.0
                if governor is None
                else _governor_fit(
                    index, governor, slots.plans, leaders, slots.needs, profile, weights
                ),
                position,
                governor,
            )
            for position, governor in _distinct(slots.governors)
            if all(
                any(_governed_by(index, item[2], governor) for item in fits) for fits in per_plan
            )
        ],
        governor_width,
    )
    # Asked once per (presenter, governor), not once per combination they appear in.
    answers: dict[tuple[str, str | None], bool] = {}

    def governs(presenter: Row, governor: Row | None) -> bool:
        key = (presenter.id, governor.id if governor is not None else None)
        if key not in answers:
            answers[key] = _governed_by(index, presenter, governor)
        return answers[key]

    combinations = []
    for choice in product(*per_plan, governors):
        *presenters, governor = choice
        if not all(governs(item[2], governor[2]) for item in presenters):
            continue  # the presenter needs another governor: a second one would conflict
        fit = sum(item[0] for item in presenters) / len(presenters) + governor[0]
        order = tuple(item[1] for item in choice)
        combinations.append((-fit, order, tuple(item[2] for item in presenters), governor[2]))
    combinations.sort(key=lambda item: (item[0], item[1]))
    for _fit, order, presenters, governor in combinations:
        yield order, presenters, governor


def _distinct(rows: Sequence[Row | None]) -> list[tuple[int, Row | None]]:
    """(catalog position, row) of the first of each set of rows the engine cannot tell apart
    (same layer, units, contracts, functions, isolation, vendors): forks and editions of one
    component would otherwise fill a slot's few places and crowd out real alternatives."""
    seen: set[tuple[object, ...]] = set()
    kept = []
    for position, row in enumerate(rows):
        if row is not None:
            shape = (
                row.layer, row.resource_units, row.enforcement_points, row.provides,
                row.requires, row.accepts, row.exclusive, row.signals, row.functions,
                tuple(row.isolation.values()), row.vendors,
            )  # fmt: skip
            if shape in seen:
                continue
            seen.add(shape)
        kept.append((position, row))
    return kept


def _governed_by(index: _Index, presenter: Row, governor: Row | None) -> bool:
    """Whether `presenter` can run under `governor`: every requirement of its bundle that only
    governing rows provide (volcano-vgpu's assigner is Volcano's scheduler) is the governor's."""
    for row in index.bundle(presenter):
        for pattern in row.requires:
            providers = index.providers(pattern)
            only_governors = providers and all(governed(p) for p in providers)
            if only_governors and (governor is None or not index.offers(governor, pattern)):
                return False
    return True


def _sound(verdict: _Verdict, draft: _Draft, profile: Profile) -> bool:
    """A stack whose shape makes sense for the profile: no isolation breach, every workload on a
    unit that suits it."""
    served = {kind for plan in draft.plans for kind in plan.workloads}
    return not verdict.breaches and served >= set(profile.workload_types)


def recommend(
    profile: Profile, rows: Sequence[Row], *, limit: int = 5, budget: Budget = DEFAULT_BUDGET
) -> Ranking:
    """Stacks from `rows` ranked against `profile`, best first; each passes the stack check.

    Rows for another vendor's GPUs, presenting other devices of a model's vendor (the Intel GPU
    device plugin for a Gaudi), or presenting partitions the node groups' GPU models lack, never
    enter the search (`Ranking.left_out` says which, with the model's fact). The list holds
    stacks different in kind (never two variants of one project), and its first three the best
    stack of each of METHOD's shapes that makes sense for the profile, then other data planes;
    when the profile leaves fewer sound data planes than that, `Ranking.alike` says so.
    """
    filtered = _gpu_filter(rows, profile)
    rows, left_out = filtered.rows, filtered.left_out
    by_id = {row.id: row for row in rows}
    index = _Index(rows)
    search = _Search(budget)
    slot_list = _slots(profile, index)
    drafts: dict[tuple[object, ...], tuple[tuple[int, ...], _Draft, _Verdict]] = {}
    for number, slots in enumerate(slot_list):
        for order, presenters, governor in _combinations(index, slots, profile, budget.per_slot):
            if search.spent():
                break
            search.examined += 1
            draft = _draft(slots, presenters, governor, index)
            if draft is None:
                continue
            key, place = draft.key(), (number, *order)
            if key not in drafts or place < drafts[key][0]:
                drafts[key] = (place, draft, _score_draft(index, draft, slots.needs, profile))

    def order(score: float, draft: _Draft) -> tuple[object, ...]:
        # Higher score, then the smaller stack, then ids: the order never depends on input order.
        ids = sorted(r.id for r in draft.rows())
        return (-round(score, 3), len(ids), tuple(ids), draft.shape)

    # The stack check only subtracts, so the best drafts are checked first; the search stops once
    # `limit` stacks different in kind are ranked, every shape has shown its best, and a few
    # more drafts found nothing better.
    queue = sorted(
        ((draft, verdict) for _place, draft, verdict in drafts.values()),
        key=lambda item: order(item[1].score, item[0]),
    )
    shapes = {draft.shape for draft, _verdict in queue}
    kinds: dict[
        tuple[object, ...], tuple[tuple[object, ...], Recommendation, bool, object, bool]
    ] = {}
    # Per kind, the project presenting each of its pools (in plan order).
    presenting: dict[tuple[object, ...], tuple[tuple[str, frozenset[str]], ...]] = {}
    seen_shapes: set[str] = set()
    # (order, governor, why) of the drafts dropped for a pool their quota cannot express
    unquoted: list[tuple[tuple[object, ...], Row | None, str]] = []

    def consider(draft: _Draft, verdict: _Verdict) -> None:
        """Check `draft` and rank it among the kinds found, if it passes."""
        details = pool_details(draft, profile)
        stack = draft.rows()
        report = check_stack(
            stack,
            draft.pool_ids(),
            profile,
            tenant_sharing={name: pool["tenant_sharing"] for name, pool in details.items()},
            pool_models={plan.name: plan.model for plan in draft.plans},
            pool_tenants={plan.name: plan.tenants for plan in draft.plans},
        )
        if not report.ok:
            # A stack whose quota cannot reach a pool's resources is the one drop the ranking
            # explains: it scores well, and the cluster check would flag it once deployed.
            unquoted.extend(
                (order(verdict.score, draft), draft.governor, finding.message)
                for finding in report.fit
                if finding.blocking and finding.aspect == "quota"
            )
            return
        _score_report(verdict, report)
        for warning in demand_warnings(draft, details, profile):
            verdict.missing.append(warning)
        sound = _sound(verdict, draft, profile)
        if sound:
            seen_shapes.add(draft.shape)
        shape = _shape_label(draft, details, profile)
        recommendation = Recommendation(
            shape=shape,
            pools={name: ordered(members) for name, members in draft.pools.items()},
            cluster_wide=ordered(draft.cluster_wide),
            rows=ordered(stack),
            score=round(verdict.score, 3),
            rank=0,
            fits=verdict.fits,
            missing=verdict.missing,
            acceptance_checks=acceptance_checks(draft, details, profile),
            explanation=explanation(draft, details, verdict.notes, shape),
            report=report,
            pool_details=details,
            trade_off=trade_off(draft, details, profile, shape),
        )
        kind = _kind(recommendation, by_id)
        # A plane that cannot meter its pools is no alternative when the profile asks to observe.
        meters = all(_pool_signals(index, draft, plan.name) for plan in draft.plans)
        alternative = sound and (meters or "observability" not in profile.priorities)
        # On several node groups, a one-pool shape is a pool per group and may give each group
        # what a split shape gives it: there the data plane alone tells answers apart.
        plane = kind[1] if len(profile.groups) > 1 else kind[:2]
        placed = (order(verdict.score, draft), recommendation, sound, plane, alternative)
        if kind not in kinds or placed[0] < kinds[kind][0]:
            kinds[kind] = placed
            presenting[kind] = tuple(
                (draft.presenters[plan.name].project, draft.presenters[plan.name].resource_units)
                for plan in draft.plans
            )

    after_full = 0
    for draft, verdict in queue:
        if len(kinds) >= limit:
            after_full += 1
            here = order(verdict.score, draft)
            worst = max(item[0] for item in kinds.values())
            # The first three are settled once three data planes fit to be alternatives (see
            # _with_alternatives) rank before this draft
            # (checks only lower a score, so no later draft can rank before them): without it a
            # short list would stop before the alternatives a long one shows (its head differs).
            planes = {item[3] for item in kinds.values() if item[4] and item[0] < here}
            settled = len(planes) >= ALTERNATIVES
            if seen_shapes >= shapes and settled and here > worst:
                break
            if after_full > 4 * limit:
                # Only a shape not shown yet, or while the first three are unsettled another data
                # plane, is still looked for, within a bounded number of checks.
                if (seen_shapes >= shapes and settled) or after_full > SHAPE_SEARCH:
                    break
                if draft.shape in seen_shapes and settled:
                    continue
        # Past the deadline, the stacks ranked so far are the answer; with none yet, checking
        # goes on (at most over the drafts the budget allowed) so that an answer exists.
        if kinds and search.deadline is not None and time.monotonic() >= search.deadline:
            search.complete = False
            break
        consider(draft, verdict)
    if kinds and len(_alternative_planes(kinds)) < ALTERNATIVES:
        for draft in _other_planes(index, slot_list, profile, budget, kinds, presenting, search):
            needs = next(slots.needs for slots in slot_list if slots.plans == draft.plans)
            consider(draft, _score_draft(index, draft, needs, profile))
            if len(_alternative_planes(kinds)) >= ALTERNATIVES:
                break
    ranked = _with_alternatives(sorted(kinds.values(), key=lambda item: item[0]), limit)
    quota_drops = _unquoted(unquoted, [item[0] for item in kinds.values()], limit)
    # The head repeats a data plane only when no other fits as an alternative: said.
    plane_of = {id(item[1]): item[3] for item in kinds.values()}
    head = [plane_of[id(rec)] for rec in ranked[:ALTERNATIVES]]
    alike = None
    if len(set(head)) < len(head):
        alike = _(
            "Only %(count)s data plane(s) fit this profile as alternatives (sound, and metering "
            "its pools where the profile asks to observe): the other stacks listed differ from "
            "them only in the control plane, an exporter or a variant of a unit",
            count=len(set(head)),
        )
    return Ranking(
        (replace(rec, rank=rank) for rank, rec in enumerate(ranked, start=1)),
        examined=search.examined,
        complete=search.complete,
        left_out=left_out + [text for _row, text in quota_drops],
        left_out_rows=filtered.left_out_rows
        + [{"row": row, "reason": text} for row, text in quota_drops if row],
        unknown_models=filtered.unknown_models,
        alike=alike,
    )


# Drafts examined per pool when looking for another data plane (see _other_planes).
OTHER_PLANES_PER_SLOT = 24


def _other_planes(
    index: _Index,
    slot_list: list[_Slots],
    profile: Profile,
    budget: Budget,
    kinds: dict[tuple[object, ...], Any],
    presenting: dict[tuple[object, ...], tuple[tuple[str, frozenset[str]], ...]],
    search: _Search,
) -> Iterator[_Draft]:
    """Drafts whose pool presenters give units no ranked alternative gives there with the same
    project.

    The budget's per-slot pruning keeps the variants of the best project (MIG strategies, DRA
    editions) and can crowd out a real alternative data plane, so each pool is searched again
    without the projects already shown there, a bounded number of drafts each."""
    shown = [kind for kind, item in kinds.items() if item[4]]
    for slots in slot_list:
        for number in range(len(slots.plans)):
            used = {presenting[kind][number] for kind in shown if kind[0] == slots.shape}
            others = tuple(
                row
                for row in slots.presenters[number]
                if (row.project, row.resource_units) not in used
            )
            if not others or not used:
                continue
            narrowed = dataclass_replace(
                slots,
                presenters=tuple(
                    others if position == number else candidates
                    for position, candidates in enumerate(slots.presenters)
                ),
            )
            combinations = _combinations(index, narrowed, profile, budget.per_slot)
            for tried, (_order, presenters, governor) in enumerate(combinations):
                if tried >= OTHER_PLANES_PER_SLOT or search.spent():
                    break
                search.examined += 1
                draft = _draft(narrowed, presenters, governor, index)
                if draft is not None:
                    yield draft


def _unquoted(
    dropped: list[tuple[tuple[object, ...], Row | None, str]],
    kept: list[tuple[object, ...]],
    limit: int,
) -> list[tuple[str | None, Text]]:
    """Why stacks that would have been listed were left out: a pool whose resources their quota
    layer cannot express (catalog.engine.fit.quota_fit). Only stacks that score as well as one
    listed count, so the note speaks of what the list would have shown; each governor is named
    once, by the best of its stacks left out."""
    bar = max(kept) if len(kept) >= limit else None
    reasons: dict[str | None, str] = {}
    for place, governor, why in sorted(dropped, key=lambda item: item[0]):
        if bar is None or place < bar:
            reasons.setdefault(governor.id if governor is not None else None, why)
    return [
        (
            governor,
            _(
                "Left out because the profile is multi-tenant, so every pool needs a quota layer "
                "that can express its resources: stacks where %(reason)s",
                reason=why,
            ),
        )
        for governor, why in reasons.items()
    ]
