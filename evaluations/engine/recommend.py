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

from catalog.engine.fit import PARTITION_FEATURE, presents_other_devices
from catalog.engine.fleet import NodeGroup
from catalog.engine.gpus import GpuModel
from catalog.engine.profile import Profile
from catalog.engine.rows import Row
from catalog.engine.stack import StackReport, check_stack, governed
from catalog.engine.text import Text, _
from catalog.engine.units import SHARING_UNITS
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
    _time_shared,
    _weights,
)
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
RANKING_VERSION = 6
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


VENDOR_NAMES = {"nvidia": "NVIDIA", "amd": "AMD", "intel": "Intel", "huawei": "Huawei"}


def _only_partitions(row: Row) -> bool:
    return (
        row.layer == "data_plane"
        and "mig_slice" in row.resource_units
        and "whole_gpu" not in row.resource_units
    )


def _rows_named(found: dict[str, list[str]]) -> str:
    return "; ".join(f"{p} ({', '.join(keys)})" for p, keys in sorted(found.items()))


def _partition_words(model: GpuModel) -> Text:
    return _("MIG") if PARTITION_FEATURE.get(model.vendor) == "mig" else _("compute partitions")


class _Filtered:
    """What the node groups' GPU models let into the search, and what they kept out and why."""

    def __init__(self) -> None:
        self.rows: list[Row] = []
        self.left_out: list[str] = []
        self.left_out_rows: list[dict[str, str]] = []
        self.unknown_models: list[str] = []

    def drop(self, found: dict[str, list[str]], row: Row, reason: Text) -> None:
        found.setdefault(row.project, []).append(row.key)
        self.left_out_rows.append({"row": row.id, "reason": reason})


def _no_partitions_for(row: Row, models: Sequence[GpuModel]) -> GpuModel | None:
    """A model the row could serve, when none of those has the partitions the row presents only
    (MIG rows for an L4 fleet), else None."""
    if not _only_partitions(row):
        return None
    mine = [model for model in models if row.serves(model.vendor)]
    lacking = [
        model
        for model in mine
        if PARTITION_FEATURE.get(model.vendor) is not None
        and PARTITION_FEATURE[model.vendor] not in model.sharing
    ]
    return lacking[0] if mine and len(lacking) == len(mine) else None


def _other_devices(row: Row, models: Sequence[GpuModel]) -> bool:
    """Whether every model of the row's vendor is presented otherwise than the row presents."""
    mine = [model for model in models if model.vendor in row.vendors]
    return bool(mine) and all(presents_other_devices(row, model) for model in mine)


def _gpu_filter(rows: Sequence[Row], profile: Profile) -> _Filtered:
    """The rows a stack for the profile's node groups may use, and what was left out with each
    model's fact. A row is kept when some group can use it; which group may is each pool's own
    check (drafting._PoolPlan.group_allows), said here per group. A model the GPU facts do not
    know keeps every vendor-specific row out of its group, and out of the search when no known
    model is beside it: nothing is guessed."""
    out = _Filtered()
    groups = profile.groups
    models = list({g.model.key: g.model for g in groups if g.model is not None}.values())
    out.unknown_models = list(
        dict.fromkeys(g.gpu_model for g in groups if g.gpu_model and g.model is None)
    )
    vendors = {model.vendor for model in models}
    partitioned = {
        model.vendor for model in models if PARTITION_FEATURE.get(model.vendor) in model.sharing
    }
    named = ", ".join(model.name for model in models)
    wrong_vendor: dict[str, list[str]] = {}
    other_devices: dict[str, list[str]] = {}
    unknown: dict[str, list[str]] = {}
    no_partitions: dict[str, list[str]] = {}
    why_vendor = _(
        "serves other vendors' GPUs than %(models)s (GPU facts)",
        models=named or ", ".join(out.unknown_models),
    )
    why_unknown = _(
        "vendor-specific, and %(models)s is not in EcoMap's GPU facts",
        models=", ".join(out.unknown_models),
    )
    for row in rows:
        if row.vendors and not models and out.unknown_models:
            out.drop(unknown, row, why_unknown)
        elif row.vendors and models and not row.vendors & vendors:
            out.drop(wrong_vendor, row, why_vendor)
        elif _other_devices(row, models):
            out.drop(
                other_devices,
                row,
                _("presents other devices than %(models)s is presented as (GPU facts)",
                  models=named),
            )  # fmt: skip
        elif (lacking := _no_partitions_for(row, models)) is not None:
            out.drop(
                no_partitions,
                row,
                _("%(model)s has no %(feature)s (GPU facts)", model=lacking.name,
                  feature=_partition_words(lacking)),
            )  # fmt: skip
        else:
            out.rows.append(row)
    if unknown:
        out.left_out.append(
            _(
                "Left out because %(models)s is not in EcoMap's GPU facts, so no vendor-specific "
                "row is proposed for it (add the model to the facts, or name a known one): "
                "%(rows)s",
                models=", ".join(out.unknown_models),
                rows=_rows_named(unknown),
            )
        )
    if wrong_vendor:
        out.left_out.append(
            _(
                "Left out because %(model)s is made by %(vendor)s (GPU facts): rows serving "
                "other vendors' GPUs: %(rows)s",
                model=named,
                vendor=", ".join(sorted({VENDOR_NAMES.get(m.vendor, m.vendor) for m in models})),
                rows=_rows_named(wrong_vendor),
            )
        )
    if other_devices:
        model = next(m for m in models if m.presented_as)
        out.left_out.append(
            _(
                "Left out because %(model)s is presented as %(interfaces)s (GPU facts): rows "
                "presenting other %(vendor)s devices: %(rows)s",
                model=model.name,
                interfaces=", ".join(model.presented_as),
                vendor=VENDOR_NAMES.get(model.vendor, model.vendor),
                rows=_rows_named(other_devices),
            )
        )
    if no_partitions:
        model = next(m for m in models if m.vendor not in partitioned)
        out.left_out.append(
            _(
                "Left out because %(model)s has no %(feature)s (GPU facts: %(sharing)s): rows "
                "presenting hardware partitions (MIG slices): %(rows)s",
                model=model.name,
                feature=_partition_words(model),
                sharing=", ".join(sorted(model.sharing)) or _("no sharing feature"),
                rows=_rows_named(no_partitions),
            )
        )
    if len(groups) > 1:
        _per_group(out, groups)
    return out


def _per_group(out: _Filtered, groups: Sequence[NodeGroup]) -> None:
    """What one group of several cannot use, though another can: said per group."""
    for group in groups:
        model = group.model
        if group.gpu_model and model is None:
            vendor_rows = sorted({r.project for r in out.rows if r.vendors})
            if vendor_rows:
                out.left_out.append(
                    _(
                        "Node group %(group)s: %(model)s is not in EcoMap's GPU facts, so only "
                        "vendor-neutral rows present its GPUs (not %(rows)s)",
                        group=group.name,
                        model=group.gpu_model,
                        rows=", ".join(vendor_rows),
                    )
                )
            continue
        if model is None or PARTITION_FEATURE.get(model.vendor) in model.sharing:
            continue
        partitions = sorted(
            {r.project for r in out.rows if _only_partitions(r) and r.serves(model.vendor)}
        )
        if partitions:
            out.left_out.append(
                _(
                    "Node group %(group)s: %(model)s has no %(feature)s (GPU facts), so rows "
                    "presenting hardware partitions are not used there: %(rows)s",
                    group=group.name,
                    model=model.name,
                    feature=_partition_words(model),
                    rows=", ".join(partitions),
                )
            )


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
        # The same data plane is not another shape's answer (see `plane` in recommend).
        if (
            sound
            and rec.shape not in best_of_shape
            and plane not in {known for _rec, known in best_of_shape.values()}
        ):
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


def _shape_label(draft: _Draft, details: dict[str, dict[str, Any]], profile: Profile) -> str:
    """The method's shape the stack is: one pool that shares no GPU, by unit or by time window
    (training borrowing the serving GPUs at night), is shape A (whole GPUs or hard partitions
    with queues), never B, which is one *shared* pool for inference."""
    units = {unit for pool in details.values() for unit in pool["units"]}
    served = {kind for pool in details.values() for kind in pool["workloads"]}
    borrowed = set(_time_shared(profile)) & served
    if draft.shape == "B" and not units & SHARING_UNITS and not borrowed:
        return "A"
    return draft.shape


def _alternative_planes(kinds: dict[tuple[object, ...], Any]) -> set[object]:
    return {item[3] for item in kinds.values() if item[4]}


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
