"""Drift of the generated queues: Kueue ClusterQueues (coverage, quotas per flavor) and Volcano
Queues (deserved shares, caps) against a cluster snapshot's, listed under their file. Plain
Python, the quantities read as Kubernetes quantities."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from fractions import Fraction
from typing import Any

from catalog.engine.cluster.detect import as_list, as_mapping
from catalog.engine.cluster.report import ERROR, INFO, WARNING
from catalog.engine.cluster.snapshot import Snapshot
from catalog.engine.text import Text, _
from evaluations.configgen.model import Drift, GeneratedFile

_QUANTITY = re.compile(r"^(?P<number>\d+(?:\.\d+)?)(?P<suffix>[KMGTPE]i|[kMGTPE]|m)?$")
# Kubernetes quantity suffixes: decimal k, M, G, …; binary Ki, Mi, Gi, …; milli m.
_SUFFIXES = (
    {"": 1, "m": Fraction(1, 1000)}
    | {prefix: 1000 ** (power + 1) for power, prefix in enumerate("kMGTPE")}
    | {prefix + "i": 1024 ** (power + 1) for power, prefix in enumerate("KMGTPE")}
)

# ---- kueue/cluster-queues.yaml -------------------------------------------------------------------


def quantity_value(value: Any) -> Fraction | None:
    """A Kubernetes quantity (`40`, `1.5`, `80Gi`, `500m`) as a number; None if it is not one."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        return Fraction(value)
    match = _QUANTITY.match(str(value).strip())
    if match is None:
        return None
    return Fraction(match["number"]) * _SUFFIXES[match["suffix"] or ""]


def cluster_queue_drift(file: GeneratedFile, snapshot: Snapshot) -> list[Drift]:
    if not snapshot.collected("clusterqueues"):
        message = _("The snapshot holds no ClusterQueues (Kueue not collected): not compared.")
        return [Drift(file.path, message, INFO, compared=False)]
    queues = {
        str(as_mapping(q.get("metadata")).get("name")): q for q in snapshot.items("clusterqueues")
    }
    items = []
    for document in file.documents:
        data = document.data
        if data.get("kind") != "ClusterQueue":
            continue
        name = str(data["metadata"]["name"])
        have = queues.get(name)
        if have is None:
            message = _("ClusterQueue %(queue)s is missing from the cluster.", queue=name)
            items.append(Drift(file.path, message, ERROR))
            continue
        items += _queue_differences(file.path, name, data, have)
    return items


def _queue_differences(
    path: str, name: str, generated: Mapping[str, Any], have: Mapping[str, Any]
) -> list[Drift]:
    groups = as_list(as_mapping(have.get("spec")).get("resourceGroups"))
    covered = {str(r) for g in groups for r in as_list(as_mapping(g).get("coveredResources"))}
    quotas: dict[tuple[str, str], Any] = {}
    flavors: set[str] = set()
    for group in groups:
        for flavor in as_list(as_mapping(group).get("flavors")):
            flavor_name = str(as_mapping(flavor).get("name"))
            flavors.add(flavor_name)
            for resource in as_list(as_mapping(flavor).get("resources")):
                resource = as_mapping(resource)
                quotas[(flavor_name, str(resource.get("name")))] = resource.get("nominalQuota")
    items = []
    for group in generated["spec"]["resourceGroups"]:
        for resource in group["coveredResources"]:
            if resource not in covered:
                message = _(
                    "ClusterQueue %(queue)s does not cover %(resource)s.",
                    queue=name,
                    resource=resource,
                )
                items.append(Drift(path, message, ERROR))
        for flavor in group["flavors"]:
            if flavor["name"] not in flavors:
                message = _(
                    "ClusterQueue %(queue)s has no flavor %(flavor)s.",
                    queue=name,
                    flavor=flavor["name"],
                )
                items.append(Drift(path, message, WARNING))
                continue
            for resource in flavor["resources"]:
                if resource["name"] not in covered:
                    continue  # said above
                items += _quota_difference(path, name, flavor["name"], resource, quotas)
    return items


def _quota_difference(path, queue, flavor, resource, quotas) -> list[Drift]:
    wanted = resource["nominalQuota"]
    raw = quotas.get((flavor, resource["name"]))
    have = quantity_value(raw) if raw is not None else None
    if wanted and not have:
        message = _(
            "ClusterQueue %(queue)s has no quota for %(resource)s in flavor %(flavor)s "
            "(generated %(generated)s).",
            queue=queue,
            resource=resource["name"],
            flavor=flavor,
            generated=wanted,
        )
        return [Drift(path, message, ERROR)]
    if have is not None and have != quantity_value(wanted):
        message = _(
            "ClusterQueue %(queue)s: the quota of %(resource)s in flavor %(flavor)s differs "
            "(generated %(generated)s, cluster %(cluster)s).",
            queue=queue,
            resource=resource["name"],
            flavor=flavor,
            generated=wanted,
            cluster=raw,
        )
        return [Drift(path, message, WARNING)]
    return []


# ---- volcano/queues.yaml -------------------------------------------------------------------------


def volcano_queue_drift(file: GeneratedFile, snapshot: Snapshot) -> list[Drift]:
    """Each generated Volcano Queue against the cluster's: missing, a resource its `deserved`
    (the share the capacity plugin reclaims up to) leaves out or sets to 0, a different share,
    and a `capability` that caps lower than generated."""
    if not snapshot.collected("queues"):
        message = _("The snapshot holds no Volcano queues (not collected): not compared.")
        return [Drift(file.path, message, INFO, compared=False)]

    def compare(name: str, data: Mapping[str, Any], spec: Mapping[str, Any]) -> list[Drift]:
        return [
            item
            for field in ("deserved", "capability")
            for item in _volcano_field_drift(file.path, name, field, data["spec"], spec)
        ]

    return _each_queue(
        file,
        snapshot.items("queues"),
        "scheduling.volcano.sh/",
        lambda name: _("Volcano queue %(queue)s is missing from the cluster.", queue=name),
        compare,
    )


def _each_queue(
    file: GeneratedFile,
    cluster: Sequence[Mapping[str, Any]],
    group: str,
    missing: Callable[[str], Text],
    compare: Callable[[str, Mapping[str, Any], Mapping[str, Any]], list[Drift]],
) -> list[Drift]:
    """Each generated Queue of `file`, in its order, against the cluster's of the same name in
    API group `group`: an error `missing(name)` when the cluster lacks it, else what
    `compare(name, generated data, cluster spec)` finds."""
    queues = {
        str(as_mapping(q.get("metadata")).get("name")): q
        for q in cluster
        if str(q.get("apiVersion", "")).startswith(group)
    }
    items = []
    for document in file.documents:
        data = document.data
        if data.get("kind") != "Queue":
            continue
        name = str(data["metadata"]["name"])
        have = queues.get(name)
        if have is None:
            items.append(Drift(file.path, missing(name), ERROR))
        else:
            items += compare(name, data, as_mapping(have.get("spec")))
    return items


def _volcano_field_drift(path, queue, field, generated, have) -> list[Drift]:
    wanted = generated.get(field) or {}
    cluster = as_mapping(have.get(field))
    items = []
    for resource, amount in wanted.items():
        raw = cluster.get(resource)
        value = quantity_value(raw) if raw is not None else None
        if raw is None or (not value and quantity_value(amount)):
            if field == "capability" and raw is None:
                continue  # absent from capability: not capped, which only lends more
            message = _(
                "Volcano queue %(queue)s has no %(field)s of %(resource)s "
                "(generated %(generated)s).",
                queue=queue,
                field=field,
                resource=resource,
                generated=amount,
            )
            items.append(Drift(path, message, ERROR if field == "deserved" else WARNING))
        elif value != quantity_value(amount):
            message = _(
                "Volcano queue %(queue)s: its %(field)s of %(resource)s differs (generated "
                "%(generated)s, cluster %(cluster)s).",
                queue=queue,
                field=field,
                resource=resource,
                generated=amount,
                cluster=raw,
            )
            items.append(Drift(path, message, WARNING))
    return items


# ---- kai-scheduler/queues.yaml -------------------------------------------------------------------

KAI_GPU_FIELDS = ("quota", "limit", "overQuotaWeight")


def kai_queue_drift(file: GeneratedFile, snapshot: Snapshot) -> list[Drift]:
    """Each generated KAI Scheduler Queue against the cluster's (`kaiqueues`,
    queues.scheduling.run.ai): missing, under another parent, and its GPU quota, limit and
    over-quota weight. CPU and memory, which EcoMap does not size, are not compared."""
    if not snapshot.collected("kaiqueues"):
        message = _("The snapshot holds no KAI Scheduler queues (not collected): not compared.")
        return [Drift(file.path, message, INFO, compared=False)]

    def compare(name: str, data: Mapping[str, Any], spec: Mapping[str, Any]) -> list[Drift]:
        items = []
        wanted_parent = data["spec"].get("parentQueue") or ""
        parent = str(spec.get("parentQueue") or "")
        if parent != wanted_parent:
            message = _(
                "KAI queue %(queue)s has parent queue %(cluster)s, generated %(generated)s: its "
                "quota is shared under another parent.",
                queue=name,
                cluster=parent or "-",
                generated=wanted_parent or "-",
            )
            items.append(Drift(file.path, message, WARNING))
        gpu = as_mapping(as_mapping(spec.get("resources")).get("gpu"))
        for field in KAI_GPU_FIELDS:
            items += _kai_gpu_drift(file.path, name, field, data["spec"]["resources"]["gpu"], gpu)
        return items

    return _each_queue(
        file,
        snapshot.items("kaiqueues"),
        "scheduling.run.ai/",
        lambda name: _("KAI queue %(queue)s is missing from the cluster.", queue=name),
        compare,
    )


def _kai_gpu_drift(path, queue, field, generated, have) -> list[Drift]:
    wanted = generated[field]
    raw = have.get(field)
    value = quantity_value(raw) if raw is not None else None
    if field == "quota" and quantity_value(wanted) and not value:
        message = _(
            "KAI queue %(queue)s has no GPU quota (generated %(generated)s GPUs): its tenant is "
            "guaranteed nothing.",
            queue=queue,
            generated=wanted,
        )
        return [Drift(path, message, ERROR)]
    if value != quantity_value(wanted):
        message = _(
            "KAI queue %(queue)s: its GPU %(field)s differs (generated %(generated)s, cluster "
            "%(cluster)s).",
            queue=queue,
            field=field,
            generated=wanted,
            cluster="-" if raw is None else raw,
        )
        return [Drift(path, message, WARNING)]
    return []
