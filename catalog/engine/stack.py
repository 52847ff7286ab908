"""The stack check: gaps, conflicts per node pool, missing layers and fit to a step-1 profile."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from fnmatch import fnmatchcase
from typing import Any

from catalog.engine.baseline import KUBERNETES_BASELINE, baseline_offers
from catalog.engine.rows import Row
from catalog.engine.text import _
from catalog.engine.versions import (
    feature_gap_messages,
    pinned_rows,
    profile_component_versions,
    profile_kubernetes_version,
)

WORKLOAD_TYPES: tuple[str, ...] = ("training", "batch", "online_inference", "interactive")
PRIMARY_OBJECTIVES: tuple[str, ...] = ("throughput", "p99_latency", "cost")
JITTER_TOLERANCES: tuple[str, ...] = ("low", "medium", "high")
ISOLATION_REQUIREMENTS: tuple[str, ...] = ("hard", "soft", "none")
FAILURE_SEMANTICS: tuple[str, ...] = ("degrade", "incident")
TENANCIES: tuple[str, ...] = ("single", "multi")
PRIORITIES: tuple[str, ...] = ("isolation", "cost", "observability", "compatibility")
# When a workload type runs: all day, office hours only, at night, at the weekend. Work that runs
# only at night or at the weekend can share GPUs by time with work that runs by day.
TIME_WINDOWS: tuple[str, ...] = ("always", "business_hours", "night", "weekend")
OFF_HOURS: frozenset[str] = frozenset({"night", "weekend"})
GPU_MODEL_MAX = 80
# Counts beyond these are typing mistakes, not clusters.
GPU_MEMORY_MAX_GB = 4096
NODE_COUNT_MAX = 100_000
TENANT_COUNT_MAX = 100_000

# In the order step 1 asks them (summaries list them so).
PROFILE_FIELDS: tuple[str, ...] = (
    "workload_types",
    "time_windows",
    "primary_objective",
    "p99_target_ms",
    "jitter_tolerance",
    "isolation",
    "failure_semantics",
    "tenancy",
    "tenant_count",
    "gpu_model",
    "gpu_memory_gb",
    "node_count",
    "kubernetes_version",
    "component_versions",
    "priorities",
)

# The pool a stack without explicit pools is checked as.
DEFAULT_POOL = "default"

# Isolation levels from weakest to strongest, so "at least soft" is a comparison.
_ISOLATION_RANK = {"none": 0, "soft": 1, "hard": 2}


def _one_of(data: Mapping[str, Any], key: str, allowed: tuple[str, ...]) -> str | None:
    value = data.get(key)
    if value is None:
        return None
    if value not in allowed:
        raise ValueError(f"{key}: {value!r} is not allowed; allowed: {', '.join(allowed)}")
    return value


def _many_of(data: Mapping[str, Any], key: str, allowed: tuple[str, ...]) -> tuple[str, ...]:
    values = data.get(key) or ()
    if isinstance(values, str) or not isinstance(values, Iterable):
        raise ValueError(f"{key}: expected a list of {', '.join(allowed)}")
    values = tuple(values)
    for value in values:
        if value not in allowed:
            raise ValueError(f"{key}: {value!r} is not allowed; allowed: {', '.join(allowed)}")
    if len(set(values)) != len(values):
        raise ValueError(f"{key}: each value may appear once")
    return values


def _count(data: Mapping[str, Any], key: str, limit: int) -> int | None:
    value = data.get(key)
    if value is None:
        return None
    # bool is an int subclass; `true` is never a count. 8.0 from a JSON number is 8.
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, int) or not 0 < value <= limit:
        raise ValueError(f"{key}: expected a whole number from 1 to {limit}, got {value!r}")
    return value


def _gpu_model(data: Mapping[str, Any]) -> str | None:
    value = data.get("gpu_model")
    if value is None:
        return None
    if not isinstance(value, str) or len(value.strip()) > GPU_MODEL_MAX or "\x00" in value:
        raise ValueError(f"gpu_model: expected text of at most {GPU_MODEL_MAX} characters")
    return " ".join(value.split()) or None


def _time_windows(
    data: Mapping[str, Any], workload_types: tuple[str, ...]
) -> tuple[tuple[str, str], ...]:
    windows = data.get("time_windows") or {}
    if not isinstance(windows, Mapping):
        raise ValueError("time_windows: expected an object of workload type -> time window")
    for kind, window in windows.items():
        if kind not in WORKLOAD_TYPES:
            allowed = ", ".join(WORKLOAD_TYPES)
            raise ValueError(f"time_windows: {kind!r} is not a workload type; allowed: {allowed}")
        if kind not in workload_types:
            raise ValueError(_("time_windows: %(kind)s is not among the workload types", kind=kind))
        if window not in TIME_WINDOWS:
            allowed = ", ".join(TIME_WINDOWS)
            raise ValueError(f"time_windows: {window!r} is not allowed; allowed: {allowed}")
    # Workload-type order, so equal profiles compare (and cache) equal.
    return tuple((kind, windows[kind]) for kind in WORKLOAD_TYPES if kind in windows)


@dataclass(frozen=True, slots=True)
class Profile:
    """Step 1 of an evaluation: the workload and SLO the stack has to serve."""

    workload_types: tuple[str, ...] = ()
    primary_objective: str | None = None
    p99_target_ms: float | None = None
    jitter_tolerance: str | None = None
    isolation: str = "none"
    failure_semantics: str | None = None
    tenancy: str = "single"
    priorities: tuple[str, ...] = ()  # ranked, most important first
    # What the cluster is (optional; old profiles have none of these).
    gpu_model: str | None = None  # free text, e.g. "A100 80GB"
    gpu_memory_gb: int | None = None  # per GPU
    node_count: int | None = None  # GPU nodes
    tenant_count: int | None = None
    # (workload type, time window) for the types whose window was said, in WORKLOAD_TYPES order.
    time_windows: tuple[tuple[str, str], ...] = ()
    # The cluster's Kubernetes version ("1.34") and pinned versions, (project slug, version).
    kubernetes_version: str | None = None
    component_versions: tuple[tuple[str, str], ...] = ()

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Profile:
        """Validate a step-1 profile; a ValueError names the field and the allowed values.

        More than one tenant makes the profile multi-tenant when tenancy is not said, and
        contradicts a tenancy of `single`.
        """
        unknown = sorted(set(data) - set(PROFILE_FIELDS))
        if unknown:
            allowed = ", ".join(sorted(PROFILE_FIELDS))
            raise ValueError(f"unknown profile field(s) {', '.join(unknown)}; allowed: {allowed}")
        target = data.get("p99_target_ms")
        # bool is an int subclass; `true` is never a latency.
        if target is not None and (
            isinstance(target, bool) or not isinstance(target, int | float) or target <= 0
        ):
            raise ValueError(f"p99_target_ms: expected a positive number, got {target!r}")
        workload_types = _many_of(data, "workload_types", WORKLOAD_TYPES)
        tenant_count = _count(data, "tenant_count", TENANT_COUNT_MAX)
        tenancy = _one_of(data, "tenancy", TENANCIES)
        if tenancy == "single" and tenant_count is not None and tenant_count > 1:
            raise ValueError(
                _(
                    "tenant_count: %(count)s tenants contradict a single-tenant tenancy",
                    count=tenant_count,
                )
            )
        if tenancy is None:
            tenancy = "multi" if tenant_count is not None and tenant_count > 1 else "single"
        return cls(
            workload_types=workload_types,
            primary_objective=_one_of(data, "primary_objective", PRIMARY_OBJECTIVES),
            p99_target_ms=float(target) if target is not None else None,
            jitter_tolerance=_one_of(data, "jitter_tolerance", JITTER_TOLERANCES),
            isolation=_one_of(data, "isolation", ISOLATION_REQUIREMENTS) or "none",
            failure_semantics=_one_of(data, "failure_semantics", FAILURE_SEMANTICS),
            tenancy=tenancy,
            priorities=_many_of(data, "priorities", PRIORITIES),
            gpu_model=_gpu_model(data),
            gpu_memory_gb=_count(data, "gpu_memory_gb", GPU_MEMORY_MAX_GB),
            node_count=_count(data, "node_count", NODE_COUNT_MAX),
            tenant_count=tenant_count,
            time_windows=_time_windows(data, workload_types),
            kubernetes_version=profile_kubernetes_version(data.get("kubernetes_version")),
            component_versions=profile_component_versions(data.get("component_versions")),
        )

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["workload_types"] = list(self.workload_types)
        data["priorities"] = list(self.priorities)
        data["time_windows"] = dict(self.time_windows)
        data["component_versions"] = dict(self.component_versions)
        return data

    def window(self, kind: str) -> str | None:
        """When workload type `kind` runs, if the profile says."""
        return dict(self.time_windows).get(kind)


def profile_valid_fields(data: Mapping[str, Any]) -> tuple[dict[str, Any], dict[str, str]]:
    """The fields of `data` that make a valid profile together, and an error per field left out.

    One bad field never costs the others: a step-1 save stores what is valid and marks the
    rest. An error is the engine's sentence (a `Text` where the web layer may translate it).
    """
    valid = {key: value for key, value in data.items() if key in PROFILE_FIELDS}
    errors: dict[str, str] = {
        key: f"{key}: unknown profile field" for key in data if key not in PROFILE_FIELDS
    }
    # Each failure names one field and drops it, so this ends after at most one pass per field.
    for _attempt in range(len(PROFILE_FIELDS) + 1):
        try:
            Profile.from_dict(valid)
        except ValueError as exc:
            message = exc.args[0] if exc.args else str(exc)
            key = str(message).split(":", 1)[0]
            if key not in valid:  # not a field's own error: nothing can be kept apart
                raise
            errors[key] = message
            del valid[key]
        else:
            return valid, errors
    raise AssertionError("unreachable: every pass drops a field")


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
class Finding:
    """Fit of the stack to one demand of the profile."""

    aspect: str  # "isolation" | "signals" | "metering" | "capabilities" | "kubernetes" | "versions"
    status: str  # "ok" | "warning" | "gap"
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
        """No gaps and no conflicts: what `check_stack` in CI exits zero on."""
        return not self.gaps and not self.conflicts

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


def _conflicts(own: Mapping[str, list[Row]], cluster_wide: list[Row]) -> list[PoolConflict]:
    conflicts = []
    for name, members in own.items():
        present = members + cluster_wide
        for i, a in enumerate(present):
            for b in present[i + 1 :]:
                tokens = a.exclusive & b.exclusive
                if tokens:
                    conflicts.append(PoolConflict(name, a.id, b.id, tuple(sorted(tokens))))
    return conflicts


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


def _isolation_fit(pools: Mapping[str, list[Row]], profile: Profile) -> Finding:
    demanded = profile.isolation
    if demanded == "none":
        return Finding("isolation", "ok", _("no isolation demanded"))
    # Shape C: one hard-isolation pool next to a shared pool is enough.
    offering = sorted(
        name
        for name, members in pools.items()
        if any(
            r.layer == "data_plane"
            and _ISOLATION_RANK[r.isolation["memory"]] >= _ISOLATION_RANK[demanded]
            for r in members
        )
    )
    if offering:
        return Finding(
            "isolation",
            "ok",
            _(
                "%(level)s memory isolation demanded; offered by a data-plane row in pool "
                "%(pools)s",
                level=_(demanded),
                pools=", ".join(offering),
            ),
        )
    return Finding(
        "isolation",
        "gap",
        _(
            "hard memory isolation demanded; no pool has a data-plane row offering it"
            if demanded == "hard"
            else "soft memory isolation demanded; no pool has a data-plane row offering at "
            "least soft"
        ),
    )


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


def _signals_fit(rows: list[Row], profile: Profile) -> list[Finding]:
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


def _capabilities_fit(rows: list[Row], profile: Profile) -> list[Finding]:
    offered = {ident for r in rows for ident in r.provides} | KUBERNETES_BASELINE
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
    if batchy and "online_inference" in kinds:
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


def check_stack(
    rows: Sequence[Row],
    pools: Mapping[str, Sequence[str]] | None = None,
    profile: Profile | None = None,
    *,
    kubernetes_version: str | None = None,
    component_versions: Mapping[str, str] | None = None,
) -> StackReport:
    """Check a stack of rows, optionally split into node pools (row ids per pool name).

    Rows assigned to no pool are cluster-wide and belong to every pool. Without pools the whole
    stack is one pool named `default`. The Kubernetes version and pinned component versions
    default to the profile's: a feature gate off by default at that version is a gap, and a
    contract outside its since/until span of the pinned release counts as absent.
    """
    ids = [r.id for r in rows]
    if len(set(ids)) != len(ids):
        raise ValueError("a stack lists each row once")
    if profile is not None:
        kubernetes_version = kubernetes_version or profile.kubernetes_version
        if component_versions is None:
            component_versions = dict(profile.component_versions)
    rows, pins = pinned_rows(rows, component_versions or {})
    own, cluster_wide = _pool_members(rows, pools)
    present = {name: members + cluster_wide for name, members in own.items()}
    gaps = _gaps(own, cluster_wide, rows, kubernetes_version)
    fit = [
        Finding("kubernetes", "gap", message)
        for message in feature_gap_messages([(g.row, g.pattern) for g in gaps], kubernetes_version)
    ] + [Finding("versions", "warning", message) for message in pins]
    if profile is not None:
        fit.append(_isolation_fit(present, profile))
        fit.extend(_signals_fit(list(rows), profile))
        fit.extend(_capabilities_fit(list(rows), profile))
    return StackReport(
        gaps=tuple(gaps),
        conflicts=tuple(_conflicts(own, cluster_wide)),
        missing_layers=tuple(_missing_layers(own, cluster_wide, profile)),
        fit=tuple(fit),
        pools={name: tuple(r.id for r in members) for name, members in present.items()},
    )
