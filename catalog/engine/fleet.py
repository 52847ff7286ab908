"""Profile v2: the cluster as it really is (DESIGN.md, "Profile v2").

Node groups (several GPU models per cluster), named tenants who run named work with absolute
demand, and what is installed already. Each reader validates one field of the step-1 profile and
raises a ValueError whose message starts with that field's name, so a step-1 save keeps every
other field (catalog.engine.profile.profile_valid_fields).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from catalog.engine.gpus import GpuModel, gpu_model_find
from catalog.engine.text import _
from catalog.engine.versions import SLUG, VERSION_TEXT

# Names become Kubernetes names (namespaces, queues, label values): RFC 1123 labels.
NAME = re.compile(r"^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$")
MIG_PROFILE_NAME = re.compile(r"^[1-9]g\.[1-9][0-9]{0,3}gb(\+me)?$")

NODE_GROUPS_MAX = 32
TENANTS_MAX = 1_000
DEMANDS_MAX = 16  # per tenant: a line per workload and window is plenty
INSTALLED_MAX = 100
REPLICAS_MAX = 100_000
GPUS_MAX = 1_000_000
WHEN: tuple[str, ...] = ("always", "window")
# Bounds of a node group; the same as the v1 fields' (catalog.engine.profile).
NODES_MAX = 100_000
GPUS_PER_NODE_MAX = 64
GPU_MODEL_MAX = 80


@dataclass(frozen=True, slots=True)
class NodeGroup:
    """Nodes of one shape: `nodes` × `gpus_per_node` GPUs of `gpu_model`."""

    name: str
    gpu_model: str | None = None
    nodes: int | None = None
    gpus_per_node: int | None = None

    @property
    def model(self) -> GpuModel | None:
        return gpu_model_find(self.gpu_model)

    @property
    def gpus(self) -> int | None:
        if self.nodes is None or self.gpus_per_node is None:
            return None
        return self.nodes * self.gpus_per_node

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "gpu_model": self.gpu_model,
            "nodes": self.nodes,
            "gpus_per_node": self.gpus_per_node,
        }


@dataclass(frozen=True, slots=True)
class Demand:
    """What one tenant's work of one type asks for, in absolute terms: `gpus` whole GPUs, or
    `replicas` copies of `gpus_per_replica` GPUs each, or `replicas` MIG instances of
    `mig_profile`; `when` it runs: always, or in a window (night, business hours...)."""

    workload: str
    gpus: int | None = None
    replicas: int | None = None
    gpus_per_replica: int | None = None
    mig_profile: str | None = None
    when: str = "always"

    @property
    def whole_gpus(self) -> int | None:
        """GPUs the demand holds whole (None for MIG instances, which are not whole GPUs)."""
        if self.gpus is not None:
            return self.gpus
        if self.mig_profile is None and self.replicas is not None:
            return self.replicas * (self.gpus_per_replica or 1)
        return None

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {"workload": self.workload}
        if self.gpus is not None:
            data["gpus"] = self.gpus
        if self.replicas is not None:
            data["replicas"] = self.replicas
        if self.gpus_per_replica is not None:
            data["gpus_per_replica"] = self.gpus_per_replica
        if self.mig_profile is not None:
            data["mig_profile"] = self.mig_profile
        data["when"] = self.when
        return data


@dataclass(frozen=True, slots=True)
class Tenant:
    """A named tenant: the work it runs, how strictly it is kept apart, and what it asks for."""

    name: str
    workloads: tuple[str, ...]
    cross_tenant_sharing: str | None = None  # None: the profile's rule
    isolation: str | None = None  # None: the profile's isolation per workload type
    demand: tuple[Demand, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {"name": self.name, "workloads": list(self.workloads)}
        if self.cross_tenant_sharing is not None:
            data["cross_tenant_sharing"] = self.cross_tenant_sharing
        if self.isolation is not None:
            data["isolation"] = self.isolation
        data["demand"] = [item.to_dict() for item in self.demand]
        return data


def _list(value: Any, field: str, limit: int) -> list[Any]:
    if value is None:
        return []
    if isinstance(value, str | bytes | Mapping) or not isinstance(value, Iterable):
        raise ValueError(_("%(field)s: expected a list", field=field))
    items = list(value)
    if len(items) > limit:
        raise ValueError(_("%(field)s: at most %(count)s entries", field=field, count=limit))
    return items


def _object(value: Any, where: str, keys: Iterable[str]) -> Mapping[str, Any]:
    if not isinstance(value, Mapping):
        raise ValueError(_("%(where)s: expected an object", where=where))
    unknown = sorted(str(key)[:40] for key in set(value) - set(keys))
    if unknown:
        raise ValueError(
            _(
                "%(where)s: unknown key(s) %(keys)s; allowed: %(allowed)s",
                where=where,
                keys=", ".join(unknown),
                allowed=", ".join(keys),
            )
        )
    return value


def _name(value: Any, where: str) -> str:
    if not isinstance(value, str) or not NAME.match(value):
        raise ValueError(
            _(
                "%(where)s: %(value)s is not a valid name (lower-case letters, digits and '-', "
                "at most 63, starting and ending with a letter or digit: it names Kubernetes "
                "objects)",
                where=where,
                value=repr(value)[:70],
            )
        )
    return value


def _whole(value: Any, where: str, limit: int, *, required: bool = False) -> int | None:
    if value is None and not required:
        return None
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, int) or not 0 < value <= limit:
        raise ValueError(
            _(
                "%(where)s: expected a whole number from 1 to %(limit)s, got %(value)s",
                where=where,
                limit=limit,
                value=repr(value)[:40],
            )
        )
    return value


def _choice(value: Any, where: str, allowed: Sequence[str]) -> str | None:
    if value is None:
        return None
    if value not in allowed:
        raise ValueError(
            _(
                "%(where)s: %(value)s is not allowed; allowed: %(allowed)s",
                where=where,
                value=repr(value)[:40],
                allowed=", ".join(allowed),
            )
        )
    return value


def node_groups_from_data(value: Any) -> tuple[NodeGroup, ...]:
    """`node_groups`, validated: unique names, a model of at most 80 characters, counts bounded.

    A model the GPU facts do not know is kept (the ranking withholds vendor-specific rows for
    it and says so), never guessed."""
    field = "node_groups"
    groups: list[NodeGroup] = []
    for number, item in enumerate(_list(value, field, NODE_GROUPS_MAX)):
        where = f"{field}[{number}]"
        data = _object(item, where, ("name", "gpu_model", "nodes", "gpus_per_node"))
        model = data.get("gpu_model")
        if model is not None and (
            not isinstance(model, str) or len(model.strip()) > GPU_MODEL_MAX or "\x00" in model
        ):
            raise ValueError(
                _(
                    "%(where)s.gpu_model: expected text of at most %(count)s characters",
                    where=where,
                    count=GPU_MODEL_MAX,
                )
            )
        group = NodeGroup(
            name=_name(data.get("name"), f"{where}.name"),
            gpu_model=" ".join(model.split()) or None if model is not None else None,
            nodes=_whole(data.get("nodes"), f"{where}.nodes", NODES_MAX),
            gpus_per_node=_whole(
                data.get("gpus_per_node"), f"{where}.gpus_per_node", GPUS_PER_NODE_MAX
            ),
        )
        if any(other.name == group.name for other in groups):
            raise ValueError(
                _("%(where)s.name: %(name)s is named twice", where=where, name=group.name)
            )
        groups.append(group)
    return tuple(groups)


def _demand(
    item: Any, where: str, workloads: tuple[str, ...], groups: Sequence[NodeGroup]
) -> Demand:
    data = _object(
        item, where, ("workload", "gpus", "replicas", "gpus_per_replica", "mig_profile", "when")
    )
    workload = data.get("workload")
    if workload not in workloads:
        raise ValueError(
            _(
                "%(where)s.workload: %(value)s is not among this tenant's workloads "
                "(%(workloads)s)",
                where=where,
                value=repr(workload)[:40],
                workloads=", ".join(workloads) or "-",
            )
        )
    gpus = _whole(data.get("gpus"), f"{where}.gpus", GPUS_MAX)
    replicas = _whole(data.get("replicas"), f"{where}.replicas", REPLICAS_MAX)
    per_replica = _whole(data.get("gpus_per_replica"), f"{where}.gpus_per_replica", 64)
    mig = data.get("mig_profile")
    if mig is not None:
        if not isinstance(mig, str) or not MIG_PROFILE_NAME.match(mig.strip()):
            raise ValueError(
                _(
                    "%(where)s.mig_profile: %(value)s is not a MIG profile name such as 1g.10gb",
                    where=where,
                    value=repr(mig)[:40],
                )
            )
        mig = mig.strip()
        models = [group.model for group in groups if group.model is not None]
        if models and not any(model.mig_profile(mig) for model in models):
            raise ValueError(
                _(
                    "%(where)s.mig_profile: no node group's GPU model has MIG profile "
                    "%(profile)s (GPU facts)",
                    where=where,
                    profile=mig,
                )
            )
    given = [gpus is not None, replicas is not None]
    if sum(given) != 1:
        raise ValueError(
            _(
                "%(where)s: give either gpus, or replicas (with gpus_per_replica or mig_profile)",
                where=where,
            )
        )
    if gpus is not None and (per_replica is not None or mig is not None):
        raise ValueError(
            _("%(where)s: gpus_per_replica and mig_profile go with replicas", where=where)
        )
    if per_replica is not None and mig is not None:
        raise ValueError(
            _(
                "%(where)s: a replica takes either whole GPUs (gpus_per_replica) or a MIG "
                "instance (mig_profile), not both",
                where=where,
            )
        )
    when = _choice(data.get("when", "always"), f"{where}.when", WHEN) or "always"
    return Demand(workload, gpus, replicas, per_replica, mig, when)


def tenants_from_data(
    value: Any,
    *,
    workload_types: tuple[str, ...],
    all_workloads: tuple[str, ...],
    sharing_rules: tuple[str, ...],
    isolation_levels: tuple[str, ...],
    groups: Sequence[NodeGroup] = (),
) -> tuple[Tenant, ...]:
    """`tenants`, validated: unique names, work among the profile's workload types (any type when
    the profile names none), demand only for the tenant's own work."""
    field = "tenants"
    tenants: list[Tenant] = []
    allowed = workload_types or all_workloads
    for number, item in enumerate(_list(value, field, TENANTS_MAX)):
        where = f"{field}[{number}]"
        data = _object(
            item, where, ("name", "workloads", "cross_tenant_sharing", "isolation", "demand")
        )
        name = _name(data.get("name"), f"{where}.name")
        if any(other.name == name for other in tenants):
            raise ValueError(_("%(where)s.name: %(name)s is named twice", where=where, name=name))
        kinds = _list(data.get("workloads"), f"{where}.workloads", len(all_workloads))
        for kind in kinds:
            if kind not in allowed:
                raise ValueError(
                    _(
                        "%(where)s.workloads: %(value)s is not among the workload types "
                        "(%(allowed)s)",
                        where=where,
                        value=repr(kind)[:40],
                        allowed=", ".join(allowed),
                    )
                )
        if not kinds:
            raise ValueError(_("%(where)s.workloads: name the work this tenant runs", where=where))
        if len(set(kinds)) != len(kinds):
            raise ValueError(_("%(where)s.workloads: each type may appear once", where=where))
        workloads = tuple(kind for kind in all_workloads if kind in kinds)
        demand = tuple(
            _demand(entry, f"{where}.demand[{index}]", workloads, groups)
            for index, entry in enumerate(_list(data.get("demand"), f"{where}.demand", DEMANDS_MAX))
        )
        tenants.append(
            Tenant(
                name=name,
                workloads=workloads,
                cross_tenant_sharing=_choice(
                    data.get("cross_tenant_sharing"), f"{where}.cross_tenant_sharing", sharing_rules
                ),
                isolation=_choice(data.get("isolation"), f"{where}.isolation", isolation_levels),
                demand=demand,
            )
        )
    return tuple(tenants)


def installed_from_data(value: Any) -> tuple[tuple[str, str | None], ...]:
    """`installed`: (project slug, version or None), each project once, in the order given."""
    field = "installed"
    installed: list[tuple[str, str | None]] = []
    for number, item in enumerate(_list(value, field, INSTALLED_MAX)):
        where = f"{field}[{number}]"
        data = _object(item, where, ("project", "version"))
        slug = data.get("project")
        if not isinstance(slug, str) or not SLUG.match(slug):
            raise ValueError(
                _(
                    "%(where)s.project: %(value)s is not a project slug",
                    where=where,
                    value=repr(slug)[:60],
                )
            )
        version = data.get("version")
        if version is not None and (
            not isinstance(version, str) or not VERSION_TEXT.match(version.strip())
        ):
            raise ValueError(
                _(
                    "%(where)s.version: %(value)s is not a version such as 0.10.1",
                    where=where,
                    value=repr(version)[:40],
                )
            )
        if any(slug == other for other, _version in installed):
            raise ValueError(
                _("%(where)s.project: %(slug)s is listed twice", where=where, slug=slug)
            )
        installed.append((slug, version.strip().removeprefix("v") if version else None))
    return tuple(installed)
