"""The stack check: gaps, conflicts per node pool, missing layers and fit to a step-1 profile."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from fnmatch import fnmatchcase
from typing import Any

from catalog.engine.baseline import baseline_offers
from catalog.engine.fit import (
    Finding,
    capabilities_fit,
    fleet_gpu_fit,
    gpu_fit,
    isolation_fit,
    quota_fit,
    signals_fit,
    tenant_fit,
)
from catalog.engine.fleet import Tenant
from catalog.engine.functions import GOVERNANCE
from catalog.engine.gpus import GpuModel, gpu_model_find
from catalog.engine.oracle import containment, links_between
from catalog.engine.profile import Profile
from catalog.engine.rows import Row
from catalog.engine.text import _
from catalog.engine.versions import (
    feature_gap_messages,
    pinned_rows,
)

# The pool a stack without explicit pools is checked as.
DEFAULT_POOL = "default"

# Isolation levels from weakest to strongest, so "at least soft" is a comparison.


@dataclass(frozen=True, slots=True)
class Gap:
    """A `requires` pattern nothing in reach of the row provides."""

    row: str
    pattern: str
    pool: str | None  # None: the row is cluster-wide


@dataclass(frozen=True, slots=True)
class PoolConflict:
    """Two rows that meet on one node pool and hold the same exclusive token."""

    pool: str
    row_a: str
    row_b: str
    tokens: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class MissingLayer:
    pool: str | None  # None: the stack as a whole
    layer: str
    message: str


@dataclass(frozen=True, slots=True)
class StackReport:
    gaps: tuple[Gap, ...] = ()
    conflicts: tuple[PoolConflict, ...] = ()
    missing_layers: tuple[MissingLayer, ...] = ()
    fit: tuple[Finding, ...] = ()
    pools: Mapping[str, tuple[str, ...]] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        """No gaps, no conflicts, no blocking finding: what `check_stack` in CI exits zero on."""
        return not self.gaps and not self.conflicts and not any(f.blocking for f in self.fit)

    def to_dict(self) -> dict[str, Any]:
        return {
            "ok": self.ok,
            "pools": {name: list(ids) for name, ids in self.pools.items()},
            "gaps": [asdict(g) for g in self.gaps],
            "conflicts": [{**asdict(c), "tokens": list(c.tokens)} for c in self.conflicts],
            "missing_layers": [asdict(m) for m in self.missing_layers],
            "fit": [asdict(f) for f in self.fit],
        }


def _baseline_satisfies(pattern: str, kubernetes_version: str | None = None) -> bool:
    return baseline_offers(pattern, kubernetes_version)


def _provides_match(rows: Iterable[Row], pattern: str) -> bool:
    return any(fnmatchcase(ident, pattern) for r in rows for ident in r.provides)


def _pool_members(
    rows: Sequence[Row], pools: Mapping[str, Sequence[str]] | None
) -> tuple[dict[str, list[Row]], list[Row]]:
    """Each pool's own rows, and the cluster-wide rows (assigned to no pool, so in every pool)."""
    if not pools:
        return {DEFAULT_POOL: list(rows)}, []
    by_id = {r.id: r for r in rows}
    assigned: dict[str, list[Row]] = {}
    for name, ids in pools.items():
        unknown = [i for i in ids if i not in by_id]
        if unknown:
            raise ValueError(f"pool {name!r} names rows not in the stack: {', '.join(unknown)}")
        assigned[name] = [by_id[i] for i in dict.fromkeys(ids)]
    in_a_pool = {r.id for members in assigned.values() for r in members}
    return assigned, [r for r in rows if r.id not in in_a_pool]


def _gaps(
    own: Mapping[str, list[Row]],
    cluster_wide: list[Row],
    rows: Sequence[Row],
    kubernetes_version: str | None = None,
) -> list[Gap]:
    gaps = []
    checks: list[tuple[Row, str | None, list[Row]]] = [
        # A cluster-wide row runs in every pool, so anything in the stack can serve it.
        (r, None, list(rows))
        for r in cluster_wide
    ]
    for name, members in own.items():
        reach = members + cluster_wide
        checks.extend((r, name, reach) for r in members)
    for row, pool, reach in checks:
        others = [r for r in reach if r.id != row.id]
        for pattern in sorted(row.requires):
            if _baseline_satisfies(pattern, kubernetes_version) or _provides_match(others, pattern):
                continue
            gaps.append(Gap(row=row.id, pattern=pattern, pool=pool))
    return gaps


# How a conflict names a governing job two rows both do for the same pods.
GOVERNS_PREFIX = "governs:"


def governed(row: Row) -> frozenset[str]:
    """The governing jobs a row does for the pods of its pool (queue, admit, preempt, gang)."""
    if row.layer != "control_plane":
        return frozenset()
    return row.functions & GOVERNANCE


def _conflicts(own: Mapping[str, list[Row]], cluster_wide: list[Row]) -> list[PoolConflict]:
    """Rows meeting on one pool that hold the same exclusive token, or that both govern its pods:
    two queueing systems over the same pods duplicate queues, quotas and preemption, each
    admitting and evicting what the other placed. Governors on disjoint pools never meet."""
    conflicts = []
    for name, members in own.items():
        present = members + cluster_wide
        for i, a in enumerate(present):
            for b in present[i + 1 :]:
                tokens = set(a.exclusive & b.exclusive)
                tokens |= {GOVERNS_PREFIX + job for job in governed(a) & governed(b)}
                if tokens:
                    conflicts.append(PoolConflict(name, a.id, b.id, tuple(sorted(tokens))))
    return conflicts


def containment_fit(rows: Sequence[Row]) -> list[Finding]:
    """A row whose project another row of the stack ships (`contains:`), anywhere in the stack:
    what a container ships is cluster-wide (its CRDs and controllers), so pools do not part them.

    The part is the container's bundled copy when a contract wires the two (the GPU Operator's
    deploy label its device plugin reads, the HAMi-core library HAMi's device plugin mounts);
    with no contract between them the part is a second, separate install of what the container
    already runs (KAI Scheduler beside Run:ai: the scheduling.run.ai CRDs twice), refused."""
    findings = []
    for i, a in enumerate(rows):
        for b in rows[i + 1 :]:
            whole = containment(a, b)
            if whole is None:
                continue
            container, part = whole
            wires = sorted(
                {link.interface for link in links_between(container, part)}
                | {link.interface for link in links_between(part, container)}
            )
            if wires:
                findings.append(
                    Finding(
                        "containment",
                        "ok",
                        _(
                            "%(part)s is the copy %(container)s ships (wired through "
                            "%(interfaces)s): install it through %(container)s, not on its own",
                            part=part.label,
                            container=container.label,
                            interfaces=", ".join(wires),
                        ),
                    )
                )
                continue
            findings.append(
                Finding(
                    "containment",
                    "gap",
                    _(
                        "%(container)s contains %(part)s and runs its own copy; nothing in the "
                        "stack wires %(part)s to it as that copy, so it would be a second "
                        "install of the same component (its CRDs, controllers or node agents "
                        "twice). Keep one: %(container)s with its bundled copy (drop the "
                        "%(part)s row), or %(part)s on its own (drop %(container)s, or turn its "
                        "copy off where %(container)s allows it)",
                        container=container.label,
                        part=part.label,
                    ),
                    blocking=True,
                )
            )
    return findings


def _missing_layers(
    own: Mapping[str, list[Row]], cluster_wide: list[Row], profile: Profile | None
) -> list[MissingLayer]:
    missing = []
    for name, members in own.items():
        if not any(r.layer == "data_plane" for r in members + cluster_wide):
            missing.append(
                MissingLayer(
                    name,
                    "data_plane",
                    _(
                        "pool %(pool)s has no data-plane row: nothing presents or shares its GPUs",
                        pool=name,
                    ),
                )
            )
    everything = [r for members in own.values() for r in members] + cluster_wide
    if (
        profile is not None
        and profile.tenancy == "multi"
        and not any(r.layer == "control_plane" for r in everything)
    ):
        missing.append(
            MissingLayer(
                None,
                "control_plane",
                _(
                    "multi-tenant workload with no control-plane row: nothing enforces queues, "
                    "quotas or priority between tenants"
                ),
            )
        )
    return missing


def _gpu_findings(
    rows: Sequence[Row],
    present: Mapping[str, list[Row]],
    profile: Profile,
    pool_models: Mapping[str, GpuModel | None] | None,
) -> list[Finding]:
    if pool_models:
        found: dict[str, Finding] = {}
        for name, members in present.items():
            for finding in gpu_fit(members, pool_models.get(name)):
                found.setdefault(finding.message, finding)
        return list(found.values())
    models = list({g.model.key: g.model for g in profile.groups if g.model is not None}.values())
    if len(models) > 1:
        return fleet_gpu_fit(rows, models)
    return gpu_fit(rows, models[0] if models else gpu_model_find(profile.gpu_model))


def check_stack(
    rows: Sequence[Row],
    pools: Mapping[str, Sequence[str]] | None = None,
    profile: Profile | None = None,
    *,
    kubernetes_version: str | None = None,
    component_versions: Mapping[str, str] | None = None,
    tenant_sharing: Mapping[str, str] | None = None,
    pool_models: Mapping[str, GpuModel | None] | None = None,
    pool_tenants: Mapping[str, Sequence[Tenant] | None] | None = None,
) -> StackReport:
    """Check a stack of rows, optionally split into node pools (row ids per pool name).

    Rows assigned to no pool are cluster-wide and belong to every pool. Without pools the whole
    stack is one pool named `default`. The Kubernetes version and pinned component versions
    default to the profile's: a feature gate off by default at that version is a gap, and a
    contract outside its since/until span of the pinned release counts as absent.
    `tenant_sharing` says per pool whether it serves one tenant (TENANT_SHARING); a pool not
    named serves every tenant. `pool_models` ties each pool to its node group's GPU model (a
    pool of L4s is judged against the L4), `pool_tenants` to the named tenants it serves.
    Without them a profile of several models judges the stack against all of them.
    """
    ids = [r.id for r in rows]
    if len(set(ids)) != len(ids):
        raise ValueError("a stack lists each row once")
    if profile is not None:
        kubernetes_version = kubernetes_version or profile.kubernetes_version
        if component_versions is None:
            component_versions = dict(profile.component_versions)
    installed = {s: v for s, v in profile.installed if v} if profile is not None else {}
    rows, pins = pinned_rows(rows, component_versions or {}, installed)
    own, cluster_wide = _pool_members(rows, pools)
    present = {name: members + cluster_wide for name, members in own.items()}
    gaps = _gaps(own, cluster_wide, rows, kubernetes_version)
    fit = [
        Finding("kubernetes", "gap", message)
        for message in feature_gap_messages([(g.row, g.pattern) for g in gaps], kubernetes_version)
    ] + [Finding("versions", "warning", message) for message in pins]
    if profile is not None:
        fit.extend(_gpu_findings(rows, present, profile, pool_models))
        fit.extend(tenant_fit(present, profile, tenant_sharing or {}, pool_tenants))
        fit.append(isolation_fit(present, profile))
        fit.extend(signals_fit(list(rows), profile))
        fit.extend(capabilities_fit(list(rows), profile, own))
    # Without a profile the tenancy is unknown: what a quota row cannot express is a warning.
    fit.extend(quota_fit(present, profile))
    fit.extend(containment_fit(rows))
    return StackReport(
        gaps=tuple(gaps),
        conflicts=tuple(_conflicts(own, cluster_wide)),
        missing_layers=tuple(_missing_layers(own, cluster_wide, profile)),
        fit=tuple(fit),
        pools={name: tuple(r.id for r in members) for name, members in present.items()},
    )
