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

from catalog.engine.fit import PARTITION_FEATURE, presents_other_devices
from catalog.engine.gpus import GpuModel, gpu_model_find
from catalog.engine.profile import Profile
from catalog.engine.rows import Row
from catalog.engine.stack import StackReport, check_stack, governed
from catalog.engine.text import Text, _
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
from evaluations.engine.index import _Index
from evaluations.engine.pools import (
    acceptance_checks,
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
RANKING_VERSION = 5
UNBOUNDED = Budget(per_slot=None, drafts=None, seconds=None)
# How many more drafts the ranking checks, once its list is full, to find the best stack of a
# shape not shown yet.
SHAPE_SEARCH = 300
# The head of every ranking: alternatives a review can weigh (best per shape, other data planes).
ALTERNATIVES = 3


class Ranking(list):
    """Recommendations best first (or their dicts), and how far the search went to find them.

    A list, so callers that only want the stacks need not know; `complete` is False when the
    budget stopped the search and the stacks are the best found so far; `examined` counts the
    stacks drafted.
    """

    examined: int
    complete: bool
    left_out: list[str]  # what the GPU model's facts kept out of the search, and why

    def __init__(
        self,
        items: Iterable[Any] = (),
        *,
        examined: int = 0,
        complete: bool = True,
        left_out: Iterable[str] = (),
    ):
        super().__init__(items)
        self.examined = examined
        self.complete = complete
        self.left_out = list(left_out)

    def head(self, limit: int) -> Ranking:
        """The first `limit` stacks, with the same account of the search."""
        return Ranking(
            self[:limit], examined=self.examined, complete=self.complete, left_out=self.left_out
        )

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


VENDOR_NAMES = {"nvidia": "NVIDIA", "amd": "AMD", "intel": "Intel", "huawei": "Huawei"}


def _gpu_filter(rows: Sequence[Row], model: GpuModel | None) -> tuple[list[Row], list[str]]:
    """The rows a stack for `model` may use, and what was left out with the model's fact."""
    if model is None:
        return list(rows), []
    kept, wrong_vendor, other_devices, no_partitions = [], {}, {}, {}
    feature = PARTITION_FEATURE.get(model.vendor)
    for row in rows:
        if not row.serves(model.vendor):
            wrong_vendor.setdefault(row.project, []).append(row.key)
        elif presents_other_devices(row, model):
            other_devices.setdefault(row.project, []).append(row.key)
        elif (
            row.layer == "data_plane"
            and feature is not None
            and feature not in model.sharing
            and "mig_slice" in row.resource_units
            and "whole_gpu" not in row.resource_units
        ):
            no_partitions.setdefault(row.project, []).append(row.key)
        else:
            kept.append(row)
    left_out = []
    if wrong_vendor:
        left_out.append(
            _(
                "Left out because %(model)s is made by %(vendor)s (GPU facts): rows serving "
                "other vendors' GPUs: %(rows)s",
                model=model.name,
                vendor=VENDOR_NAMES.get(model.vendor, model.vendor),
                rows="; ".join(
                    f"{p} ({', '.join(keys)})" for p, keys in sorted(wrong_vendor.items())
                ),
            )
        )
    if other_devices:
        left_out.append(
            _(
                "Left out because %(model)s is presented as %(interfaces)s (GPU facts): rows "
                "presenting other %(vendor)s devices: %(rows)s",
                model=model.name,
                interfaces=", ".join(model.presented_as),
                vendor=VENDOR_NAMES.get(model.vendor, model.vendor),
                rows="; ".join(
                    f"{p} ({', '.join(keys)})" for p, keys in sorted(other_devices.items())
                ),
            )
        )
    if no_partitions:
        left_out.append(
            _(
                "Left out because %(model)s has no %(feature)s (GPU facts: %(sharing)s): rows "
                "presenting hardware partitions (MIG slices): %(rows)s",
                model=model.name,
                feature="MIG" if feature == "mig" else _("compute partitions"),
                sharing=", ".join(sorted(model.sharing)) or _("no sharing feature"),
                rows="; ".join(
                    f"{p} ({', '.join(keys)})" for p, keys in sorted(no_partitions.items())
                ),
            )
        )
    return kept, left_out


def _kind(rec: Recommendation, rows: dict[str, Row]) -> tuple[object, ...]:
    """What makes a stack different in kind: its shape, each pool's presenting project, units and
    tenant sharing, and its governor's project. Variants of one project (a MIG strategy), an
    exporter or a watcher do not."""
    # Pool names left out: the same presenters and units under other pool names are one answer.
    pools = tuple(
        sorted(
            (
                tuple(pool["units"]),
                pool["tenant_sharing"],
                tuple(
                    sorted(
                        {
                            rows[ref].project
                            for ref in rec.pools[name]
                            if rows[ref].layer == "data_plane"
                            and rows[ref].resource_units - {"none"}
                        }
                    )
                ),
            )
            for name, pool in rec.pool_details.items()
        )
    )
    governors = tuple(sorted({rows[ref].project for ref in rec.rows if governed(rows[ref])}))
    return (rec.shape, pools, governors)


def _sound(verdict: _Verdict, draft: _Draft, profile: Profile) -> bool:
    """A stack whose shape makes sense for the profile: no isolation breach, every workload on a
    unit that suits it."""
    served = {kind for plan in draft.plans for kind in plan.workloads}
    return not verdict.breaches and served >= set(profile.workload_types)


def _with_alternatives(
    ranked: list[tuple[tuple[object, ...], Recommendation, bool, tuple[object, ...], bool]],
    limit: int,
) -> list[Recommendation]:
    """Best first, where the first three are alternatives a review can weigh: the best stack of
    each of METHOD's shapes that makes sense for the profile, then stacks whose data plane
    differs from those already shown (another governor alone is a smaller difference) and that
    can stand as an alternative (a plane that meters nothing is none for a profile that asks to
    observe), then the rest by score."""
    best_of_shape: dict[str, tuple[Recommendation, tuple[object, ...]]] = {}
    for _order, rec, sound, plane, _alternative in ranked:
        if sound and rec.shape not in best_of_shape:
            best_of_shape[rec.shape] = (rec, plane)
    top = sorted(best_of_shape.values(), key=lambda item: -item[0].score)[:ALTERNATIVES]
    rest = [(rec, plane) for _order, rec, _sound, plane, _alt in ranked if (rec, plane) not in top]
    sound = {id(rec) for _order, rec, is_sound, _plane, _alt in ranked if is_sound}
    alternatives = {id(rec) for _order, rec, _sound, _plane, alternative in ranked if alternative}
    while len(top) < ALTERNATIVES and rest:
        planes = {plane for _rec, plane in top}
        pick = next(
            (item for item in rest if id(item[0]) in alternatives and item[1] not in planes),
            next((item for item in rest if id(item[0]) in sound), rest[0]),
        )
        rest.remove(pick)
        top.append(pick)
    top.sort(key=lambda item: -item[0].score)
    return [rec for rec, _plane in top + rest][:limit]


def recommend(
    profile: Profile, rows: Sequence[Row], *, limit: int = 5, budget: Budget = DEFAULT_BUDGET
) -> Ranking:
    """Stacks from `rows` ranked against `profile`, best first; each passes the stack check.

    Rows for another vendor's GPUs, presenting other devices of the model's vendor (the Intel GPU
    device plugin for a Gaudi), or presenting partitions the profile's GPU model lacks, never
    enter the search (`Ranking.left_out` says which, with the model's fact). The list holds
    stacks different in kind (never two variants of one project), and its first three the best
    stack of each of METHOD's shapes that makes sense for the profile.
    """
    rows, left_out = _gpu_filter(rows, gpu_model_find(profile.gpu_model))
    by_id = {row.id: row for row in rows}
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
    seen_shapes: set[str] = set()
    after_full = 0
    # (order, governor, why) of the drafts dropped for a pool their quota cannot express
    unquoted: list[tuple[tuple[object, ...], Row | None, str]] = []
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
        details = pool_details(draft, profile)
        stack = draft.rows()
        report = check_stack(
            stack,
            draft.pool_ids(),
            profile,
            tenant_sharing={name: pool["tenant_sharing"] for name, pool in details.items()},
        )
        if not report.ok:
            # A stack whose quota cannot reach a pool's resources is the one drop the ranking
            # explains: it scores well, and the cluster check would flag it once deployed.
            unquoted.extend(
                (order(verdict.score, draft), draft.governor, finding.message)
                for finding in report.fit
                if finding.blocking and finding.aspect == "quota"
            )
            continue
        _score_report(verdict, report)
        sound = _sound(verdict, draft, profile)
        if sound:
            seen_shapes.add(draft.shape)
        recommendation = Recommendation(
            shape=draft.shape,
            pools={name: ordered(members) for name, members in draft.pools.items()},
            cluster_wide=ordered(draft.cluster_wide),
            rows=ordered(stack),
            score=round(verdict.score, 3),
            rank=0,
            fits=verdict.fits,
            missing=verdict.missing,
            acceptance_checks=acceptance_checks(draft, details, profile),
            explanation=explanation(draft, details, verdict.notes),
            report=report,
            pool_details=details,
            trade_off=trade_off(draft, details, profile),
        )
        kind = _kind(recommendation, by_id)
        # A plane that cannot meter its pools is no alternative when the profile asks to observe.
        meters = all(_pool_signals(index, draft, plan.name) for plan in draft.plans)
        alternative = sound and (meters or "observability" not in profile.priorities)
        placed = (order(verdict.score, draft), recommendation, sound, kind[:2], alternative)
        if kind not in kinds or placed[0] < kinds[kind][0]:
            kinds[kind] = placed
    ranked = _with_alternatives(sorted(kinds.values(), key=lambda item: item[0]), limit)
    return Ranking(
        (replace(rec, rank=rank) for rank, rec in enumerate(ranked, start=1)),
        examined=search.examined,
        complete=search.complete,
        left_out=left_out + _unquoted(unquoted, [item[0] for item in kinds.values()], limit),
    )


def _unquoted(
    dropped: list[tuple[tuple[object, ...], Row | None, str]],
    kept: list[tuple[object, ...]],
    limit: int,
) -> list[str]:
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
        _(
            "Left out because the profile is multi-tenant, so every pool needs a quota layer "
            "that can express its resources: stacks where %(reason)s",
            reason=why,
        )
        for why in reasons.values()
    ]
