"""How a stack fits a step-1 profile: isolation per aspect, tenant boundaries, the GPU model's
vendor and partitioning, signals, metering and capabilities. Each demand is a Finding; the blocking
ones fail the stack check."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from fnmatch import fnmatchcase

from catalog.engine.baseline import KUBERNETES_BASELINE
from catalog.engine.express import unexpressed, unexpressed_words
from catalog.engine.fleet import Tenant
from catalog.engine.gpus import GpuModel
from catalog.engine.profile import Profile
from catalog.engine.rows import Row
from catalog.engine.text import Text, _, joined
from catalog.engine.units import (
    PARTITION_UNITS,
    SHARING_UNITS,
    hard_partition,
    short_of,
    units_isolation,
)


@dataclass(frozen=True, slots=True)
class Finding:
    """Fit of the stack to one demand of the profile."""

    # "isolation" | "tenancy" | "gpu" | "signals" | "metering" | "capabilities" | "quota"
    # | "kubernetes" | "versions" | "containment"
    aspect: str
    status: str  # "ok" | "warning" | "gap"
    message: str
    # A gap no review may sign: tenants sharing a GPU against the profile, a row for another
    # vendor's GPUs, a partitioning the GPU model lacks. The stack check fails on it.
    blocking: bool = False


def _pool_isolation(members: Iterable[Row]) -> dict[str, str] | None:
    """The best isolation a data-plane row of the pool gives, per its own units; None when the
    pool presents no unit."""
    best: dict[str, str] | None = None
    for row in members:
        if row.layer != "data_plane" or not row.resource_units - {"none"}:
            continue
        given = units_isolation(row.resource_units, row.isolation)
        if best is None or len(short_of(given, "hard")) < len(short_of(best, "hard")):
            best = given
    return best


def _in_words(isolation: Mapping[str, str]) -> str:
    return joined(
        ", ",
        (
            _("%(aspect)s %(level)s", aspect=_(aspect), level=_(isolation[aspect]))
            for aspect in ("memory", "compute", "fault")
        ),
    )


def isolation_fit(pools: Mapping[str, list[Row]], profile: Profile) -> Finding:
    """Hard means hard on memory, compute and fault; soft, at least soft on memory and compute."""
    demanded = profile.isolation
    if demanded == "none":
        return Finding("isolation", "ok", _("no isolation demanded"))
    # Shape C: one pool giving the demanded isolation next to a shared pool is enough.
    offering, closest = [], None
    for name, members in sorted(pools.items()):
        given = _pool_isolation(members)
        if given is None:
            continue
        if not short_of(given, demanded):
            offering.append(name)
        elif closest is None or len(short_of(given, demanded)) < len(short_of(closest, demanded)):
            closest = given
    if offering:
        return Finding(
            "isolation",
            "ok",
            _(
                "%(level)s isolation demanded; offered by a data-plane row in pool %(pools)s",
                level=_(demanded),
                pools=", ".join(offering),
            ),
        )
    return Finding(
        "isolation",
        "gap",
        _(
            "%(level)s isolation demanded (%(aspects)s); no pool has a data-plane row giving it"
            "%(closest)s",
            level=_(demanded),
            aspects=_("memory, compute and fault")
            if demanded == "hard"
            else _("memory and compute"),
            closest=_("; the closest gives %(given)s", given=_in_words(closest)) if closest else "",
        ),
    )


# What a pool's `tenant_sharing` says: each GPU serves one pod (none), the pool serves one tenant
# (one such pool per tenant), or pods of several tenants share its GPUs.
TENANT_SHARING: tuple[str, ...] = ("none", "within_tenant", "across_tenants")


def may_share_across_tenants(rule: str, shared: Mapping[str, str]) -> bool:
    """Whether the profile's cross-tenant rule lets tenants share GPUs whose shared units give
    `shared`: freely, or only through partitions hard on memory, compute and fault."""
    return rule == "allowed" or (rule == "hard_partitions" and hard_partition(shared))


def tenant_fit(
    pools: Mapping[str, list[Row]],
    profile: Profile,
    declared: Mapping[str, str],
    pool_tenants: Mapping[str, Sequence[Tenant] | None] | None = None,
) -> list[Finding]:
    """Pools whose GPUs several tenants share against the profile's rule: a blocking gap.

    A pool the decision does not declare as serving one tenant is taken to serve them all; a
    pool serving named tenants follows the strictest rule among them."""
    if profile.tenancy != "multi":
        return []
    findings = []
    for name, members in sorted(pools.items()):
        tenants = (pool_tenants or {}).get(name)
        rule = profile.rule_for(tenants) if tenants is not None else profile.tenant_rule
        sharers = [
            r for r in members if r.layer == "data_plane" and r.resource_units & SHARING_UNITS
        ]
        if not sharers:
            continue
        if declared.get(name, "across_tenants") != "across_tenants":
            findings.append(
                Finding(
                    "tenancy",
                    "ok",
                    _("pool %(pool)s serves one tenant: its GPUs are never shared", pool=name),
                )
            )
            continue
        if rule == "allowed":
            continue
        for row in sharers:
            units = sorted(row.resource_units & SHARING_UNITS)
            given = units_isolation(units, row.isolation)
            if may_share_across_tenants(rule, given):
                findings.append(
                    Finding(
                        "tenancy",
                        "ok",
                        _(
                            "pool %(pool)s: tenants share GPUs only through %(row)s's hard "
                            "partitions (%(given)s)",
                            pool=name,
                            row=row.label,
                            given=_in_words(given),
                        ),
                    )
                )
                continue
            why = (
                _("the profile says a GPU serves one tenant at a time")
                if rule == "never"
                else _(
                    "the profile lets tenants share a GPU only through partitions hard on "
                    "memory, compute and fault; %(row)s gives %(given)s",
                    row=row.label,
                    given=_in_words(given),
                )
            )
            findings.append(
                Finding(
                    "tenancy",
                    "gap",
                    _(
                        "pool %(pool)s shares GPUs between tenants through %(row)s (%(units)s): "
                        "%(why)s. Give each tenant its own pool, use MIG slices or whole GPUs",
                        pool=name,
                        row=row.label,
                        units=", ".join(units),
                        why=why,
                    ),
                    blocking=True,
                )
            )
    return findings


def only_partitions(row: Row) -> bool:
    """A data-plane row presenting hardware partitions and no whole GPUs (MIG strategies, AMD's
    partition naming)."""
    return (
        row.layer == "data_plane"
        and bool(row.resource_units & PARTITION_UNITS)
        and "whole_gpu" not in row.resource_units
    )


def lacks_partitions(row: Row, model: GpuModel) -> bool:
    """Whether `row` presents only hardware partitions of the model's vendor and the model has
    none (MIG on an L4, compute partitions on an MI210). A vendor whose partitions the GPU facts
    do not describe is not judged."""
    return only_partitions(row) and model.partition_unit is not None and not model.has_partitions


def partition_words(model: GpuModel) -> Text:
    """What the model's vendor calls its hardware partitions."""
    return _("MIG") if model.partition_unit == "mig_slice" else _("compute partitions")


def fleet_gpu_fit(rows: Sequence[Row], models: Sequence[GpuModel]) -> list[Finding]:
    """`gpu_fit` for a cluster of several GPU models whose pools are not tied to node groups:
    a row is a gap only where no model could use it."""
    findings = []
    for row in rows:
        each = [gpu_fit([row], model) for model in models]
        if each and all(each):
            findings.extend(each[0])
    return findings


def presents_other_devices(row: Row, model: GpuModel) -> bool:
    """Whether `row` presents devices of the model's vendor, but not this model: a data-plane
    presenter naming the vendor that provides none of the interfaces the GPU facts say the model
    is presented as (the Intel GPU device plugin on Gaudi nodes). Never for a model without
    `presented_as` or a vendor-neutral row."""
    return (
        bool(model.presented_as)
        and row.layer == "data_plane"
        and "present" in row.functions
        and model.vendor in row.vendors
        and not any(
            fnmatchcase(ident, pattern) for ident in row.provides for pattern in model.presented_as
        )
    )


def gpu_fit(rows: Sequence[Row], model: GpuModel | None) -> list[Finding]:
    """Rows for another vendor's GPUs, and partitions the GPU model lacks: blocking gaps."""
    if model is None:
        return []
    findings = []
    for row in rows:
        if not row.serves(model.vendor):
            findings.append(
                Finding(
                    "gpu",
                    "gap",
                    _(
                        "%(row)s serves %(vendors)s GPUs; %(model)s is %(vendor)s",
                        row=row.label,
                        vendors=", ".join(sorted(row.vendors)),
                        model=model.name,
                        vendor=model.vendor,
                    ),
                    blocking=True,
                )
            )
            continue
        if presents_other_devices(row, model):
            findings.append(
                Finding(
                    "gpu",
                    "gap",
                    _(
                        "%(row)s presents other %(vendor)s devices; %(model)s is presented as "
                        "%(interfaces)s (GPU facts)",
                        row=row.label,
                        vendor=model.vendor,
                        model=model.name,
                        interfaces=", ".join(model.presented_as),
                    ),
                    blocking=True,
                )
            )
            continue
        if lacks_partitions(row, model):
            findings.append(
                Finding(
                    "gpu",
                    "gap",
                    _(
                        "%(row)s presents hardware partitions; %(model)s has none (GPU facts: "
                        "%(sharing)s)",
                        row=row.label,
                        model=model.name,
                        sharing=", ".join(sorted(model.sharing)) or _("no sharing feature"),
                    ),
                    blocking=True,
                )
            )
    return findings


def _signals_offered(rows: Iterable[Row]) -> list[str]:
    return sorted(
        {
            ident
            for r in rows
            if r.layer == "data_plane"
            for ident in r.signals | r.provides
            if ident.startswith("signal:")
        }
    )


def signals_fit(rows: list[Row], profile: Profile) -> list[Finding]:
    findings = []
    offered = _signals_offered(rows)
    if profile.primary_objective == "p99_latency" or profile.p99_target_ms is not None:
        if offered:
            findings.append(
                Finding(
                    "signals",
                    "ok",
                    _("P99 objective; data plane offers %(count)s signals", count=len(offered)),
                )
            )
        else:
            findings.append(
                Finding(
                    "signals",
                    "gap",
                    _(
                        "P99 objective, but no data-plane row offers signals: P99 and "
                        "interference cannot be observed"
                    ),
                )
            )
    if profile.tenancy == "multi":
        if offered:
            findings.append(
                Finding(
                    "metering", "ok", _("multi-tenant; data-plane signals available for metering")
                )
            )
        else:
            findings.append(
                Finding(
                    "metering",
                    "warning",
                    _(
                        "multi-tenant, but no data-plane row offers signals: usage per tenant "
                        "cannot be metered"
                    ),
                )
            )
    return findings


# The recommendation's pool keys for training and online inference (evaluations' drafting):
# a stack with both keeps the two on separate GPUs.
TRAINING_POOL, INFERENCE_POOL = "training", "inference"


def capabilities_fit(rows: list[Row], profile: Profile, pools: Iterable[str] = ()) -> list[Finding]:
    """Capabilities the profile's workloads need; online inference needs preemption only where
    it shares GPUs with training or batch (not when `pools` split the two)."""
    offered = {ident for r in rows for ident in r.provides} | KUBERNETES_BASELINE
    split = {TRAINING_POOL, INFERENCE_POOL} <= set(pools)
    kinds = set(profile.workload_types)
    batchy = kinds & {"training", "batch"}
    demands: list[tuple[str, str, str]] = []  # (capability, status when missing, why)
    if batchy:
        demands.append(
            (
                "capability:gang-scheduling",
                "gap",
                _("batch and training workloads")
                if len(batchy) == 2
                else _("%(kind)s workloads", kind=_(next(iter(batchy)))),
            )
        )
    tenants = (
        _("%(count)s tenants", count=profile.tenant_count)
        if profile.tenant_count and profile.tenant_count > 1
        else _("multi-tenant workload")
    )
    if profile.tenancy == "multi":
        demands.append(("capability:quota", "gap", tenants))
    if batchy and "online_inference" in kinds and not split:
        demands.append(
            ("capability:preemption", "gap", _("online inference shares GPUs with training/batch"))
        )
    if profile.tenancy == "multi":
        demands.append(("capability:fair-sharing", "warning", tenants))
    findings = []
    for capability, missing_status, why in demands:
        if capability in offered:
            findings.append(
                Finding(
                    "capabilities",
                    "ok",
                    _("%(why)s needs %(capability)s: offered", why=why, capability=capability),
                )
            )
        else:
            findings.append(
                Finding(
                    "capabilities",
                    missing_status,
                    _(
                        "%(why)s needs %(capability)s: no row in the stack provides it",
                        why=why,
                        capability=capability,
                    ),
                )
            )
    return findings


def quota_fit(pools: Mapping[str, Sequence[Row]], profile: Profile | None) -> list[Finding]:
    """Per pool, each quota row that cannot put quota on or place a resource the pool's data
    plane presents: the cluster check's `queue-cannot-express` rule (express.unexpressed), asked
    before anything is deployed. With several tenants every pool needs quota (METHOD: the
    platform governs quota between tenants), so it is a gap no review may sign; otherwise a
    warning: no quota is needed, but that scheduler still cannot place the pool's pods (KAI
    Scheduler and HAMi's resources, which only HAMi's scheduler assigns: HAMi v2.10.0 README,
    https://github.com/Project-HAMi/HAMi/blob/v2.10.0/README.md)."""
    multi = profile is not None and profile.tenancy == "multi"
    findings = []
    for name, members in pools.items():
        presented = {
            ident.removeprefix("resource:")
            for row in members
            if row.layer == "data_plane"
            for ident in row.provides
            if ident.startswith("resource:")
        }
        by_queue: dict[str, tuple[Row, list[str], dict[str, Row]]] = {}
        for item in unexpressed(members, presented):
            _queue, resources, elsewhere = by_queue.setdefault(item.queue.id, (item.queue, [], {}))
            resources.append(item.resource)
            elsewhere.update((p.id, p) for p in item.assigned_elsewhere)
        for queue, resources, elsewhere in by_queue.values():
            findings.append(
                Finding(
                    "quota",
                    "gap" if multi else "warning",
                    _(
                        "pool %(pool)s: %(problem)s",
                        pool=name,
                        problem=unexpressed_words(queue, resources, elsewhere.values()),
                    ),
                    blocking=multi,
                )
            )
    return findings
