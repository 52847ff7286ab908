"""Ranked candidate stacks for a step-1 profile: METHOD.md's decision flow, checked and scored.

Drafting (`drafting.py`) proposes stacks per shape, scoring (`scoring.py`) weighs and words
them; here the best are checked with the stack check and ranked.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from catalog.engine.rows import Row
from catalog.engine.stack import Profile, StackReport, check_stack
from evaluations.engine.drafting import HARD_POOL, SHAPES, SHARED_POOL, _Draft, _drafts, _Index
from evaluations.engine.scoring import (
    _acceptance_checks,
    _explanation,
    _ordered,
    _score_draft,
    _score_report,
    _Verdict,
)

__all__ = ["HARD_POOL", "SHAPES", "SHARED_POOL", "Recommendation", "recommend"]


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


def recommend(profile: Profile, rows: Sequence[Row], *, limit: int = 5) -> list[Recommendation]:
    """Stacks from `rows` ranked against `profile`, best first; each passes the stack check."""
    index = _Index(rows)
    drafts: dict[tuple[object, ...], tuple[_Draft, _Verdict]] = {}
    for draft, needs in _drafts(profile, index):
        if draft.key() not in drafts:
            drafts[draft.key()] = (draft, _score_draft(index, draft, needs, profile))

    def order(score: float, draft: _Draft) -> tuple[object, ...]:
        # Higher score, then the smaller stack, then ids: the order never depends on input order.
        ids = sorted(r.id for r in draft.rows())
        return (-round(score, 3), len(ids), tuple(ids), draft.shape)

    # The stack check only subtracts, so once a draft's own score cannot reach the last place
    # taken, no later draft can: check the best drafts first and stop there.
    queue = sorted(drafts.values(), key=lambda item: order(item[1].score, item[0]))
    ranked: list[tuple[tuple[object, ...], Recommendation]] = []
    for draft, verdict in queue:
        if len(ranked) >= limit and order(verdict.score, draft) > ranked[-1][0]:
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
    return [replace(rec, rank=rank) for rank, (_score, rec) in enumerate(ranked, start=1)]
