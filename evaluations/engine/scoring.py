"""Scoring a drafted stack against the profile, and saying why in words (the explanation, what
fits, what is missing, the acceptance checks of its shape)."""

from __future__ import annotations

from fnmatch import fnmatchcase

from catalog.engine.profile import Profile
from catalog.engine.rows import Row
from catalog.engine.stack import StackReport
from catalog.engine.text import _, joined
from catalog.engine.units import SHARING_UNITS, hard_partition
from catalog.engine.words import UNIT_WORDS, words
from evaluations.engine.cluster_fit import (
    _FINDING_PENALTY,
    _score_cluster,
    _score_gpu_fit,
    _Verdict,
)
from evaluations.engine.drafting import (
    _COST_LEVEL,
    _LEVEL,
    BATCH_KINDS,
    TOPOLOGY,
    UNIT_TRAITS,
    _conflicts_with,
    _Draft,
    _known_units,
    _Needs,
    _pool_signals,
    _PoolPlan,
    _weights,
)
from evaluations.engine.index import _Index
from evaluations.engine.pools import demanded_aspects, members, pool_facts, shortfalls

# Components only break ties: a smaller stack is easier to operate.
_PER_COMPONENT = 0.01
# A pool serving work below the isolation the profile demands for it: more than any stack can
# win back, so such a stack ranks (and scores) below every stack that honours the demand.
ISOLATION_BREACH_PENALTY = 20.0


def _score_pool(
    index: _Index,
    draft: _Draft,
    plan: _PoolPlan,
    profile: Profile,
    weights: dict[str, float],
    out: _Verdict,
) -> float:
    presenter = draft.presenters[plan.name]
    facts = pool_facts(plan, presenter, profile, members(draft, plan), index.pool_facts)
    units = list(facts.units)
    traits = [UNIT_TRAITS[u] for u in units if u in UNIT_TRAITS]
    where = _("pool %(pool)s", pool=plan.name)

    scores = []
    for kind in plan.workloads:
        level = facts.demanded[kind]
        short = shortfalls(facts.by_kind[kind], level, profile)
        count = demanded_aspects(level, profile)
        scores.append(1.0 - len(short) / count if count else 1.0)
        if out.words:
            out.missing.extend(
                _(
                    "%(where)s: %(kind)s gets %(aspect)s isolation %(level)s, %(demanded)s is "
                    "demanded",
                    where=where,
                    kind=_(kind),
                    aspect=_(aspect),
                    level=_(facts.by_kind[kind][aspect]),
                    demanded=_(wanted),
                )
                for aspect, wanted in short
            )
    isolation = sum(scores) / len(scores) if scores else 1.0
    offered = joined(
        ", ",
        (
            _("%(aspect)s %(level)s", aspect=_(a), level=_(facts.isolation[a]))
            for a in ("memory", "compute", "fault")
        ),
    )
    if isolation == 1.0 and out.words:
        out.fits.append(
            _(
                "%(where)s: %(row)s gives %(units)s (%(offered)s isolation), as its work demands",
                where=where,
                row=presenter.label,
                units=words(UNIT_WORDS, units),
                offered=offered,
            )
        )

    fit = _score_gpu_fit(units, where, profile, out, plan.model)

    cost = 0.0
    serving = [k for k in plan.workloads if k not in BATCH_KINDS]
    shared_by_tenants = profile.tenancy == "multi" and plan.tenant_count(profile) > 1
    if serving and (shared_by_tenants or weights["cost"] > 1.0):
        if facts.tenant_sharing == "across_tenants":
            cost += 1.0
            if out.words:
                out.fits.append(
                    _(
                        "%(where)s: one GPU serves several tenants through %(units)s, as the "
                        "profile allows",
                        where=where,
                        units=words(UNIT_WORDS, (u for u in units if u in SHARING_UNITS)),
                    )
                )
        elif facts.tenant_sharing == "within_tenant":
            cost += 1.0
            if shared_by_tenants:
                cost -= 1.0  # a pool per tenant: idle GPUs of one cannot serve another
                if out.words:
                    out.notes.append(
                        _(
                            "%(where)s is one pool per tenant%(count)s: GPUs idle in one tenant's "
                            "pool cannot serve another",
                            where=where,
                            count=_(" (%(n)s pools)", n=plan.tenant_count(profile))
                            if profile.tenant_count
                            else "",
                        )
                    )
        else:
            if out.words:
                out.missing.append(
                    _(
                        "%(where)s: %(units)s gives each pod whole devices",
                        where=where,
                        units=words(UNIT_WORDS, units),
                    )
                )
    if traits:
        cheapest = min(_COST_LEVEL[t.reconfiguration] for t in traits)
        strongest = max(_LEVEL[level] for level in facts.isolation.values())
        if cheapest == _COST_LEVEL["high"] and strongest > _LEVEL[plan.isolation]:
            cost -= 1.0
            if out.words:
                out.notes.append(
                    _(
                        "%(where)s pays %(units)s's high reconfiguration cost for isolation "
                        "stronger than demanded",
                        where=where,
                        units=words(UNIT_WORDS, units),
                    )
                )

    # Behind a device shared below hard isolation only the sharing mechanism itself can tell
    # tenants apart; an exporter outside it sees the device, not who used it.
    own = index.signals(presenter)
    if hard_partition(facts.isolation):
        attributable = _pool_signals(index, draft, plan.name)
    else:
        attributable = own
    observability = len(attributable) / (len(attributable) + 5)
    if attributable:
        if out.words:
            out.fits.append(
                _(
                    "%(where)s: %(count)s GPU signals attributable per pod",
                    where=where,
                    count=len(attributable),
                )
            )
    elif _pool_signals(index, draft, plan.name):
        if out.words:
            out.missing.append(
                _(
                    "%(where)s: only device-level signals; none attributes GPU use to the pods "
                    "sharing it",
                    where=where,
                )
            )
    else:
        if out.words:
            out.missing.append(_("%(where)s: no data-plane row exports GPU signals", where=where))

    return (
        3.0 * weights["isolation"] * isolation
        + weights["cost"] * cost
        + weights["observability"] * observability
        + fit
    )


def _score_coverage(draft: _Draft, profile: Profile, out: _Verdict) -> float:
    if not profile.workload_types:
        return 3.0
    served = 0
    for kind in profile.workload_types:
        pools = [
            plan.name
            for plan in draft.plans
            if kind in plan.workloads
            and plan.units[kind] & draft.presenters[plan.name].resource_units
        ]
        if pools:
            served += 1
            out.fits.append(
                _(
                    "%(kind)s runs on a unit that suits it (pool %(pools)s)",
                    kind=_(kind),
                    pools=", ".join(pools),
                )
            )
        else:
            out.missing.append(_("%(kind)s: no pool offers a unit that suits it", kind=_(kind)))
    return 3.0 * served / len(profile.workload_types)


def _score_governor(
    index: _Index,
    draft: _Draft,
    needs: _Needs,
    profile: Profile,
    weights: dict[str, float],
    out: _Verdict,
) -> float:
    governor = draft.governor
    if governor is None:
        return 0.0
    score = _installed_governor(index, governor, profile, weights, out)
    covered = needs.enforcement_points & governor.enforcement_points
    if needs.enforcement_points:
        score += 2.0 * len(covered) / len(needs.enforcement_points)
    for point in sorted(needs.enforcement_points - covered):
        if out.words:
            out.missing.append(
                _("%(row)s does not enforce at %(point)s", row=governor.label, point=_(point))
            )
    extra = sorted(({"scheduler", "admission"} & governor.enforcement_points) - covered)
    for point in extra:
        score -= 0.5 * weights["compatibility"]
        if out.words:
            out.notes.append(
                _(
                    "%(row)s also enforces at %(point)s, which this profile needs not",
                    row=governor.label,
                    point=_(point),
                )
            )
    provided = [c for c in needs.capabilities if c in governor.provides]
    if provided and out.words:
        out.fits.append(_("%(row)s provides %(ids)s", row=governor.label, ids=", ".join(provided)))

    expresses = 0.0
    for plan in draft.plans:
        presenter = draft.presenters[plan.name]
        units = sorted(governor.resource_units & presenter.resource_units)
        resources = [i for i in index.feeds(presenter, governor) if i.startswith("resource:")]
        expresses += 0.5 * bool(units) + 0.5 * bool(resources)
        if units and resources:
            if out.words:
                out.fits.append(
                    _(
                        "%(row)s can express pool %(pool)s's unit (%(units)s) through "
                        "%(resources)s",
                        row=governor.label,
                        pool=plan.name,
                        units=words(UNIT_WORDS, units),
                        resources=", ".join(resources[:3]) + (" …" if len(resources) > 3 else ""),
                    )
                )
        else:
            if out.words:
                out.missing.append(
                    _(
                        "%(row)s cannot express pool %(pool)s's unit or resources",
                        row=governor.label,
                        pool=plan.name,
                    )
                )
        # A shared unit has sizes (slices, memory, cores); a quota on a single count of
        # "GPUs" cannot tell a 1g slice from a 7g one.
        shares = any(UNIT_TRAITS[u].shares for u in _known_units(presenter))
        if shares and len(resources) < 2:
            if out.words:
                out.missing.append(
                    _(
                        "pool %(pool)s advertises its %(units)s under one resource name: quotas "
                        "cannot tell the sizes apart",
                        pool=plan.name,
                        units=", ".join(_known_units(presenter)),
                    )
                )
        else:
            expresses += 0.25
    score += weights["compatibility"] * expresses / len(draft.plans)

    # Each non-baseline requirement ties the control plane to particular lower layers.
    coupling = sorted(p for p in governor.requires if not index.satisfied(p, ()))
    score -= 0.25 * weights["compatibility"] * len(coupling)
    if coupling and out.words:
        out.notes.append(
            _("%(row)s is tied to %(ids)s", row=governor.label, ids=", ".join(coupling))
        )
    nvlink = [
        plan.name
        for plan in draft.plans
        if plan.model is not None
        and plan.model.multi_node_requires
        and set(plan.workloads) & BATCH_KINDS
    ]
    if nvlink and TOPOLOGY not in governor.provides:
        # A job placed across NVLink domains loses the fabric it was bought for: never an equal
        # choice to a governor that places by topology.
        score -= NVLINK_TOPOLOGY_PENALTY
        if out.words:
            out.missing.append(
                _(
                    "%(row)s does not place jobs by topology: a job across nodes of pool "
                    "%(pools)s may span NVLink domains",
                    row=governor.label,
                    pools=", ".join(nvlink),
                )
            )
    if "training" in profile.workload_types and TOPOLOGY in governor.provides:
        score += 0.5
        if out.words:
            out.fits.append(
                _("%(row)s places distributed training by topology", row=governor.label)
            )
    return score


# Replacing the governor the cluster runs moves every queue, quota and workload to another
# system: a migration, weighed (times the compatibility weight) well above the version warning
# that keeping an older installed release earns (1.5), so an equal or slightly weaker stack that
# keeps it ranks above; a governor that cannot do what the profile needs still loses.
MIGRATION_PENALTY = 3.0
# Multi-node training on NVLink domains (GB200 NVL72) under a governor blind to topology.
NVLINK_TOPOLOGY_PENALTY = 3.0


def _installed_governor(
    index: _Index, governor: Row, profile: Profile, weights: dict[str, float], out: _Verdict
) -> float:
    """The installed governor is the default: keeping it is said, replacing it costs."""
    versions = profile.installed_versions
    installed = sorted(set(versions) & index.governing_projects)
    if not installed:
        return 0.0
    named = ", ".join(f"{slug} {versions[slug]}" if versions[slug] else slug for slug in installed)
    if governor.project in installed:
        if out.words:
            out.fits.append(_("keeps the installed %(installed)s", installed=named))
        return 0.0
    if out.words:
        out.missing.append(
            _(
                "replaces the installed %(installed)s with %(row)s: a migration (queues, quotas "
                "and running workloads move to the new system, and the old one is removed)",
                installed=named,
                row=governor.label,
            )
        )
    return -MIGRATION_PENALTY * weights["compatibility"]


def _isolation_breaches(draft: _Draft, profile: Profile, index: _Index) -> list[str]:
    """Work served below a hard isolation demanded for it (interactive work shared only within
    a tenant is demanded soft unless named; see drafting.demanded_for)."""
    breaches = []
    for plan in draft.plans:
        presenter = draft.presenters[plan.name]
        facts = pool_facts(plan, presenter, profile, members(draft, plan), index.pool_facts)
        for kind in plan.workloads:
            if facts.demanded[kind] != "hard":
                continue
            short = sorted(a for a, _level in shortfalls(facts.by_kind[kind], "hard", profile))
            if short:
                breaches.append(
                    _(
                        "hard isolation is demanded for %(work)s, but pool %(pool)s serves it "
                        "on %(row)s (%(aspects)s isolation below hard)",
                        pool=plan.name,
                        work=_(kind),
                        row=presenter.label,
                        aspects=joined(", ", (_(a) for a in short)),
                    )
                )
    return breaches


def _uncosted(draft: _Draft) -> list[tuple[str, list[str]]]:
    """(pool, what) the cost row cannot charge per tenant: resources its presenters advertise
    that the row's accounting does not read (OpenCost reads nvidia.com/gpu requests, not
    nvidia.com/mig-* or HAMi's shares), and units that split a GPU, which an accounting of
    whole-GPU requests charges as whole GPU-hours (catalog/data/opencost.yaml, non-promise)."""
    watcher = draft.watcher
    if watcher is None:
        return []
    reads = [a for a in watcher.accepts if a.startswith("resource:")]
    if not reads:
        return []
    blind = []
    for plan in draft.plans:
        rows = draft.bundles.get(plan.name) or [draft.presenters[plan.name]]
        unread = {
            ident.removeprefix("resource:")
            for row in rows
            if row.layer == "data_plane"
            for ident in row.provides
            if ident.startswith("resource:")
            and not any(fnmatchcase(ident, a) or fnmatchcase(a, ident) for a in reads)
        }
        split = {
            unit
            for row in rows
            if row.layer == "data_plane"
            for unit in row.resource_units & SHARING_UNITS
        } - watcher.resource_units
        if unread or split:
            blind.append((plan.name, [*sorted(unread), *(UNIT_WORDS[u] for u in sorted(split))]))
    return blind


def _score_draft(index: _Index, draft: _Draft, needs: _Needs, profile: Profile) -> _Verdict:
    """Everything the score owes to the draft itself; the stack check can only lower it."""
    weights = _weights(profile)
    out = _Verdict()
    for breach in _isolation_breaches(draft, profile, index):
        out.score -= ISOLATION_BREACH_PENALTY
        out.breaches += 1
        out.missing.append(breach)
    pools = sum(_score_pool(index, draft, plan, profile, weights, out) for plan in draft.plans)
    out.score += pools / len(draft.plans)
    out.score += _score_coverage(draft, profile, out)
    out.score += _score_governor(index, draft, needs, profile, weights, out)
    out.score += _score_cluster(draft, profile, weights, out)
    if needs.visibility:
        if draft.watcher is not None:
            # Words, not score: the row still gives the visibility the profile asks for; where
            # it cannot charge a pool's use per tenant is said instead of a plain fit.
            blind = _uncosted(draft)
            out.score += weights["cost"]
            if blind:
                out.missing.extend(
                    _(
                        "%(row)s cannot cost pool %(pool)s's %(resources)s: its GPU accounting "
                        "reads only whole %(reads)s requests, so that pool's use is not charged "
                        "per tenant as it is shared",
                        row=draft.watcher.label,
                        pool=pool,
                        resources=joined(", ", resources),
                        reads=", ".join(
                            sorted(
                                a.removeprefix("resource:")
                                for a in draft.watcher.accepts
                                if a.startswith("resource:")
                            )
                        ),
                    )
                    for pool, resources in blind
                )
            else:
                out.fits.append(
                    _("%(row)s gives cost and usage visibility", row=draft.watcher.label)
                )
        else:
            out.missing.append(_("no platform row gives cost and usage visibility"))
    out.score -= _PER_COMPONENT * len(draft.rows())
    return out


def _presenter_fit(
    index: _Index, presenter: Row, plan: _PoolPlan, profile: Profile, weights: dict[str, float]
) -> float:
    """How well `presenter` alone serves `plan`: its pool's part of the score, before combining.

    Partners, exporters and the control plane join later; this only ranks the candidates of one
    slot, so that the search combines the best of each. A presenter exporting no signals of its
    own is judged with the catalog's richest exporter beside it, as drafting may add one: better
    to overrate a candidate than to drop the one the best stack is made of.
    """
    pool = list(index.bundle(presenter))
    if not any(index.signals(r) for r in pool):
        reach = list(pool)
        pool += [
            next(
                (r for _n, r in index.signal_sources(presenter) if not _conflicts_with(r, reach)),
                presenter,
            )
        ]
    draft = _Draft(
        shape="",
        plans=(plan,),
        presenters={plan.name: presenter},
        pools={plan.name: pool},
        bundles={plan.name: list(index.bundle(presenter))},
    )
    fit = _score_pool(index, draft, plan, profile, weights, _Verdict(words=False))
    fit -= ISOLATION_BREACH_PENALTY * len(_isolation_breaches(draft, profile, index))
    served = sum(bool(plan.units[kind] & presenter.resource_units) for kind in plan.workloads)
    return fit + 3.0 * served / max(1, len(profile.workload_types))


def _governor_fit(
    index: _Index,
    governor: Row,
    plans: tuple[_PoolPlan, ...],
    presenters: dict[str, Row],
    needs: _Needs,
    profile: Profile,
    weights: dict[str, float],
) -> float:
    """How well `governor` governs these presenters (the best of each pool's slot)."""
    draft = _Draft(
        shape="",
        plans=plans,
        presenters=presenters,
        pools={name: [row] for name, row in presenters.items()},
        governor=governor,
    )
    return _score_governor(index, draft, needs, profile, weights, _Verdict(words=False))


def _score_report(out: _Verdict, report: StackReport) -> None:
    for finding in report.fit:
        out.score -= _FINDING_PENALTY[finding.status]
        (out.fits if finding.status == "ok" else out.missing).append(
            _("%(aspect)s: %(message)s", aspect=_(finding.aspect), message=finding.message)
        )
    for missing in report.missing_layers:
        out.score -= _FINDING_PENALTY["gap"]
        out.missing.append(missing.message)
