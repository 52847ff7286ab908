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
from itertools import product
from typing import Any

from catalog.engine.rows import Row
from catalog.engine.stack import Profile, StackReport, check_stack
from catalog.engine.text import Text, _
from evaluations.engine.drafting import (
    HARD_POOL,
    SHAPES,
    SHARED_POOL,
    _Draft,
    _draft,
    _Index,
    _Slots,
    _slots,
    _weights,
)
from evaluations.engine.scoring import (
    _acceptance_checks,
    _explanation,
    _governor_fit,
    _ordered,
    _presenter_fit,
    _score_draft,
    _score_report,
    _Verdict,
)

__all__ = [
    "DEFAULT_BUDGET",
    "RANKING_VERSION",
    "HARD_POOL",
    "SHAPES",
    "SHARED_POOL",
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
    top fives did; tests/evaluations/test_recommend_bounded.py pins them). `drafts` is above the
    built-in catalog's largest search (960 drafts) and bounds the work on a big one; `seconds`
    is the safety net. None means no bound.
    """

    per_slot: int | None = 12
    drafts: int | None = 1500
    seconds: float | None = 5.0


DEFAULT_BUDGET = Budget()
# Part of the key rankings are cached under: bump it with any change to drafting, scoring or
# the budget that can change a ranking, so no cache serves a ranking this code would not make.
RANKING_VERSION = 2
UNBOUNDED = Budget(per_slot=None, drafts=None, seconds=None)


class Ranking(list):
    """Recommendations best first (or their dicts), and how far the search went to find them.

    A list, so callers that only want the stacks need not know; `complete` is False when the
    budget stopped the search and the stacks are the best found so far; `examined` counts the
    stacks drafted.
    """

    examined: int
    complete: bool

    def __init__(self, items: Iterable[Any] = (), *, examined: int = 0, complete: bool = True):
        super().__init__(items)
        self.examined = examined
        self.complete = complete

    def head(self, limit: int) -> Ranking:
        """The first `limit` stacks, with the same account of the search."""
        return Ranking(self[:limit], examined=self.examined, complete=self.complete)

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
    per_plan = [
        _best(
            [
                (_presenter_fit(index, row, plan, profile, weights), position, row)
                for position, row in enumerate(candidates)
            ],
            width,
        )
        for plan, candidates in zip(slots.plans, slots.presenters, strict=True)
    ]
    if not all(per_plan):
        return
    leaders = {plan.name: fits[0][2] for plan, fits in zip(slots.plans, per_plan, strict=True)}
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
            for position, governor in enumerate(slots.governors)
        ],
        width,
    )
    combinations = []
    for choice in product(*per_plan, governors):
        *presenters, governor = choice
        fit = sum(item[0] for item in presenters) / len(presenters) + governor[0]
        order = tuple(item[1] for item in choice)
        combinations.append((-fit, order, tuple(item[2] for item in presenters), governor[2]))
    combinations.sort(key=lambda item: (item[0], item[1]))
    for _fit, order, presenters, governor in combinations:
        yield order, presenters, governor


def recommend(
    profile: Profile, rows: Sequence[Row], *, limit: int = 5, budget: Budget = DEFAULT_BUDGET
) -> Ranking:
    """Stacks from `rows` ranked against `profile`, best first; each passes the stack check."""
    index = _Index(rows)
    search = _Search(budget)
    drafts: dict[tuple[object, ...], tuple[tuple[int, ...], _Draft, _Verdict]] = {}
    for number, slots in enumerate(_slots(profile, index)):
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

    # The stack check only subtracts, so once a draft's own score cannot reach the last place
    # taken, no later draft can: check the best drafts first and stop there.
    queue = sorted(
        ((draft, verdict) for _place, draft, verdict in drafts.values()),
        key=lambda item: order(item[1].score, item[0]),
    )
    ranked: list[tuple[tuple[object, ...], Recommendation]] = []
    for draft, verdict in queue:
        if len(ranked) >= limit and order(verdict.score, draft) > ranked[-1][0]:
            break
        # Past the deadline, the stacks ranked so far are the answer; with none yet, checking
        # goes on (at most over the drafts the budget allowed) so that an answer exists.
        if ranked and search.deadline is not None and time.monotonic() >= search.deadline:
            search.complete = False
            break
        stack = draft.rows()
        report = check_stack(stack, draft.pool_ids(), profile)
        if not report.ok:
            continue
        _score_report(verdict, report)
        recommendation = Recommendation(
            shape=draft.shape,
            pools={name: _ordered(members) for name, members in draft.pools.items()},
            cluster_wide=_ordered(draft.cluster_wide),
            rows=_ordered(stack),
            score=round(verdict.score, 3),
            rank=0,
            fits=verdict.fits,
            missing=verdict.missing,
            acceptance_checks=_acceptance_checks(draft.shape, profile),
            explanation=_explanation(draft, verdict),
            report=report,
        )
        ranked.append((order(verdict.score, draft), recommendation))
        ranked.sort(key=lambda item: item[0])
        del ranked[limit:]
    return Ranking(
        (replace(rec, rank=rank) for rank, (_score, rec) in enumerate(ranked, start=1)),
        examined=search.examined,
        complete=search.complete,
    )
