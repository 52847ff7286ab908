"""What each pool of a drafted stack is, in facts and in words: the units it gives each workload,
its isolation per aspect, how tenants share it, the acceptance checks that test it, and the
stack's explanation and trade-off in one line."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from catalog.engine.profile import Profile
from catalog.engine.rows import LAYERS, Row
from catalog.engine.text import _, joined
from catalog.engine.units import (
    LEVELS,
    SHARING_UNITS,
    WHOLE_UNITS,
    units_isolation,
    weakest_per_aspect,
)
from catalog.engine.words import UNIT_WORDS, word
from evaluations.engine.drafting import (
    BATCH_KINDS,
    POOL_LABELS,
    SHAPES,
    _Draft,
    _PoolPlan,
    _time_shared,
    demanded_for,
    presents_to_pods,
    tenant_sharing,
)
from evaluations.engine.groups import landed_demand


@dataclass(frozen=True, slots=True)
class PoolFacts:
    """What one pool gives its work."""

    units: tuple[str, ...]
    isolation: Mapping[str, str]  # the weakest of its units, per aspect
    by_kind: Mapping[str, Mapping[str, str]]  # workload type -> isolation of its units
    demanded: Mapping[str, str]  # workload type -> isolation demanded for it here
    tenant_sharing: str  # none | within_tenant | across_tenants


def shortfalls(isolation: Mapping[str, str], level: str, profile: Profile) -> list[tuple[str, str]]:
    """(aspect, demanded level) where `isolation` falls short of `level` for this profile: hard
    means memory, compute and fault; low jitter tolerance demands soft compute at least; an
    incident on failure demands the fault containment of the level."""
    demanded = dict.fromkeys(("memory", "compute"), level) if level != "none" else {}
    if level == "hard" or (profile.failure_semantics == "incident" and level != "none"):
        demanded["fault"] = level
    if profile.jitter_tolerance == "low" and LEVELS[demanded.get("compute", "none")] < 1:
        demanded["compute"] = "soft"
    return [
        (aspect, wanted)
        for aspect, wanted in demanded.items()
        if LEVELS[isolation[aspect]] < LEVELS[wanted]
    ]


def demanded_aspects(level: str, profile: Profile) -> int:
    """How many aspects `shortfalls` judges at `level`."""
    aspects = 2 if level != "none" else 0
    if level == "hard" or (profile.failure_semantics == "incident" and level != "none"):
        aspects += 1
    if not aspects and profile.jitter_tolerance == "low":
        aspects = 1
    return aspects


def pool_facts(
    plan: _PoolPlan,
    presenter: Row,
    profile: Profile,
    members: Iterable[Row] = (),
    cache: dict[tuple[object, ...], PoolFacts] | None = None,
) -> PoolFacts:
    """What the pool gives each of its workloads: units, isolation, how tenants share it. Every
    data-plane row of the pool that presents a unit for a workload counts, so a partner weaker
    than the presenter (a device hook beside a device plugin) lowers what the pool promises.
    `cache` (one per ranking, for one profile) keeps the answers drafting asks again."""
    rows = [presenter] + [r for r in members if r.id != presenter.id and r.layer == "data_plane"]
    if cache is None:
        return _pool_facts(plan, rows, profile)
    key = (id(plan), *(r.id for r in rows))
    facts = cache.get(key)
    if facts is None:
        facts = cache[key] = _pool_facts(plan, rows, profile)
    return facts


def _pool_facts(plan: _PoolPlan, rows: list[Row], profile: Profile) -> PoolFacts:
    by_kind: dict[str, dict[str, str]] = {}
    given: set[str] = set()
    shared: list[Mapping[str, str]] = []
    for kind in plan.workloads:
        levels = []
        for row in rows:
            units = row.resource_units & plan.units[kind]
            if units:
                given |= units
                levels.append(units_isolation(units, row.isolation))
                if units & SHARING_UNITS:
                    shared.append(units_isolation(units & SHARING_UNITS, row.isolation))
        by_kind[kind] = weakest_per_aspect(levels)
    sharing = tenant_sharing(given, weakest_per_aspect(shared), profile, plan.tenants)
    return PoolFacts(
        units=tuple(sorted(given)),
        isolation=weakest_per_aspect(list(by_kind.values())),
        by_kind=by_kind,
        demanded={
            kind: demanded_for(kind, profile, sharing, plan.tenants or ())
            for kind in plan.workloads
        },
        tenant_sharing=sharing,
    )


def members(draft: _Draft, plan: _PoolPlan) -> list[Row]:
    """The rows that give the pool's work its units: the presenter and its partners, and any
    other row in reach that presents devices to pods (one joined to close a gap counts too)."""
    bundle = draft.bundles.get(plan.name) or [draft.presenters[plan.name]]
    ids = {r.id for r in bundle} | draft.required
    others = [
        r
        for r in draft.pools[plan.name] + draft.cluster_wide
        if r.id not in ids and presents_to_pods(r)
    ]
    return bundle + others


def _target(profile: Profile) -> str:
    if profile.p99_target_ms:
        return _("the %(ms)s ms target", ms=f"{profile.p99_target_ms:g}")
    return _("the SLO")


def pool_checks(plan: _PoolPlan, facts: PoolFacts, profile: Profile) -> list[str]:
    """The acceptance checks that test this pool, for the work it serves."""
    kinds = set(plan.workloads)
    checks: list[str] = []
    if kinds & BATCH_KINDS:
        checks += [
            _("throughput (samples or jobs per GPU-hour) against the current setup"),
            _("job wait time in the queue, per queue"),
            _("a distributed job starts all its workers or none (gang scheduling)"),
            _("effect of the preemption policy on job success rate"),
        ]
    needs = plan.model.multi_node_requires if plan.model is not None else ()
    if kinds & BATCH_KINDS and any("ComputeDomain" in pattern for pattern in needs):
        checks += [
            _(
                "a job across nodes gets one ComputeDomain: its pods receive IMEX channels and "
                "land in one NVLink partition (node label nvidia.com/gpu.clique)"
            ),
            _(
                "NCCL all-reduce bandwidth between nodes of one NVLink domain against the "
                "Multi-Node NVLink rate the hardware is sold for"
            ),
        ]
    if "online_inference" in kinds:
        if set(facts.units) & SHARING_UNITS:
            checks += [
                _(
                    "P99 latency against %(target)s under co-located load",
                    target=_target(profile),
                ),
                _("jitter while other work loads the same GPUs"),
                _("blast radius of a failing or noisy neighbour"),
            ]
        else:  # whole devices: no neighbour on the same GPU to measure against
            checks.append(_("P99 latency against %(target)s at peak load", target=_target(profile)))
        checks.append(_("fault isolation and the rollback path"))
        if kinds & BATCH_KINDS and _time_shared(profile):
            checks.append(
                _(
                    "the hand-over when the training window closes: jobs checkpoint and yield "
                    "the GPUs before serving load rises"
                )
            )
    if "interactive" in kinds:
        checks += [
            _("a notebook cannot read or exhaust another notebook's GPU memory"),
            _("blast radius of a failing or noisy notebook"),
        ]
    if profile.tenancy == "multi":
        if facts.tenant_sharing == "within_tenant":
            checks.append(
                _(
                    "each tenant's pods land only on its own pool (node labels, taints and "
                    "namespace quotas)"
                )
            )
        elif facts.tenant_sharing == "across_tenants":
            checks.append(_("a tenant cannot see or reach another tenant's share of a GPU"))
    return checks


def _stack_checks(profile: Profile) -> list[str]:
    if profile.tenancy != "multi":
        return []
    return [
        _("self-service GPU requests per team"),
        _("audit trail of who requested and used which GPUs"),
        _("cost visibility per team and per pool"),
    ]


def pool_details(draft: _Draft, profile: Profile) -> dict[str, dict[str, Any]]:
    """`pool_details` of the recommendation JSON (DESIGN.md): per pool name, what it is, the
    node group it lives on, the tenants it serves by name ([] when the profile names none) and
    the demand of theirs that lands there."""
    details = {}
    landed = landed_demand(draft.plans, profile)
    for plan in draft.plans:
        facts = pool_facts(plan, draft.presenters[plan.name], profile, members(draft, plan))
        details[plan.name] = {
            "label": POOL_LABELS.get(plan.name, plan.name),
            "units": list(facts.units),
            "isolation": dict(facts.isolation),
            "tenant_sharing": facts.tenant_sharing,
            "workloads": list(plan.workloads),
            "acceptance_checks": pool_checks(plan, facts, profile),
            "node_group": plan.group,
            "gpu_model": plan.model.name if plan.model is not None else None,
            "tenants": plan.tenant_names,
            "demand": [
                {"tenant": tenant.name, **item.to_dict()} for tenant, item in landed[plan.name]
            ],
        }
    return details


def demand_warnings(
    draft: _Draft, details: Mapping[str, Mapping[str, Any]], profile: Profile
) -> list[str]:
    """Where the named tenants' demand does not fit the pools it lands in: always-on whole GPUs
    beyond a node group's GPUs, and MIG instances of a profile the pool's GPUs do not have."""
    warnings: list[str] = []
    groups = {group.name: group for group in profile.groups}
    held: dict[str, list[tuple[str, str, int]]] = {}
    for plan in draft.plans:
        for item in details[plan.name]["demand"]:
            whole = item.get("gpus")
            if whole is None and "mig_profile" not in item and "replicas" in item:
                whole = item["replicas"] * item.get("gpus_per_replica", 1)
            if whole and item["when"] == "always":
                held.setdefault(plan.group or "", []).append((plan.name, item["tenant"], whole))
            mig = item.get("mig_profile")
            if mig and (plan.model is None or plan.model.mig_profile(mig) is None):
                warnings.append(
                    _(
                        "pool %(pool)s: tenant %(tenant)s asks for MIG %(profile)s instances, "
                        "which %(model)s does not have",
                        pool=plan.name,
                        tenant=item["tenant"],
                        profile=mig,
                        model=plan.model.name if plan.model else _("its GPU model"),
                    )
                )
    for name, demands in held.items():
        group = groups.get(name)
        total = sum(gpus for _pool, _tenant, gpus in demands)
        if group is None or group.gpus is None or total <= group.gpus:
            continue
        warnings.append(
            _(
                "node group %(group)s has %(gpus)s GPUs, but the always-on demand landing there "
                "asks for %(total)s (%(who)s): add nodes, or move work to another group",
                group=name,
                gpus=group.gpus,
                total=total,
                who=", ".join(f"{tenant} {gpus} in pool {pool}" for pool, tenant, gpus in demands),
            )
        )
    return warnings


def acceptance_checks(draft: _Draft, details: Mapping[str, Mapping[str, Any]], profile):
    """Every pool's checks, each named with its pool, then the checks of the whole stack."""
    checks = [
        _("pool %(pool)s: %(check)s", pool=name, check=check)
        for name, pool in details.items()
        for check in pool["acceptance_checks"]
    ]
    return checks + _stack_checks(profile)


_SHARING_WORDS = {
    "none": _("whole devices, never shared"),
    "within_tenant": _("shared within one tenant"),
    "across_tenants": _("shared between tenants"),
}


def _unit_words(units: Iterable[str]) -> str:
    return joined(", ", (word(UNIT_WORDS, unit) for unit in units))


def trade_off(
    draft: _Draft,
    details: Mapping[str, Mapping[str, Any]],
    profile: Profile,
    shape: str | None = None,
) -> str:
    """The stack's trade-off in one line: what it buys and what it costs (`shape`: the label
    the stack is shown with, when it differs from the shape it was drafted as)."""
    shape = shape or draft.shape
    units = {u for pool in details.values() for u in pool["units"]}
    plans = {plan.name: plan for plan in draft.plans}
    per_tenant = [
        n
        for n, p in details.items()
        if p["tenant_sharing"] == "within_tenant" and plans[n].tenant_count(profile) > 1
    ]
    per_tenant = per_tenant if profile.tenancy == "multi" else []
    if shape == "A":
        line = _(
            "One pool of whole devices: the simplest to run and isolate; small work holds "
            "whole GPUs, so capacity is wasted where a fraction would do"
        )
    elif shape == "B":
        line = _(
            "One pool sharing GPUs through %(units)s: the most work per GPU; every workload "
            "meets the others on the same devices",
            units=_unit_words(sorted(units & SHARING_UNITS) or sorted(units)),
        )
    else:
        line = _(
            "Split pools, each on the unit its work wants (%(pools)s): %(count)s pools to size "
            "and operate",
            pools=joined(
                "; ",
                (
                    _(
                        "%(pool)s: %(units)s",
                        pool=POOL_LABELS.get(n, n),
                        units=_unit_words(p["units"]),
                    )
                    for n, p in details.items()
                ),
            ),
            count=len(details),
        )
    if "mig_slice" in units:
        line = _("%(line)s; a MIG layout changes only by draining its GPUs", line=line)
    if "amd_partition" in units:
        line = _("%(line)s; an AMD partition mode changes only by draining its GPUs", line=line)
    if per_tenant:
        line = _(
            "%(line)s; one pool per tenant for %(pools)s, so a tenant's idle GPUs cannot serve "
            "another",
            line=line,
            pools=", ".join(per_tenant),
        )
    if units <= WHOLE_UNITS and shape != "A":
        line = _("%(line)s; every pod holds whole GPUs", line=line)
    return line


def ordered(rows: Iterable[Row]) -> list[str]:
    return [r.id for r in sorted(rows, key=lambda r: (LAYERS.index(r.layer), r.id))]


def explanation(
    draft: _Draft,
    details: Mapping[str, Mapping[str, Any]],
    notes: list[str],
    shape: str | None = None,
) -> str:
    shape = shape or draft.shape
    parts = [_("Shape %(shape)s (%(name)s).", shape=shape, name=SHAPES[shape])]
    for plan in draft.plans:
        pool = details[plan.name]
        members = ", ".join(r.label for r in draft.pools[plan.name])
        serves = joined(", ", (_(kind) for kind in plan.workloads)) or _("all work")
        parts.append(
            _(
                "Pool %(pool)s (%(label)s; for %(serves)s; %(units)s, %(sharing)s): %(members)s.",
                pool=plan.name,
                label=pool["label"],
                serves=serves,
                units=_unit_words(pool["units"]),
                sharing=_SHARING_WORDS[pool["tenant_sharing"]],
                members=members,
            )
        )
    if draft.governor is not None:
        points = joined(", ", (_(point) for point in sorted(draft.governor.enforcement_points)))
        parts.append(
            _(
                "Control plane: %(row)s, enforcing at %(points)s.",
                row=draft.governor.label,
                points=points,
            )
        )
    support = [r for r in draft.cluster_wide if r is not draft.governor]
    if support:
        parts.append(
            _(
                "Cluster-wide: %(rows)s.",
                rows=joined(
                    "; ",
                    (_("%(row)s (%(why)s)", row=r.label, why=draft.why[r.id]) for r in support),
                ),
            )
        )
    if notes:
        parts.append(_("Costs: %(notes)s.", notes=joined("; ", notes)))
    return joined(" ", parts)
