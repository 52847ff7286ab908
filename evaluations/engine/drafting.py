"""Drafting candidate stacks for a step-1 profile: the shapes of METHOD.md's decision flow, the
pools they call for, and the catalog rows that fill each pool and close every contract gap."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

from catalog.engine.baseline import runs_on
from catalog.engine.fit import lacks_partitions, may_share_across_tenants, presents_other_devices
from catalog.engine.fleet import Tenant
from catalog.engine.gpus import GpuModel
from catalog.engine.profile import OFF_HOURS, Profile
from catalog.engine.rows import Row
from catalog.engine.stack import DEFAULT_POOL, governed
from catalog.engine.text import _
from catalog.engine.units import (
    LEVELS,
    PARTITION_UNITS,
    SHARING_UNITS,
    WHOLE_UNITS,
)
from evaluations.engine.groups import BATCH_KINDS, SERVING_KINDS, place_on_groups
from evaluations.engine.index import _Index

# Pool keys (the JSON's); pages show POOL_LABELS.
TRAINING_POOL, INFERENCE_POOL, INTERACTIVE_POOL = "training", "inference", "interactive"
POOL_LABELS: Mapping[str, str] = MappingProxyType(
    {
        DEFAULT_POOL: _("all work"),
        TRAINING_POOL: _("training and batch"),
        INFERENCE_POOL: _("online inference"),
        INTERACTIVE_POOL: _("interactive notebooks"),
    }
)

SHAPES: Mapping[str, str] = MappingProxyType(
    {
        "A": _("offline training / batch first"),
        "B": _("online inference / multi-tenant first"),
        "C": _("mixed training, inference and interactive work on split pools"),
    }
)

_LEVEL = LEVELS
_COST_LEVEL = {"low": 0, "medium": 1, "high": 2}


@dataclass(frozen=True, slots=True)
class UnitTraits:
    """What naming a resource unit fixes (METHOD step 2) beyond its isolation ceiling
    (catalog.engine.units)."""

    shares: bool  # parts of one device can go to different pods (tenants)
    reconfiguration: str  # low | medium | high


UNIT_TRAITS: Mapping[str, UnitTraits] = MappingProxyType(
    {
        "whole_gpu": UnitTraits(shares=False, reconfiguration="low"),
        # Changing a MIG layout or an AMD partition mode drains the GPU: the price of a hard
        # partition.
        "mig_slice": UnitTraits(shares=True, reconfiguration="high"),
        "amd_partition": UnitTraits(shares=True, reconfiguration="high"),
        "vgpu": UnitTraits(shares=True, reconfiguration="medium"),
        "dra_claim": UnitTraits(shares=False, reconfiguration="low"),
        "memory_compute_quota": UnitTraits(shares=True, reconfiguration="low"),
        "mps_share": UnitTraits(shares=True, reconfiguration="low"),
        # METHOD: time slicing is a sharing policy, not a hard partition.
        "time_slice": UnitTraits(shares=True, reconfiguration="low"),
    }
)

_SOFT_SHARING = frozenset({"vgpu", "memory_compute_quota", "mps_share"})

GANG, QUOTA, PREEMPTION, FAIR_SHARING, TOPOLOGY = (
    "capability:gang-scheduling",
    "capability:quota",
    "capability:preemption",
    "capability:fair-sharing",
    "capability:topology-aware",
)

# Ranked priorities weigh their criterion more; unranked ones keep weight 1.
_PRIORITY_WEIGHTS = (2.0, 1.6, 1.3, 1.1)


def workload_units(kind: str, profile: Profile, tenants: Iterable[Tenant] = ()) -> frozenset[str]:
    """The units that suit a workload type (METHOD's shape table, sharpened by issue 26).

    Training and batch run on whole GPUs or whole-GPU claims unless the profile demands less
    than hard isolation for them by name (MIG has no GPU-to-GPU P2P; a slice is not a GPU).
    Online inference wants strong or at least provable isolation: whole GPUs or hardware
    partitions (MIG, AMD partitions), soft sharing only where its isolation is soft. Interactive
    work wants a fraction of a GPU: hardware partitions, soft sharing or, where nothing is
    demanded, time slices. A tenant's own isolation binds the work it runs (`tenants`: those the
    pool serves)."""
    level = profile.isolation_for(kind, tenants)
    if kind in BATCH_KINDS:
        named_below_hard = dict(profile.workload_isolation).get(kind) in ("soft", "none")
        return WHOLE_UNITS | (_SOFT_SHARING | PARTITION_UNITS if named_below_hard else frozenset())
    if kind == "online_inference":
        units = WHOLE_UNITS | PARTITION_UNITS
        if level != "hard":
            units |= _SOFT_SHARING
        return frozenset(units | ({"time_slice"} if level == "none" else set()))
    units = PARTITION_UNITS | _SOFT_SHARING
    return frozenset(units | ({"time_slice"} if level != "hard" else set()))


@dataclass(frozen=True, slots=True)
class _PoolPlan:
    """A node pool the shape calls for: the work it serves and the units that may serve it."""

    name: str
    workloads: tuple[str, ...]
    units: Mapping[str, frozenset[str]]  # workload type -> the units that may serve it here
    isolation: str  # the strongest isolation demanded of its work
    shares: bool = False  # shape B: the pool's serving work shares GPUs
    # The node group it lives on and that group's GPU model (None: not said, or not in the GPU
    # facts when `unknown_model`), and the named tenants it serves (None: every tenant of a
    # profile that names none).
    group: str | None = None
    model: GpuModel | None = None
    unknown_model: bool = False
    tenants: tuple[Tenant, ...] | None = None

    @property
    def tenant_names(self) -> list[str]:
        return [tenant.name for tenant in self.tenants or ()]

    def tenant_count(self, profile: Profile) -> int:
        """How many tenants this pool serves."""
        if self.tenants is not None:
            return len(self.tenants)
        return profile.tenant_count or (2 if profile.tenancy == "multi" else 1)

    def group_allows(self, row: Row) -> bool:
        """Whether `row` may present this pool's GPUs: a row of the group's GPU vendor (or
        vendor-neutral), never hardware partitions the model lacks, and on a model the GPU facts
        do not know, no vendor-specific row at all (nothing is guessed)."""
        if self.unknown_model:
            return not row.vendors
        if self.model is None:
            return True
        if not row.serves(self.model.vendor) or presents_other_devices(row, self.model):
            return False
        return not lacks_partitions(row, self.model)

    def suits(self, row: Row) -> bool:
        """Whether `row` presents, to pods, a unit for every workload of the pool (and, for a
        sharing pool, a shared unit to its serving work), on the pool's node group."""
        if not presents_to_pods(row) or not self.group_allows(row):
            return False
        if not all(row.resource_units & units for units in self.units.values()):
            return False
        if self.shares:
            serving = [units for kind, units in self.units.items() if kind in SERVING_KINDS]
            return any(row.resource_units & units & SHARING_UNITS for units in serving)
        return True


def _given(plan: _PoolPlan, row: Row) -> set[str]:
    return {u for units in plan.units.values() for u in row.resource_units & units}


def presents_to_pods(row: Row) -> bool:
    """A data-plane row pods can ask for by name: it presents devices and advertises a resource
    name or a DRA ResourceSlice. A layout manager (MIG manager), a VM passthrough, or a runtime
    hook completes a presenter but cannot be one."""
    return (
        row.layer == "data_plane"
        and "present" in row.functions
        and any(
            ident.startswith("resource:")
            or ident.startswith("api:resource.k8s.io/")
            and ident.endswith("/ResourceSlice")
            for ident in row.provides
        )
    )


def tenant_sharing(
    units: Iterable[str],
    shared: Mapping[str, str],
    profile: Profile,
    tenants: tuple[Tenant, ...] | None = None,
) -> str:
    """none: each GPU serves one pod; within_tenant: one pool per tenant (or one tenant);
    across_tenants: pods of several tenants share GPUs, as the profile allows. `shared` is the
    isolation the pool's shared units give; `tenants` those the pool serves by name (None: all),
    whose strictest rule binds it."""
    if not set(units) & SHARING_UNITS:
        return "none"
    if profile.tenancy != "multi" or (tenants is not None and len(tenants) <= 1):
        return "within_tenant"
    rule = profile.rule_for(tenants) if tenants is not None else profile.tenant_rule
    if may_share_across_tenants(rule, shared):
        return "across_tenants"
    return "within_tenant"


def demanded_for(kind: str, profile: Profile, sharing: str, tenants: Iterable[Tenant] = ()) -> str:
    """The isolation demanded for `kind` in a pool shared as `sharing`. Interactive work that
    shares GPUs only within a tenant is what METHOD's shared pool is for: soft there, unless the
    profile (or a tenant the pool serves) names its isolation."""
    tenants = tuple(tenants)
    level = profile.isolation_for(kind, tenants)
    named = kind in dict(profile.workload_isolation) or any(
        t.isolation for t in tenants if kind in t.workloads
    )
    if kind == "interactive" and sharing != "across_tenants" and not named and level == "hard":
        return "soft"
    return level


@dataclass(frozen=True, slots=True)
class _Needs:
    """What the profile asks of the stack beyond the data plane."""

    capabilities: tuple[str, ...]
    enforcement_points: frozenset[str]
    visibility: bool
    # Interfaces the GPU model's facts demand for training across nodes (a ComputeDomain on a
    # GB200 NVL72 rack), joined to the pool that trains.
    interfaces: tuple[str, ...] = ()


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
    # Per pool, the presenter and its same-unit partners: the rows that give the pool's work
    # its units (what pool_details judges), as opposed to exporters and helpers beside them.
    bundles: dict[str, list[Row]] = field(default_factory=dict)
    # Rows joined for an interface the GPU model demands (a ComputeDomain), not to present GPUs.
    required: set[str] = field(default_factory=set)

    def rows(self) -> list[Row]:
        """Each row once, though one component (a device plugin) may run in several pools."""
        everything = [r for members in self.pools.values() for r in members] + self.cluster_wide
        return list({r.id: r for r in everything}.values())

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


def _needs(profile: Profile, shape: str, plans: Iterable[_PoolPlan] = ()) -> _Needs:
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
    # What the training pool's GPU model needs for jobs across nodes (its node group's model).
    trains = [plan for plan in plans if set(plan.workloads) & BATCH_KINDS]
    model = trains[0].model if trains else None
    interfaces = model.multi_node_requires if model is not None and batchy else ()
    return _Needs(tuple(capabilities), frozenset(points), wants_visibility, interfaces)


def _plan(
    name: str, kinds: Iterable[str], profile: Profile, only=None, shares: bool = False
) -> _PoolPlan:
    kinds = tuple(kinds)
    tenants = profile.tenants_running(kinds) if profile.tenants else None
    units = {kind: workload_units(kind, profile, tenants or ()) for kind in kinds}
    if only is not None:
        units = {kind: allowed & only for kind, allowed in units.items()}
    isolation = max(
        (profile.isolation_for(k, tenants or ()) for k in kinds),
        key=_LEVEL.__getitem__,
        default=profile.isolation,
    )
    return _PoolPlan(name, kinds, MappingProxyType(units), isolation, shares, tenants=tenants)


def _shapes(profile: Profile) -> list[tuple[str, tuple[_PoolPlan, ...]]]:
    """The shapes worth drafting for this profile, each with the pools it calls for.

    A: one pool of whole devices, where training or batch leads and no notebook wants a fraction
    of a GPU. B: one pool whose GPUs are shared, where online inference or interactive work
    leads. C: a pool per kind of work (training, online inference, interactive), each on the
    unit its work wants; when training runs only off hours, also C with training borrowing the
    inference pool by time window, provided that pool gives whole GPUs (no MIG layout to drain).
    """
    kinds = tuple(profile.workload_types)
    batchy = tuple(k for k in kinds if k in BATCH_KINDS)
    serving = tuple(k for k in kinds if k in SERVING_KINDS)
    shapes: list[tuple[str, tuple[_PoolPlan, ...]]] = []
    shape_a = bool(batchy) and "interactive" not in kinds
    if shape_a:
        shapes.append(("A", (_plan(DEFAULT_POOL, kinds, profile, only=WHOLE_UNITS),)))
    if serving or not batchy:
        # Beside shape A, B is the pool that shares GPUs (else it would be A again).
        shares = shape_a and bool(serving)
        shapes.append(("B", (_plan(DEFAULT_POOL, kinds, profile, shares=shares),)))
    classes = [
        (TRAINING_POOL, batchy),
        (INFERENCE_POOL, tuple(k for k in kinds if k == "online_inference")),
        (INTERACTIVE_POOL, tuple(k for k in kinds if k == "interactive")),
    ]
    present = [(name, members) for name, members in classes if members]
    if len(present) > 1:
        shapes.append(("C", tuple(_plan(name, members, profile) for name, members in present)))
        borrowers = _time_shared(profile)
        if borrowers and "online_inference" in kinds:
            merged = [(INFERENCE_POOL, ("online_inference", *borrowers))] + [
                (name, members) for name, members in present if name == INTERACTIVE_POOL
            ]
            shapes.append(
                (
                    "C" if len(merged) > 1 else "B",
                    tuple(
                        _plan(
                            name,
                            members,
                            profile,
                            only=WHOLE_UNITS if name == INFERENCE_POOL else None,
                        )
                        for name, members in merged
                    ),
                )
            )
    return shapes


def _time_shared(profile: Profile) -> tuple[str, ...]:
    """The training and batch types that can borrow the serving GPUs by time window instead of
    holding a pool of their own: they run only off hours, and every serving type is said to run
    in business hours only, so its GPUs stand idle when they run. Work said to run always (or
    whose window is not said) frees nothing."""
    kinds = profile.workload_types
    batchy = [k for k in kinds if k in BATCH_KINDS]
    serving = [k for k in kinds if k in SERVING_KINDS]
    if not batchy or not serving:
        return ()
    if not all(profile.window(k) in OFF_HOURS for k in batchy):
        return ()
    if not all(profile.window(k) == "business_hours" for k in serving):
        return ()
    return tuple(batchy)


def _known_units(row: Row) -> list[str]:
    return sorted(u for u in row.resource_units if u in UNIT_TRAITS)


def _pool_signals(index: _Index, draft: _Draft, pool: str) -> set[str]:
    reach = draft.pools[pool] + draft.cluster_wide
    return {s for r in reach if r.layer == "data_plane" for s in index.signals(r)}


def _conflicts_with(row: Row, members: Iterable[Row]) -> bool:
    return any(row.exclusive & other.exclusive for other in members)


def _add_signal_sources(draft: _Draft, index: _Index) -> None:
    """Give each pool whose data plane exports nothing an exporter wired to its presenter; an
    exporter another pool already runs is preferred (one DaemonSet serves every pool)."""
    for plan in draft.plans:
        if _pool_signals(index, draft, plan.name):
            continue
        presenter = draft.presenters[plan.name]
        reach = draft.pools[plan.name] + draft.cluster_wide
        in_stack = {r.id for r in draft.rows()}
        options = [
            row
            for _count, row in index.signal_sources(presenter)
            if row not in reach and not _conflicts_with(row, reach)
        ]
        source = next((row for row in options if row.id in in_stack), None) or next(
            iter(options), None
        )
        if source is not None:
            draft.pools[plan.name].append(source)
            draft.why.setdefault(source.id, _("exports signals for pool %(pool)s", pool=plan.name))


def _add_required_interfaces(draft: _Draft, needs: _Needs, index: _Index) -> bool:
    """Give the training pool a provider of each interface the GPU model demands; False when
    the catalog has none that fits beside the pool's rows."""
    training = next((p for p in draft.plans if set(p.workloads) & BATCH_KINDS), None)
    for pattern in needs.interfaces if training is not None else ():
        if index.met(pattern, {r.id for r in draft.rows()}):
            continue
        reach = draft.pools[training.name] + draft.cluster_wide
        provider = next(
            (row for row in index.providers(pattern) if not _conflicts_with(row, reach)), None
        )
        if provider is None:
            return False
        draft.pools[training.name].append(provider)
        draft.required.add(provider.id)
        draft.why[provider.id] = _(
            "provides %(ids)s, which the GPU model needs for jobs across nodes", ids=pattern
        )
    return True


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
            if governed(row) and any(governed(member) for member in stack):
                continue  # one governor per scope: a second queueing system is a conflict
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
    for shape, drafted in _shapes(profile):
        plans = place_on_groups(drafted, profile)
        needs = _needs(profile, shape, plans)
        presenters = tuple(
            tuple(
                row
                for row in index.rows
                if plan.suits(row) and runs_on(row, profile.kubernetes_version)
            )
            for plan in plans
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
    if (
        len(plans) > 1
        and len({plan.group for plan in plans}) == 1
        and len(
            {(p.id, frozenset(_given(plan, p))) for plan, p in zip(plans, presenters, strict=True)}
        )
        == 1
    ):
        return None  # every pool the same presenter and unit: a split of nothing (shape A or B)
    draft = _Draft(
        shape=slots.shape,
        plans=plans,
        presenters={p.name: b[0] for p, b in zip(plans, bundles, strict=True)},
        pools={p.name: list(b) for p, b in zip(plans, bundles, strict=True)},
        bundles={p.name: list(b) for p, b in zip(plans, bundles, strict=True)},
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
    if not _add_required_interfaces(draft, slots.needs, index):
        return None
    # Observability belongs to every data plane (METHOD), not only to P99 profiles.
    _add_signal_sources(draft, index)
    if slots.needs.visibility:
        _add_visibility(draft, index)
    return draft if _close_gaps(draft, index) else None
