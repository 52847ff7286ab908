"""Step 1 of an evaluation as the engines see it: the workload and SLO profile, validated field by
field."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass
from typing import Any

from catalog.engine.text import _
from catalog.engine.versions import (
    profile_component_versions,
    profile_kubernetes_version,
)
from catalog.engine.workload_mix import MixEntry, workload_mix_from_data

WORKLOAD_TYPES: tuple[str, ...] = ("training", "batch", "online_inference", "interactive")

PRIMARY_OBJECTIVES: tuple[str, ...] = ("throughput", "p99_latency", "cost")

JITTER_TOLERANCES: tuple[str, ...] = ("low", "medium", "high")

ISOLATION_REQUIREMENTS: tuple[str, ...] = ("hard", "soft", "none")

FAILURE_SEMANTICS: tuple[str, ...] = ("degrade", "incident")

TENANCIES: tuple[str, ...] = ("single", "multi")

# Whether one GPU may serve several tenants at once: never (a GPU serves one tenant at a time),
# only through partitions hard on memory, compute and fault (MIG), or freely.
CROSS_TENANT_SHARING: tuple[str, ...] = ("never", "hard_partitions", "allowed")

PRIORITIES: tuple[str, ...] = ("isolation", "cost", "observability", "compatibility")

# When a workload type runs: all day, office hours only, at night, at the weekend. Work that runs
# only at night or at the weekend can share GPUs by time with work that runs by day.
TIME_WINDOWS: tuple[str, ...] = ("always", "business_hours", "night", "weekend")

OFF_HOURS: frozenset[str] = frozenset({"night", "weekend"})

GPU_MODEL_MAX = 80

# Counts beyond these are typing mistakes, not clusters.
GPU_MEMORY_MAX_GB = 4096

NODE_COUNT_MAX = 100_000

GPUS_PER_NODE_MAX = 64

TENANT_COUNT_MAX = 100_000

# In the order step 1 asks them (summaries list them so).
PROFILE_FIELDS: tuple[str, ...] = (
    "workload_types",
    "time_windows",
    "primary_objective",
    "p99_target_ms",
    "jitter_tolerance",
    "isolation",
    "workload_isolation",
    "failure_semantics",
    "tenancy",
    "tenant_count",
    "cross_tenant_sharing",
    "gpu_model",
    "gpu_memory_gb",
    "node_count",
    "gpus_per_node",
    "workload_mix",
    "kubernetes_version",
    "component_versions",
    "priorities",
)


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


def _workload_isolation(
    data: Mapping[str, Any], workload_types: tuple[str, ...]
) -> tuple[tuple[str, str], ...]:
    levels = data.get("workload_isolation") or {}
    if not isinstance(levels, Mapping):
        raise ValueError("workload_isolation: expected an object of workload type -> isolation")
    for kind, level in levels.items():
        if kind not in WORKLOAD_TYPES:
            allowed = ", ".join(WORKLOAD_TYPES)
            raise ValueError(
                f"workload_isolation: {kind!r} is not a workload type; allowed: {allowed}"
            )
        if kind not in workload_types:
            raise ValueError(
                _("workload_isolation: %(kind)s is not among the workload types", kind=kind)
            )
        if level not in ISOLATION_REQUIREMENTS:
            allowed = ", ".join(ISOLATION_REQUIREMENTS)
            raise ValueError(f"workload_isolation: {level!r} is not allowed; allowed: {allowed}")
    return tuple((kind, levels[kind]) for kind in WORKLOAD_TYPES if kind in levels)


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
    gpus_per_node: int | None = None  # capacity sizing assumes 8 (an HGX board) when not said
    tenant_count: int | None = None
    # (workload type, time window) for the types whose window was said, in WORKLOAD_TYPES order.
    time_windows: tuple[tuple[str, str], ...] = ()
    # The cluster's Kubernetes version ("1.34") and pinned versions, (project slug, version).
    kubernetes_version: str | None = None
    component_versions: tuple[tuple[str, str], ...] = ()
    # Whether a GPU may serve several tenants at once (CROSS_TENANT_SHARING); None: derived from
    # tenancy and isolation (see tenant_rule).
    cross_tenant_sharing: str | None = None
    # (workload type, isolation) where a type demands other isolation than `isolation`.
    workload_isolation: tuple[tuple[str, str], ...] = ()
    # What each tenant runs, in counts of tasks of one size (catalog.engine.workload_mix); empty:
    # capacity sizing uses the documented default per workload type.
    workload_mix: tuple[MixEntry, ...] = ()

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
            gpus_per_node=_count(data, "gpus_per_node", GPUS_PER_NODE_MAX),
            tenant_count=tenant_count,
            time_windows=_time_windows(data, workload_types),
            kubernetes_version=profile_kubernetes_version(data.get("kubernetes_version")),
            component_versions=profile_component_versions(data.get("component_versions")),
            cross_tenant_sharing=_one_of(data, "cross_tenant_sharing", CROSS_TENANT_SHARING),
            workload_isolation=_workload_isolation(data, workload_types),
            workload_mix=workload_mix_from_data(
                data.get("workload_mix"),
                tenant_count=tenant_count or (1 if tenancy == "single" else None),
            ),
        )

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["workload_types"] = list(self.workload_types)
        data["priorities"] = list(self.priorities)
        data["time_windows"] = dict(self.time_windows)
        data["component_versions"] = dict(self.component_versions)
        data["workload_isolation"] = dict(self.workload_isolation)
        data["workload_mix"] = [entry.to_dict() for entry in self.workload_mix]
        return data

    @property
    def tenant_rule(self) -> str:
        """Whether a GPU may serve several tenants at once: as said, else from tenancy and
        isolation (several tenants demanding hard isolation share only hard partitions)."""
        if self.cross_tenant_sharing:
            return self.cross_tenant_sharing
        if self.tenancy == "multi" and self.isolation == "hard":
            return "hard_partitions"
        return "allowed"

    def isolation_for(self, kind: str) -> str:
        """The isolation demanded for workload type `kind`."""
        return dict(self.workload_isolation).get(kind, self.isolation)

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
