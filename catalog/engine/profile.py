"""Step 1 of an evaluation as the engines see it: the workload and SLO profile, validated field by
field."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass
from typing import Any

from catalog.engine.fleet import (
    NodeGroup,
    Tenant,
    installed_from_data,
    node_groups_from_data,
    tenants_from_data,
)
from catalog.engine.gpus import gpu_model_find
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
    # Profile v2 (DESIGN.md): the cluster as it is.
    "node_groups",
    "tenants",
    "installed",
)

# The one node group a profile without node groups is read as.
DEFAULT_GROUP = "gpu-nodes"

# From the strictest: a pool serving several tenants follows the strictest of their rules.
_RULE_ORDER = {"never": 0, "hard_partitions": 1, "allowed": 2}


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
    # Profile v2: node groups, named tenants, what is installed (catalog.engine.fleet). Empty:
    # read as one node group (`groups`) and tenants tenant-1..n (`tenant_list`).
    node_groups: tuple[NodeGroup, ...] = ()
    tenants: tuple[Tenant, ...] = ()
    installed: tuple[tuple[str, str | None], ...] = ()  # (project slug, version)

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
        groups = node_groups_from_data(data.get("node_groups"))
        tenants = tenants_from_data(
            data.get("tenants"),
            workload_types=workload_types,
            all_workloads=WORKLOAD_TYPES,
            sharing_rules=CROSS_TENANT_SHARING,
            isolation_levels=ISOLATION_REQUIREMENTS,
            groups=groups,
        )
        if tenants:
            workload_types = _tenants_run_every_type(tenants, workload_types)
        tenant_count = _count(data, "tenant_count", TENANT_COUNT_MAX)
        if tenants and tenant_count is not None and tenant_count != len(tenants):
            raise ValueError(
                _(
                    "tenant_count: %(count)s contradicts the %(named)s tenants named",
                    count=tenant_count,
                    named=len(tenants),
                )
            )
        if tenants:
            tenant_count = len(tenants)
        tenancy = _one_of(data, "tenancy", TENANCIES)
        if tenancy == "single" and len(tenants) > 1:
            # Named here, so a step-1 save drops the tenancy and keeps the tenants.
            raise ValueError(
                _(
                    "tenancy: single contradicts the %(count)s tenants named",
                    count=len(tenants),
                )
            )
        if tenancy == "single" and tenant_count is not None and tenant_count > 1:
            raise ValueError(
                _(
                    "tenant_count: %(count)s tenants contradict a single-tenant tenancy",
                    count=tenant_count,
                )
            )
        if tenancy is None:
            tenancy = "multi" if tenant_count is not None and tenant_count > 1 else "single"
        gpu_model, node_count, gpus_per_node = _cluster_shape(data, groups)
        return cls(
            workload_types=workload_types,
            primary_objective=_one_of(data, "primary_objective", PRIMARY_OBJECTIVES),
            p99_target_ms=float(target) if target is not None else None,
            jitter_tolerance=_one_of(data, "jitter_tolerance", JITTER_TOLERANCES),
            isolation=_one_of(data, "isolation", ISOLATION_REQUIREMENTS) or "none",
            failure_semantics=_one_of(data, "failure_semantics", FAILURE_SEMANTICS),
            tenancy=tenancy,
            priorities=_many_of(data, "priorities", PRIORITIES),
            gpu_model=gpu_model,
            gpu_memory_gb=_count(data, "gpu_memory_gb", GPU_MEMORY_MAX_GB),
            node_count=node_count,
            gpus_per_node=gpus_per_node,
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
            node_groups=groups,
            tenants=tenants,
            installed=installed_from_data(data.get("installed")),
        )

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["workload_types"] = list(self.workload_types)
        data["priorities"] = list(self.priorities)
        data["time_windows"] = dict(self.time_windows)
        data["component_versions"] = dict(self.component_versions)
        data["workload_isolation"] = dict(self.workload_isolation)
        data["workload_mix"] = [entry.to_dict() for entry in self.workload_mix]
        data["node_groups"] = [group.to_dict() for group in self.node_groups]
        data["tenants"] = [tenant.to_dict() for tenant in self.tenants]
        data["installed"] = [
            {"project": slug, "version": version} for slug, version in self.installed
        ]
        return data

    @property
    def groups(self) -> tuple[NodeGroup, ...]:
        """The node groups, a v1 profile's cluster read as one group."""
        if self.node_groups:
            return self.node_groups
        return (NodeGroup(DEFAULT_GROUP, self.gpu_model, self.node_count, self.gpus_per_node),)

    @property
    def tenant_list(self) -> tuple[Tenant, ...]:
        """The tenants by name; a v1 profile's `tenant_count` read as tenant-1..n running every
        workload type (one tenant when single-tenant and not counted)."""
        if self.tenants:
            return self.tenants
        count = self.tenant_count or 1
        return tuple(Tenant(f"tenant-{n}", self.workload_types) for n in range(1, count + 1))

    def tenants_running(self, kinds: Iterable[str]) -> tuple[Tenant, ...]:
        """The tenants that run any of the workload types `kinds`."""
        kinds = set(kinds)
        return tuple(tenant for tenant in self.tenant_list if kinds & set(tenant.workloads))

    def rule_for(self, tenants: Iterable[Tenant]) -> str:
        """The cross-tenant sharing rule of a pool serving `tenants`: the strictest of their
        own rules and the profile's (a tenant that never shares binds the whole pool)."""
        rules = [tenant.cross_tenant_sharing or self.tenant_rule for tenant in tenants]
        return min(rules or [self.tenant_rule], key=_RULE_ORDER.__getitem__)

    @property
    def installed_versions(self) -> dict[str, str | None]:
        return dict(self.installed)

    @property
    def tenant_rule(self) -> str:
        """Whether a GPU may serve several tenants at once: as said, else from tenancy and
        isolation (several tenants demanding hard isolation share only hard partitions)."""
        if self.cross_tenant_sharing:
            return self.cross_tenant_sharing
        if self.tenancy == "multi" and self.isolation == "hard":
            return "hard_partitions"
        return "allowed"

    def isolation_for(self, kind: str, tenants: Iterable[Tenant] = ()) -> str:
        """The isolation demanded for workload type `kind`; with `tenants`, the strongest any of
        them that runs `kind` demands of its own (a tenant's isolation binds its work)."""
        level = dict(self.workload_isolation).get(kind, self.isolation)
        own = [t.isolation for t in tenants if t.isolation and kind in t.workloads]
        return max([level, *own], key=("none", "soft", "hard").index)

    def window(self, kind: str) -> str | None:
        """When workload type `kind` runs, if the profile says."""
        return dict(self.time_windows).get(kind)


def _tenants_run_every_type(
    tenants: tuple[Tenant, ...], workload_types: tuple[str, ...]
) -> tuple[str, ...]:
    """The workload types, said or (when step 1 names none) the tenants' together; every type
    said must be run by a named tenant, or nobody's work would be served."""
    run = {kind for tenant in tenants for kind in tenant.workloads}
    if not workload_types:
        return tuple(kind for kind in WORKLOAD_TYPES if kind in run)
    idle = [kind for kind in workload_types if kind not in run]
    if idle:
        raise ValueError(
            _(
                "tenants: no tenant runs %(kinds)s (a workload type of step 1); name the "
                "tenant that runs it",
                kinds=", ".join(idle),
            )
        )
    return workload_types


def _cluster_shape(
    data: Mapping[str, Any], groups: tuple[NodeGroup, ...]
) -> tuple[str | None, int | None, int | None]:
    """gpu_model, node_count and gpus_per_node: as said (v1), or from the node groups where
    they agree. Said beside node groups, each must agree with them: one model per cluster
    cannot describe an A100 + L4 fleet, so it is never taken for one."""
    model = _gpu_model(data)
    nodes = _count(data, "node_count", NODE_COUNT_MAX)
    per_node = _count(data, "gpus_per_node", GPUS_PER_NODE_MAX)
    if not groups:
        return model, nodes, per_node
    names = {group.gpu_model for group in groups}
    keys = {_model_key(name) for name in names}
    common = groups[0].gpu_model if len(keys) == 1 else None
    if model is not None and (common is None or _model_key(model) != _model_key(common)):
        raise ValueError(
            _(
                "gpu_model: %(model)s contradicts the node groups' models (%(models)s); with "
                "node groups, give the model per group",
                model=model,
                models=", ".join(sorted(str(name) for name in names)),
            )
        )
    counted = [group.nodes for group in groups]
    total = sum(counted) if None not in counted else None  # type: ignore[arg-type]
    if nodes is not None and nodes != total:
        raise ValueError(
            _(
                "node_count: %(count)s contradicts the node groups' %(total)s nodes",
                count=nodes,
                total=total if total is not None else "?",
            )
        )
    shapes = {group.gpus_per_node for group in groups}
    shared = shapes.pop() if len(shapes) == 1 else None
    if per_node is not None and per_node != shared:
        raise ValueError(
            _(
                "gpus_per_node: %(count)s contradicts the node groups' GPUs per node",
                count=per_node,
            )
        )
    # A node count without one node shape would be sized at a default shape: left unsaid.
    return common, total if shared is not None else None, shared


def _model_key(name: str | None) -> str | None:
    model = gpu_model_find(name)
    return model.key if model is not None else (name or "").casefold() or None


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
            # "tenants[2].name: ..." is the error of field tenants.
            key = re.split(r"[:.\[]", str(message), maxsplit=1)[0]
            if key not in valid:  # not a field's own error: nothing can be kept apart
                raise
            errors[key] = message
            del valid[key]
        else:
            return valid, errors
    raise AssertionError("unreachable: every pass drops a field")
