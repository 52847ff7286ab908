"""DRA drift: the DeviceClasses and drivers the generated dra/ files rely on, against a snapshot.

What a snapshot collects of DRA (docs/cluster-snapshot.md) is compared: each DeviceClass the
claim templates name must exist (`deviceclasses`), the ones EcoMap generates must select as
generated (their CEL expressions compared as strings), and each pool's nodes must carry
ResourceSlices of the class's driver (`resourceslices`). A missing class or driver is an error:
a request names its class (ExactDeviceRequest.deviceClassName) and every allocated device must
satisfy the class's selectors (DeviceClassSpec.selectors), so without the class, or without a
slice of its driver on the node, no device can be allocated. A slice is node-local with
`spec.nodeName`; `allNodes`, `nodeSelector` and `perDeviceNodeSelection` are the other ways (one
of the four is set), which this compare does not resolve to nodes. k8s.io/api v0.34.0
resource/v1/types.go#L98-L167 (ResourceSliceSpec), #L814-L828, #L1659-L1664,
https://github.com/kubernetes/api/blob/v0.34.0/resource/v1/types.go
ResourceClaimTemplates themselves are not collected: said once per file, never guessed.

Plain Python, like config_drift.py, which dispatches the `dra` files here with each pool's
nodes (its `_pool_members`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Protocol

from catalog.engine.cluster.detect import as_list, as_mapping
from catalog.engine.cluster.report import ERROR, INFO, WARNING
from catalog.engine.cluster.snapshot import Snapshot
from catalog.engine.text import Text, _
from evaluations.configgen.model import Drift, GeneratedFile

CLASSES_PATH = "dra/device-classes.yaml"
NODES_NAMED = 5  # as config_drift.py: nodes named in one message before "(+N)"
TEMPLATES_NOT_COLLECTED = _(
    "A cluster snapshot does not collect ResourceClaimTemplates: the templates themselves are "
    "not compared, only the DeviceClasses they name and the drivers' ResourceSlices."
)


class PoolNodes(Protocol):
    nodes: Sequence[Mapping[str, Any]]


def dra_drift(
    file: GeneratedFile, snapshot: Snapshot, members: Mapping[str, PoolNodes]
) -> list[Drift]:
    """Differences of one generated dra/ file: its DeviceClasses (the generated ones in
    dra/device-classes.yaml, the drivers' own under the claim templates that name them)."""
    if file.path == CLASSES_PATH:
        return _generated_class_drift(file, snapshot)
    return _claim_template_drift(file, snapshot, members)


def _generated_class_drift(file: GeneratedFile, snapshot: Snapshot) -> list[Drift]:
    if not snapshot.collected("deviceclasses"):
        return [_list_absent(file.path, "deviceclasses", compared=False)]
    cluster = _cluster_classes(snapshot)
    found = []
    for document in file.documents:
        name = str(document.data["metadata"]["name"])
        drivers = ", ".join(document.about.get("drivers") or ())
        if name not in cluster:
            message = _(
                "DeviceClass %(name)s is missing from the cluster: apply this file (the class "
                "selects the devices of DRA driver %(driver)s).",
                name=name,
                driver=drivers,
            )
            found.append(Drift(file.path, message, ERROR))
            continue
        generated = _expressions(document.data)
        if cluster[name] != generated:
            message = _(
                "DeviceClass %(name)s selects %(cluster)s in the cluster; generated %(generated)s.",
                name=name,
                cluster=_shown(cluster[name]),
                generated=_shown(generated),
            )
            found.append(Drift(file.path, message, WARNING))
    return found


def _claim_template_drift(
    file: GeneratedFile, snapshot: Snapshot, members: Mapping[str, PoolNodes]
) -> list[Drift]:
    classes = snapshot.collected("deviceclasses")
    slices = snapshot.collected("resourceslices")
    # Compared (so listed with its notes) when either list is there; else not compared at all.
    compared = classes or slices
    found = [Drift(file.path, TEMPLATES_NOT_COLLECTED, INFO, compared=compared)]
    found += [
        _list_absent(file.path, kind, compared=compared)
        for kind, had in (("deviceclasses", classes), ("resourceslices", slices))
        if not had
    ]
    about = [document.about for document in file.documents if document.about]
    if classes:
        cluster = _cluster_classes(snapshot)
        installed = {(a["device_class"], a["installed_by"], a["drivers"]) for a in about}
        for name, row, drivers in sorted(installed):
            if row and name not in cluster:  # the generated ones are their own file's
                message = _(
                    "DeviceClass %(name)s is missing from the cluster: the chart of DRA driver "
                    "%(driver)s (%(row)s) installs it; claims naming it cannot be allocated.",
                    name=name,
                    driver=", ".join(drivers),
                    row=row,
                )
                found.append(Drift(file.path, message, ERROR))
    if slices:
        served = dict.fromkeys((a["pool"], tuple(a["drivers"])) for a in about)
        for pool, drivers in served:
            found += _slice_drift(file.path, snapshot, pool, drivers, members)
    return found


def _slice_drift(
    path: str,
    snapshot: Snapshot,
    pool: str,
    drivers: Sequence[str],
    members: Mapping[str, PoolNodes],
) -> list[Drift]:
    """An error when none of the pool's nodes has a ResourceSlice of the driver, a warning
    naming the nodes without one when some have. A pool whose nodes are not found (its node file
    says so; a single unlabelled pool is matched by NVIDIA extended resources, which DRA-only
    nodes do not advertise) is an error only when the driver has no slice in the whole cluster.
    Nothing is said when a slice of the driver selects its nodes otherwise (not resolved here)."""
    found = members.get(pool)
    nodes = [str(as_mapping(n.get("metadata")).get("name")) for n in (found.nodes if found else ())]
    published: set[str] = set()
    for item in snapshot.items("resourceslices"):
        spec = as_mapping(item.get("spec"))
        if spec.get("driver") not in drivers:
            continue
        if not spec.get("nodeName"):
            return []  # allNodes, a node selector or per-device nodes: not resolved here
        published.add(str(spec["nodeName"]))
    driver = ", ".join(drivers)
    if not nodes:
        if published:
            return []
        message = _(
            "No ResourceSlice of DRA driver %(driver)s in the cluster: its kubelet plugin "
            "publishes no devices, so the claims of pool %(pool)s cannot be allocated.",
            driver=driver,
            pool=pool,
        )
        return [Drift(path, message, ERROR)]
    without = [name for name in nodes if name not in published]
    if len(without) == len(nodes):
        message = _(
            "No ResourceSlice of DRA driver %(driver)s on the %(count)s nodes of pool "
            "%(pool)s: its kubelet plugin publishes no devices there, so the pool's claims "
            "cannot be allocated.",
            driver=driver,
            count=len(nodes),
            pool=pool,
        )
        return [Drift(path, message, ERROR)]
    if without:
        message = _(
            "No ResourceSlice of DRA driver %(driver)s on %(nodes)s of pool %(pool)s.",
            driver=driver,
            nodes=_names(without),
            pool=pool,
        )
        return [Drift(path, message, WARNING)]
    return []


def _list_absent(path: str, kind: str, *, compared: bool) -> Drift:
    message = _(
        "This snapshot has no %(list)s list: what it would show is not compared "
        "(collect-cluster collects it unless run with --skip %(list)s).",
        list=kind,
    )
    return Drift(path, message, INFO, compared=compared)


def _cluster_classes(snapshot: Snapshot) -> dict[str, tuple[str, ...]]:
    """The cluster's DeviceClasses by name, each with its CEL selector expressions."""
    return {
        str(as_mapping(item.get("metadata")).get("name")): _expressions(item)
        for item in snapshot.items("deviceclasses")
    }


def _expressions(device_class: Mapping[str, Any]) -> tuple[str, ...]:
    selectors = as_list(as_mapping(device_class.get("spec")).get("selectors"))
    return tuple(
        str(as_mapping(as_mapping(s).get("cel")).get("expression", "")).strip() for s in selectors
    )


def _shown(expressions: Sequence[str]) -> str:
    # Every selector must match (DeviceClassSpec.selectors): shown joined as one condition.
    return (
        " && ".join(f"({e})" for e in expressions)
        if len(expressions) > 1
        else (expressions[0] if expressions else "-")
    )


def _names(nodes: Sequence[str]) -> Text:
    """`node a` or `nodes a, b, c, d, e (+3)`: config_drift.py's wording (the same sentences),
    not imported from there because config_drift.py imports this module."""
    shown = ", ".join(nodes[:NODES_NAMED])
    shown += f" (+{len(nodes) - NODES_NAMED})" if len(nodes) > NODES_NAMED else ""
    return (
        _("node %(names)s", names=shown) if len(nodes) == 1 else _("nodes %(names)s", names=shown)
    )
