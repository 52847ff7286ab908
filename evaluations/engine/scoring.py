"""Scoring a drafted stack against the profile, and saying why in words (the explanation, what
fits, what is missing, the acceptance checks of its shape)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace

from catalog.engine.rows import LAYERS, Row
from catalog.engine.stack import Profile, StackReport
from catalog.engine.text import _, joined
from evaluations.engine.cluster_fit import (
    _FINDING_PENALTY,
    _score_cluster,
    _score_gpu_fit,
    _time_shared,
    _Verdict,
)
from evaluations.engine.drafting import (
    _COST_LEVEL,
    _LEVEL,
    HARD_POOL,
    SHAPES,
    SHARED_POOL,
    TOPOLOGY,
    UNIT_TRAITS,
    WORKLOAD_UNITS,
    _conflicts_with,
    _Draft,
    _Index,
    _known_units,
    _Needs,
    _pool_signals,
    _PoolPlan,
    _weights,
)

# Components only break ties: a smaller stack is easier to operate.
_PER_COMPONENT = 0.01
# A pool serving work below the isolation the profile demands for it: more than any stack can
# win back, so such a stack ranks (and scores) below every stack that honours the demand.
ISOLATION_BREACH_PENALTY = 20.0


def _demanded_isolation(plan: _PoolPlan, profile: Profile) -> dict[str, str]:
    demanded = {"memory": plan.isolation, "compute": plan.isolation}
    # Low jitter tolerance is a demand on compute isolation even when isolation is not named.
    if profile.jitter_tolerance == "low" and _LEVEL[demanded["compute"]] < _LEVEL["soft"]:
        demanded["compute"] = "soft"
    if profile.failure_semantics == "incident":
        demanded["fault"] = plan.isolation
    return {aspect: level for aspect, level in demanded.items() if level != "none"}


def _score_pool(
    index: _Index,
    draft: _Draft,
    plan: _PoolPlan,
    profile: Profile,
    weights: dict[str, float],
    out: _Verdict,
) -> float:
    presenter = draft.presenters[plan.name]
    units = _known_units(presenter)
    traits = [UNIT_TRAITS[u] for u in units]
    where = _("pool %(pool)s", pool=plan.name)

    demanded = _demanded_isolation(plan, profile)
    short = [a for a, level in demanded.items() if _LEVEL[presenter.isolation[a]] < _LEVEL[level]]
    isolation = 1.0 - len(short) / len(demanded) if demanded else 1.0
    offered = joined(
        ", ",
        (
            _("%(aspect)s %(level)s", aspect=_(a), level=_(presenter.isolation[a]))
            for a in ("memory", "compute", "fault")
        ),
    )
    if short:
        out.missing.extend(
            _(
                "%(where)s: %(aspect)s isolation is %(level)s, %(demanded)s is demanded",
                where=where,
                aspect=_(a),
                level=_(presenter.isolation[a]),
                demanded=_(demanded[a]),
            )
            for a in short
        )
    else:
        presents = _(
            "%(where)s: %(row)s presents %(units)s (%(offered)s isolation)",
            where=where,
            row=presenter.label,
            units=", ".join(units),
            offered=offered,
        )
        if demanded:
            presents = _(
                "%(presents)s, meeting the %(level)s isolation demanded",
                presents=presents,
                level=_(plan.isolation),
            )
        out.fits.append(presents)

    fit = _score_gpu_fit(units, where, profile, out)

    cost = 0.0
    if profile.tenancy == "multi" or weights["cost"] > 1.0:
        if any(t.shares for t in traits):
            cost += 1.0
            out.fits.append(
                _(
                    "%(where)s: one GPU can be split between tenants (%(units)s)",
                    where=where,
                    units=", ".join(units),
                )
            )
        else:
            out.missing.append(
                _(
                    "%(where)s: %(units)s gives each pod whole devices",
                    where=where,
                    units=", ".join(units),
                )
            )
    cheapest = min(_COST_LEVEL[t.reconfiguration] for t in traits)
    strongest = max(_LEVEL[level] for level in presenter.isolation.values())
    if cheapest == _COST_LEVEL["high"] and strongest > _LEVEL[plan.isolation]:
        cost -= 1.0
        out.notes.append(
            _(
                "%(where)s pays %(units)s's high reconfiguration cost for isolation stronger "
                "than demanded",
                where=where,
                units=", ".join(units),
            )
        )

    # Behind a device shared below hard isolation only the sharing mechanism itself can tell
    # tenants apart; an exporter outside it sees the device, not who used it.
    own = index.signals(presenter)
    if any(t.ceiling == "hard" for t in traits):
        attributable = _pool_signals(index, draft, plan.name)
    else:
        attributable = own
    observability = len(attributable) / (len(attributable) + 5)
    if attributable:
        out.fits.append(
            _(
                "%(where)s: %(count)s GPU signals attributable per pod",
                where=where,
                count=len(attributable),
            )
        )
    elif _pool_signals(index, draft, plan.name):
        out.missing.append(
            _(
                "%(where)s: only device-level signals; none attributes GPU use to the pods "
                "sharing it",
                where=where,
            )
        )
    else:
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
            and WORKLOAD_UNITS[kind] & draft.presenters[plan.name].resource_units
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
    score = 0.0
    covered = needs.enforcement_points & governor.enforcement_points
    if needs.enforcement_points:
        score += 2.0 * len(covered) / len(needs.enforcement_points)
    for point in sorted(needs.enforcement_points - covered):
        out.missing.append(
            _("%(row)s does not enforce at %(point)s", row=governor.label, point=_(point))
        )
    extra = sorted(({"scheduler", "admission"} & governor.enforcement_points) - covered)
    for point in extra:
        score -= 0.5 * weights["compatibility"]
        out.notes.append(
            _(
                "%(row)s also enforces at %(point)s, which this profile needs not",
                row=governor.label,
                point=_(point),
            )
        )
    provided = [c for c in needs.capabilities if c in governor.provides]
    if provided:
        out.fits.append(_("%(row)s provides %(ids)s", row=governor.label, ids=", ".join(provided)))

    expresses = 0.0
    for plan in draft.plans:
        presenter = draft.presenters[plan.name]
        units = sorted(governor.resource_units & presenter.resource_units)
        resources = [i for i in index.feeds(presenter, governor) if i.startswith("resource:")]
        expresses += 0.5 * bool(units) + 0.5 * bool(resources)
        if units and resources:
            out.fits.append(
                _(
                    "%(row)s can express pool %(pool)s's unit (%(units)s) through %(resources)s",
                    row=governor.label,
                    pool=plan.name,
                    units=", ".join(units),
                    resources=", ".join(resources[:3]) + (" …" if len(resources) > 3 else ""),
                )
            )
        else:
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
    if coupling:
        out.notes.append(
            _("%(row)s is tied to %(ids)s", row=governor.label, ids=", ".join(coupling))
        )
    if "training" in profile.workload_types and TOPOLOGY in governor.provides:
        score += 0.5
        out.fits.append(_("%(row)s places distributed training by topology", row=governor.label))
    return score


# Interactive development is what shape C's shared pool exists for (METHOD): a demand for hard
# isolation binds the production work — training, batch, online inference.
_SHARED_BY_DESIGN = frozenset({"interactive"})


def _isolation_breaches(draft: _Draft, profile: Profile) -> list[str]:
    """Pools whose presenter gives less isolation than the profile demands for their work."""
    if profile.isolation != "hard":
        return []
    breaches = []
    for plan in draft.plans:
        if plan.workloads and set(plan.workloads) <= _SHARED_BY_DESIGN:
            continue
        presenter = draft.presenters[plan.name]
        demanded = _demanded_isolation(replace(plan, isolation=profile.isolation), profile)
        short = sorted(
            a for a, level in demanded.items() if _LEVEL[presenter.isolation[a]] < _LEVEL[level]
        )
        if short:
            breaches.append(
                _(
                    "hard isolation is demanded, but pool %(pool)s serves %(work)s on %(row)s "
                    "(%(aspects)s isolation below hard)",
                    pool=plan.name,
                    work=joined(", ", (_(kind) for kind in plan.workloads)) or _("all work"),
                    row=presenter.label,
                    aspects=joined(", ", (_(a) for a in short)),
                )
            )
    return breaches


def _score_draft(index: _Index, draft: _Draft, needs: _Needs, profile: Profile) -> _Verdict:
    """Everything the score owes to the draft itself; the stack check can only lower it."""
    weights = _weights(profile)
    out = _Verdict()
    for breach in _isolation_breaches(draft, profile):
        out.score -= ISOLATION_BREACH_PENALTY
        out.missing.append(breach)
    pools = sum(_score_pool(index, draft, plan, profile, weights, out) for plan in draft.plans)
    out.score += pools / len(draft.plans)
    out.score += _score_coverage(draft, profile, out)
    out.score += _score_governor(index, draft, needs, profile, weights, out)
    out.score += _score_cluster(draft, profile, weights, out)
    if needs.visibility:
        if draft.watcher is not None:
            out.score += weights["cost"]
            out.fits.append(_("%(row)s gives cost and usage visibility", row=draft.watcher.label))
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
    )
    fit = _score_pool(index, draft, plan, profile, weights, _Verdict())
    fit -= ISOLATION_BREACH_PENALTY * len(_isolation_breaches(draft, profile))
    served = sum(bool(WORKLOAD_UNITS[kind] & presenter.resource_units) for kind in plan.workloads)
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
    return _score_governor(index, draft, needs, profile, weights, _Verdict())


def _score_report(out: _Verdict, report: StackReport) -> None:
    for finding in report.fit:
        out.score -= _FINDING_PENALTY[finding.status]
        (out.fits if finding.status == "ok" else out.missing).append(
            _("%(aspect)s: %(message)s", aspect=_(finding.aspect), message=finding.message)
        )
    for missing in report.missing_layers:
        out.score -= _FINDING_PENALTY["gap"]
        out.missing.append(missing.message)


def _acceptance_checks(shape: str, profile: Profile) -> list[str]:
    training = [
        _("throughput (samples or jobs per GPU-hour) against the current setup"),
        _("job wait time in the queue, per queue"),
        _("effect of the preemption policy on job success rate"),
    ]
    target = (
        _("the %(ms)s ms target", ms=f"{profile.p99_target_ms:g}")
        if profile.p99_target_ms
        else _("the SLO")
    )
    serving = [
        _("P99 latency against %(target)s under co-located load", target=target),
        _("jitter while other tenants load the same GPUs"),
        _("blast radius of a failing or noisy tenant"),
        _("fault isolation and the rollback path"),
    ]
    if shape in ("A", "B"):
        checks = training if shape == "A" else serving
        if _time_shared(profile):
            # One pool serves by day and trains by night: the switch is what can go wrong.
            checks = [
                *checks,
                _(
                    "the hand-over when the training window closes: jobs checkpoint and yield "
                    "the GPUs before serving load rises"
                ),
            ]
        return checks
    return (
        [_("pool %(pool)s: %(check)s", pool=HARD_POOL, check=check) for check in training]
        + [_("pool %(pool)s: %(check)s", pool=SHARED_POOL, check=check) for check in serving]
        + [
            _("self-service GPU requests per team"),
            _("audit trail of who requested and used which GPUs"),
            _("cost visibility per team and per pool"),
        ]
    )


def _ordered(rows: Iterable[Row]) -> list[str]:
    return [r.id for r in sorted(rows, key=lambda r: (LAYERS.index(r.layer), r.id))]


def _explanation(draft: _Draft, verdict: _Verdict) -> str:
    parts = [_("Shape %(shape)s (%(name)s).", shape=draft.shape, name=SHAPES[draft.shape])]
    for plan in draft.plans:
        members = ", ".join(r.label for r in draft.pools[plan.name])
        serves = joined(", ", (_(kind) for kind in plan.workloads)) or _("all work")
        parts.append(
            _(
                "Pool %(pool)s (%(level)s isolation, for %(serves)s): %(members)s.",
                pool=plan.name,
                level=_(plan.isolation),
                serves=serves,
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
    if verdict.notes:
        parts.append(_("Costs: %(notes)s.", notes=joined("; ", verdict.notes)))
    return joined(" ", parts)
