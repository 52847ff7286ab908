"""Drafting candidate stacks for a step-1 profile: the shapes of METHOD.md's decision flow, the
pools they call for, and the catalog rows that fill each pool and close every contract gap."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from fnmatch import fnmatchcase
from functools import lru_cache
from types import MappingProxyType

from catalog.engine.baseline import KUBERNETES_BASELINE, binds
from catalog.engine.oracle import links_between
from catalog.engine.rows import Row
from catalog.engine.stack import DEFAULT_POOL, Profile
from catalog.engine.text import _

HARD_POOL = "hard-isolation"
SHARED_POOL = "shared"

SHAPES: Mapping[str, str] = MappingProxyType(
    {
        "A": _("offline training / batch first"),
        "B": _("online inference / multi-tenant first"),
        "C": _("mixed training, inference and interactive work on split pools"),
    }
)

_LEVEL = {"none": 0, "soft": 1, "hard": 2}
_GLOB_CHARS = frozenset("*?[")
_COST_LEVEL = {"low": 0, "medium": 1, "high": 2}


@dataclass(frozen=True, slots=True)
class UnitTraits:
    """What naming a resource unit fixes (METHOD step 2)."""

    ceiling: str  # the strongest isolation the unit can give
    shares: bool  # parts of one device can go to different pods (tenants)
    reconfiguration: str  # low | medium | high


UNIT_TRAITS: Mapping[str, UnitTraits] = MappingProxyType(
    {
        "whole_gpu": UnitTraits("hard", shares=False, reconfiguration="low"),
        # Changing a MIG layout drains the GPU: the price of a hard partition.
        "mig_slice": UnitTraits("hard", shares=True, reconfiguration="high"),
        "vgpu": UnitTraits("hard", shares=True, reconfiguration="medium"),
        "dra_claim": UnitTraits("hard", shares=False, reconfiguration="low"),
        "memory_compute_quota": UnitTraits("soft", shares=True, reconfiguration="low"),
        "mps_share": UnitTraits("soft", shares=True, reconfiguration="low"),
        # METHOD: time slicing is a sharing policy, not a hard partition.
        "time_slice": UnitTraits("none", shares=True, reconfiguration="low"),
    }
)

# METHOD's shape table: training wants whole GPUs or hard partitions, online inference strong or
# at least provable isolation, interactive development a shared pool.
WORKLOAD_UNITS: Mapping[str, frozenset[str]] = MappingProxyType(
    {
        "training": frozenset({"whole_gpu", "mig_slice", "dra_claim"}),
        "batch": frozenset({"whole_gpu", "mig_slice", "dra_claim"}),
        "online_inference": frozenset(
            {"whole_gpu", "mig_slice", "vgpu", "memory_compute_quota", "mps_share"}
        ),
        "interactive": frozenset({"vgpu", "memory_compute_quota", "mps_share", "time_slice"}),
    }
)
BATCH_KINDS = frozenset({"training", "batch"})
SERVING_KINDS = frozenset({"online_inference", "interactive"})

GANG, QUOTA, PREEMPTION, FAIR_SHARING, TOPOLOGY = (
    "capability:gang-scheduling",
    "capability:quota",
    "capability:preemption",
    "capability:fair-sharing",
    "capability:topology-aware",
)

# Ranked priorities weigh their criterion more; unranked ones keep weight 1.
# Ranked priorities weigh their criterion more; unranked ones keep weight 1.
_PRIORITY_WEIGHTS = (2.0, 1.6, 1.3, 1.1)


@dataclass(frozen=True, slots=True)
class _PoolPlan:
    """A node pool the shape calls for: the isolation it must give and the work it serves."""

    name: str
    isolation: str
    workloads: tuple[str, ...]
    presenters: str  # "any" | "hard" | "shared": which units may present the pool's GPUs


@dataclass(frozen=True, slots=True)
class _Needs:
    """What the profile asks of the stack beyond the data plane."""

    capabilities: tuple[str, ...]
    enforcement_points: frozenset[str]
    visibility: bool


@dataclass(slots=True)
class _Draft:
    """A stack being assembled: rows per pool, cluster-wide rows, and why each joined."""

    shape: str
    plans: tuple[_PoolPlan, ...]
    presenters: dict[str, Row]
    pools: dict[str, list[Row]]
    cluster_wide: list[Row] = field(default_factory=list)
    governor: Row | None = None
    watcher: Row | None = None  # the platform row added for cost and usage visibility
    why: dict[str, str] = field(default_factory=dict)  # row id -> why it joined

    def rows(self) -> list[Row]:
        return [r for members in self.pools.values() for r in members] + self.cluster_wide

    def pool_ids(self) -> dict[str, list[str]]:
        return {name: [r.id for r in members] for name, members in self.pools.items()}

    def key(self) -> tuple[object, ...]:
        pools = tuple(sorted((n, tuple(sorted(r.id for r in m))) for n, m in self.pools.items()))
        return (self.shape, pools, tuple(sorted(r.id for r in self.cluster_wide)))


def _weights(profile: Profile) -> dict[str, float]:
    weights = dict.fromkeys(("isolation", "cost", "observability", "compatibility"), 1.0)
    for rank, priority in enumerate(profile.priorities):
        weights[priority] = _PRIORITY_WEIGHTS[rank]
    # The objective names what the profile will be judged on, even when priorities are unranked.
    if profile.primary_objective == "p99_latency" or profile.p99_target_ms is not None:
        weights["observability"] += 0.5
    if profile.primary_objective == "cost":
        weights["cost"] += 0.5
    return weights


def _needs(profile: Profile, shape: str) -> _Needs:
    kinds = set(profile.workload_types)
    batchy = bool(kinds & BATCH_KINDS)
    capabilities: list[str] = []
    points: set[str] = set()
    if batchy:
        capabilities.append(GANG)
        points.add("scheduler")  # all-or-nothing placement is a scheduling decision
    if profile.tenancy == "multi":
        capabilities += [QUOTA, FAIR_SHARING]
        points.add("admission")  # quotas hold before pods exist
    if batchy and "online_inference" in kinds:
        capabilities.append(PREEMPTION)
        points.add("admission")  # so training cannot crowd out inference
    wants_visibility = (
        shape == "C" or profile.primary_objective == "cost" or "cost" in profile.priorities[:2]
    )
    return _Needs(tuple(capabilities), frozenset(points), wants_visibility)


def _shapes(profile: Profile) -> list[tuple[str, tuple[_PoolPlan, ...]]]:
    """The shapes worth drafting for this profile, each with the pools it calls for."""
    kinds = tuple(profile.workload_types)
    batchy = [k for k in kinds if k in BATCH_KINDS]
    serving = [k for k in kinds if k in SERVING_KINDS]
    inference_first = "online_inference" in kinds and (
        profile.primary_objective == "p99_latency" or not batchy
    )
    single = "B" if inference_first or not batchy else "A"
    shapes = [(single, (_PoolPlan(DEFAULT_POOL, profile.isolation, kinds, "any"),))]
    if batchy and serving:
        # METHOD shape C: a strong-isolation pool for training next to a shared pool; the shared
        # pool never has to be harder than soft, that is what the hard pool is for. When hard
        # isolation is demanded, online inference goes to the hard pool: a shared pool would
        # serve it below what the team asked for.
        shared = min(profile.isolation, "soft", key=_LEVEL.__getitem__)
        hard_kinds = tuple(batchy)
        if profile.isolation == "hard":
            hard_kinds += tuple(k for k in serving if k == "online_inference")
            serving = [k for k in serving if k != "online_inference"]
        if serving:
            shapes.append(
                (
                    "C",
                    (
                        _PoolPlan(HARD_POOL, "hard", hard_kinds, "hard"),
                        _PoolPlan(SHARED_POOL, shared, tuple(serving), "shared"),
                    ),
                )
            )
    return shapes


def _known_units(row: Row) -> list[str]:
    return sorted(u for u in row.resource_units if u in UNIT_TRAITS)


def _may_present(row: Row, which: str) -> bool:
    units = [UNIT_TRAITS[u] for u in _known_units(row)]
    if row.layer != "data_plane" or not units:
        return False
    if which == "hard":
        return any(t.ceiling == "hard" for t in units)
    if which == "shared":
        return any(t.shares and t.ceiling != "hard" for t in units)
    return True


@lru_cache(maxsize=1 << 12)
def _baseline_offers(pattern: str) -> bool:
    return any(fnmatchcase(ident, pattern) for ident in KUBERNETES_BASELINE)


class _Index:
    """The catalog, with the contract questions drafting asks thousands of times answered once.

    Every answer is looked up, not searched for: who provides a pattern, which rows can be the
    other half of a presenter, which exporters and watchers a row feeds. A draft then costs the
    same whether the catalog holds fifty rows or thousands.
    """

    def __init__(self, rows: Iterable[Row]) -> None:
        self.rows = sorted({r.id: r for r in rows}.values(), key=lambda r: r.id)
        self._signals = {
            r.id: frozenset(i for i in r.signals | r.provides if i.startswith("signal:"))
            for r in self.rows
        }
        self._by_interface: dict[str, list[Row]] = {}  # interface -> rows providing it
        # interface -> rows whose provides of it can link them to another row (baseline
        # interfaces link only from the project defining them; see oracle.links_between)
        self._binding: dict[str, list[Row]] = {}
        # (layer, requires/accepts pattern) -> the rows of that layer stating it
        self._wanting: dict[tuple[str, str], list[Row]] = {}
        for row in self.rows:
            for ident in row.provides:
                self._by_interface.setdefault(ident, []).append(row)
                if binds(ident, row.project):
                    self._binding.setdefault(ident, []).append(row)
            for pattern in row.requires | row.accepts:
                self._wanting.setdefault((row.layer, pattern), []).append(row)
        self._wildcards = [key for key in self._wanting if not _GLOB_CHARS.isdisjoint(key[1])]
        self._consumers: dict[tuple[str, str], tuple[Row, ...]] = {}
        self._linkers: dict[str, tuple[Row, ...]] = {}
        self._exporters = [r for r in self.rows if r.layer == "data_plane" and self._signals[r.id]]
        self.richest_exporter = min(
            self._exporters, key=lambda r: (-len(self._signals[r.id]), r.id), default=None
        )
        # Platform rows that only observe: what cost and usage visibility is drafted from.
        self._watchers = [
            r
            for r in self.rows
            if r.layer == "platform"
            and r.provides
            and not r.resource_units - {"none"}
            and all(i.startswith("signal:") for i in r.provides)
        ]
        self._providers: dict[str, tuple[Row, ...]] = {}
        self._provider_ids: dict[str, frozenset[str]] = {}
        self._feeds: dict[tuple[str, str], tuple[str, ...]] = {}
        self._bundles: dict[str, tuple[Row, ...]] = {}
        self._sources: dict[str, tuple[tuple[int, Row], ...]] = {}
        self._watched: dict[str, dict[str, int]] = {}
        self._watcher_by_id = {w.id: w for w in self._watchers}

    def signals(self, row: Row) -> frozenset[str]:
        return self._signals[row.id]

    def providers(self, pattern: str) -> tuple[Row, ...]:
        """The rows whose provides match `pattern`, by id."""
        if pattern not in self._providers:
            if _GLOB_CHARS.isdisjoint(pattern):
                found = self._by_interface.get(pattern, [])
            else:
                found = {
                    r.id: r
                    for ident, rows in self._by_interface.items()
                    if fnmatchcase(ident, pattern)
                    for r in rows
                }.values()
            self._providers[pattern] = tuple(sorted(found, key=lambda r: r.id))
            self._provider_ids[pattern] = frozenset(r.id for r in self._providers[pattern])
        return self._providers[pattern]

    def offers(self, row: Row, pattern: str) -> bool:
        if pattern not in self._provider_ids:
            self.providers(pattern)
        return row.id in self._provider_ids[pattern]

    def satisfied(self, pattern: str, rows: Iterable[Row]) -> bool:
        return _baseline_offers(pattern) or any(self.offers(r, pattern) for r in rows)

    def met(self, pattern: str, ids: set[str]) -> bool:
        """satisfied() for rows given by id."""
        if pattern not in self._provider_ids:
            self.providers(pattern)
        return _baseline_offers(pattern) or not self._provider_ids[pattern].isdisjoint(ids)

    def feeds(self, provider: Row, consumer: Row) -> tuple[str, ...]:
        """Interfaces `provider` offers that `consumer` requires or accepts."""
        key = (provider.id, consumer.id)
        if key not in self._feeds:
            links = links_between(provider, consumer)
            self._feeds[key] = tuple(sorted({link.interface for link in links}))
        return self._feeds[key]

    def links(self, a: Row, b: Row) -> list[str]:
        return sorted(set(self.feeds(a, b)) | set(self.feeds(b, a)))

    def consumers(self, interface: str, layer: str) -> tuple[Row, ...]:
        """Rows of `layer` whose requires or accepts match `interface`: all it can feed there."""
        key = (layer, interface)
        if key not in self._consumers:
            found = {r.id: r for r in self._wanting.get(key, ())}
            for wildcard in self._wildcards:
                if wildcard[0] == layer and fnmatchcase(interface, wildcard[1]):
                    found.update((r.id, r) for r in self._wanting[wildcard])
            self._consumers[key] = tuple(found.values())
        return self._consumers[key]

    def fed_by(self, row: Row, layer: str) -> dict[str, Row]:
        """Rows of `layer` `row` may feed, by id (feeds() says what, if anything, it does)."""
        return {
            r.id: r
            for ident in row.provides
            if binds(ident, row.project)
            for r in self.consumers(ident, layer)
        }

    def linkers(self, pattern: str) -> tuple[Row, ...]:
        """Rows whose provides can link to a row requiring or accepting `pattern`."""
        if pattern not in self._linkers:
            if _GLOB_CHARS.isdisjoint(pattern):
                found = self._binding.get(pattern, [])
            else:
                found = {
                    r.id: r
                    for ident, rows in self._binding.items()
                    if fnmatchcase(ident, pattern)
                    for r in rows
                }.values()
            self._linkers[pattern] = tuple(found)
        return self._linkers[pattern]

    def linked(self, row: Row, layer: str) -> list[Row]:
        """Rows of `layer` a contract may tie to `row` either way, by id: the only rows for
        which links() can say something."""
        found = self.fed_by(row, layer)
        for pattern in row.requires | row.accepts:
            found.update((r.id, r) for r in self.linkers(pattern) if r.layer == layer)
        return [found[i] for i in sorted(found)]

    def bundle(self, presenter: Row) -> tuple[Row, ...]:
        if presenter.id not in self._bundles:
            self._bundles[presenter.id] = tuple(_data_plane(presenter, self))
        return self._bundles[presenter.id]

    def signal_sources(self, presenter: Row) -> tuple[tuple[int, Row], ...]:
        """Exporters `presenter` feeds, best wired first: (interfaces fed, row)."""
        if presenter.id not in self._sources:
            fed = self.fed_by(presenter, "data_plane")
            options = [
                (len(self.feeds(presenter, row)), row)
                for row in self._exporters
                if row.id in fed and self.feeds(presenter, row)
            ]
            self._sources[presenter.id] = tuple(
                sorted(options, key=lambda option: (-option[0], option[1].id))
            )
        return self._sources[presenter.id]

    def watched(self, member: Row) -> dict[str, int]:
        """Watcher id -> interfaces `member` feeds it, for the watchers it feeds at all."""
        if member.id not in self._watched:
            fed = self.fed_by(member, "platform")
            counts = {w.id: len(self.feeds(member, w)) for w in self._watchers if w.id in fed}
            self._watched[member.id] = {i: n for i, n in counts.items() if n}
        return self._watched[member.id]

    def watcher(self, watcher_id: str) -> Row:
        return self._watcher_by_id[watcher_id]


def _data_plane(presenter: Row, index: _Index) -> list[Row]:
    """The presenter and its same-unit partners: the other half of one mechanism.

    A partner shares a unit with the presenter, holds none of its ownership tokens and is tied
    to it by a contract (a MIG layout manager and the device plugin strategy advertising it).
    """
    bundle = [presenter]
    units = set(_known_units(presenter))
    for row in index.linked(presenter, "data_plane"):
        if (
            row.id != presenter.id
            and units & row.resource_units
            and not any(row.exclusive & member.exclusive for member in bundle)
            and index.links(presenter, row)
        ):
            bundle.append(row)
    return bundle


def _pool_signals(index: _Index, draft: _Draft, pool: str) -> set[str]:
    reach = draft.pools[pool] + draft.cluster_wide
    return {s for r in reach if r.layer == "data_plane" for s in index.signals(r)}


def _conflicts_with(row: Row, members: Iterable[Row]) -> bool:
    return any(row.exclusive & other.exclusive for other in members)


def _add_signal_sources(draft: _Draft, index: _Index) -> None:
    """Give each pool whose data plane exports nothing an exporter wired to its presenter."""
    in_stack = {r.id for r in draft.rows()}
    for plan in draft.plans:
        if _pool_signals(index, draft, plan.name):
            continue
        presenter = draft.presenters[plan.name]
        reach = draft.pools[plan.name] + draft.cluster_wide
        source = next(
            (
                row
                for _count, row in index.signal_sources(presenter)
                if row.id not in in_stack and not _conflicts_with(row, reach)
            ),
            None,
        )
        if source is not None:
            draft.pools[plan.name].append(source)
            draft.why[source.id] = _("exports signals for pool %(pool)s", pool=plan.name)
            in_stack.add(source.id)


def _add_visibility(draft: _Draft, index: _Index) -> None:
    """Add one platform row that only observes (cost and usage visibility) and sees the stack."""
    stack = draft.rows()
    in_stack = {r.id for r in stack}
    seen: dict[str, int] = {}
    for member in stack:
        for watcher, count in index.watched(member).items():
            seen[watcher] = seen.get(watcher, 0) + count
    options = [(count, watcher) for watcher, count in seen.items() if watcher not in in_stack]
    if options:
        _rank, watcher_id = min(options, key=lambda option: (-option[0], option[1]))
        row = index.watcher(watcher_id)
        draft.cluster_wide.append(row)
        draft.watcher = row
        draft.why[row.id] = _("cost and usage visibility")


def _unmet(draft: _Draft, index: _Index) -> list[tuple[str, str, str | None]]:
    """(row, pattern, pool) for each unmet requires, with check_stack's reach rules.

    Drafting needs this after every added row; the full check runs once, on the result.
    """
    cluster_wide = {r.id for r in draft.cluster_wide}
    everything = cluster_wide | {r.id for members in draft.pools.values() for r in members}
    reach = {name: cluster_wide | {m.id for m in members} for name, members in draft.pools.items()}
    checks = [(r, None, everything) for r in draft.cluster_wide] + [
        (r, name, reach[name]) for name, members in draft.pools.items() for r in members
    ]
    return sorted(
        (row.id, pattern, pool)
        for row, pool, reach in checks
        for pattern in row.requires
        if not index.met(pattern, reach - {row.id})
    )


def _close_gaps(draft: _Draft, index: _Index) -> bool:
    """Add catalog providers until nothing is unmet; False when a gap has no safe provider."""
    for _attempt in range(len(index.rows) + 1):
        unmet = _unmet(draft, index)
        if not unmet:
            return True
        consumer, pattern, pool_of_gap = unmet[0]
        stack = draft.rows()
        in_stack = {r.id for r in stack}
        open_patterns = {p for _row, p, _pool in unmet}
        best: tuple[tuple[int, int, str], Row, str | None] | None = None
        for row in index.providers(pattern):
            if row.id in in_stack:
                continue
            # A row holding an ownership token only goes into the pool that needs it; anywhere
            # else it would claim devices in every pool.
            pool = pool_of_gap if row.exclusive else None
            if row.exclusive and (
                pool is None or _conflicts_with(row, draft.pools[pool] + draft.cluster_wide)
            ):
                continue
            closes = sum(index.offers(row, p) for p in open_patterns)
            opens = sum(not index.met(p, in_stack | {row.id}) for p in row.requires)
            key = (-closes, opens, row.id)
            if best is None or key < best[0]:
                best = (key, row, pool)
        if best is None:
            return False
        _gain, row, pool = best
        (draft.pools[pool] if pool else draft.cluster_wide).append(row)
        closed = sorted({p for _row, p, _pool in unmet if index.offers(row, p)})
        needing = sorted({c for c, p, _pool in unmet if p in closed})
        draft.why[row.id] = _(
            "provides %(ids)s for %(rows)s", ids=", ".join(closed), rows=", ".join(needing)
        )
    return False


def _governors(needs: _Needs, index: _Index) -> list[Row | None]:
    if not needs.capabilities:
        return [None]
    wanted = set(needs.capabilities)
    return [r for r in index.rows if r.layer == "control_plane" and wanted & r.provides]


@dataclass(frozen=True, slots=True)
class _Slots:
    """One shape's search space: the candidates for each slot a draft fills, in catalog order."""

    shape: str
    plans: tuple[_PoolPlan, ...]
    needs: _Needs
    presenters: tuple[tuple[Row, ...], ...]  # per plan: the rows that may present its GPUs
    governors: tuple[Row | None, ...]


def _slots(profile: Profile, index: _Index) -> list[_Slots]:
    slots = []
    for shape, plans in _shapes(profile):
        needs = _needs(profile, shape)
        presenters = tuple(
            tuple(row for row in index.rows if _may_present(row, plan.presenters)) for plan in plans
        )
        slots.append(_Slots(shape, plans, needs, presenters, tuple(_governors(needs, index))))
    return slots


def _draft(
    slots: _Slots, presenters: tuple[Row, ...], governor: Row | None, index: _Index
) -> _Draft | None:
    """The stack of these presenters (one per pool) under `governor`, its gaps closed.

    None when two pools would run the same component or a gap has no safe provider.
    """
    plans = slots.plans
    bundles = [index.bundle(presenter) for presenter in presenters]
    ids = [r.id for bundle in bundles for r in bundle]
    if len(set(ids)) != len(ids):
        return None  # both pools would run the same component
    draft = _Draft(
        shape=slots.shape,
        plans=plans,
        presenters={p.name: b[0] for p, b in zip(plans, bundles, strict=True)},
        pools={p.name: list(b) for p, b in zip(plans, bundles, strict=True)},
    )
    for plan, bundle in zip(plans, bundles, strict=True):
        draft.why[bundle[0].id] = _("presents the GPUs of pool %(pool)s", pool=plan.name)
        for partner in bundle[1:]:
            draft.why[partner.id] = _(
                "completes %(row)s in pool %(pool)s", row=bundle[0].label, pool=plan.name
            )
    if governor is not None:
        draft.governor = governor
        draft.cluster_wide.append(governor)
        draft.why[governor.id] = _("governs queues, quotas and priority")
    # Observability belongs to every data plane (METHOD), not only to P99 profiles.
    _add_signal_sources(draft, index)
    if slots.needs.visibility:
        _add_visibility(draft, index)
    return draft if _close_gaps(draft, index) else None
