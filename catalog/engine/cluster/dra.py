"""DRA features a snapshot shows in use, against the Kubernetes release that runs them.

The feature list (catalog/data/facts/kubernetes-features.yaml, read by catalog.engine.kubernetes)
gives each feature gate's stage per minor release and the release from which it is on by default.
Only uses visible in the collected objects count: ResourceSlices and DeviceClasses (claims are not
collected).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any

from catalog.engine.cluster.detect import as_list, as_mapping
from catalog.engine.cluster.report import ERROR, INFO, WARNING, Finding
from catalog.engine.cluster.snapshot import Snapshot
from catalog.engine.kubernetes import FEATURES_PATH, builtin_feature_entries
from catalog.engine.text import _

# Catalog facts: the stack check and the API read the same file.
DRA_FEATURES_PATH = FEATURES_PATH


def builtin_dra_features() -> tuple[Mapping[str, Any], ...]:
    """The verified feature stages of the catalog's Kubernetes facts (what callers pass on)."""
    return builtin_feature_entries()


def _devices(resource_slice: Mapping[str, Any]) -> Iterator[Mapping[str, Any]]:
    """Devices of a ResourceSlice; resource.k8s.io/v1beta1 nests their fields under `basic`."""
    for device in as_list(as_mapping(resource_slice.get("spec")).get("devices")):
        if isinstance(device, Mapping):
            basic = device.get("basic")
            yield basic if isinstance(basic, Mapping) else device


def _slice_uses(test: Callable[[Mapping[str, Any]], bool]) -> Callable[[Snapshot], list[str]]:
    def uses(snapshot: Snapshot) -> list[str]:
        return [
            f"ResourceSlice {s['metadata']['name']}"
            for s in snapshot.items("resourceslices")
            if test(s)
        ]

    return uses


def _any_device(key: str) -> Callable[[Mapping[str, Any]], bool]:
    return lambda s: any(d.get(key) for d in _devices(s))


def _dra_objects(snapshot: Snapshot) -> list[str]:
    slices = snapshot.items("resourceslices")
    classes = [f"DeviceClass {c['metadata']['name']}" for c in snapshot.items("deviceclasses")]
    return ([f"{len(slices)} ResourceSlice(s)"] if slices else []) + classes


def _extended_resource_classes(snapshot: Snapshot) -> list[str]:
    return [
        f"DeviceClass {c['metadata']['name']} (extendedResourceName "
        f"{c['spec']['extendedResourceName']})"
        for c in snapshot.items("deviceclasses")
        if isinstance(c.get("spec"), Mapping) and c["spec"].get("extendedResourceName")
    ]


# How each feature's use shows in a snapshot; features not listed here cannot be seen.
USES: dict[str, Callable[[Snapshot], list[str]]] = {
    "DynamicResourceAllocation": _dra_objects,
    "DRAExtendedResource": _extended_resource_classes,
    "DRAPartitionableDevices": _slice_uses(
        lambda s: (
            bool(as_mapping(s.get("spec")).get("sharedCounters"))
            or _any_device("consumesCounters")(s)
        )
    ),
    "DRAConsumableCapacity": _slice_uses(_any_device("allowMultipleAllocations")),
    "DRADeviceTaints": _slice_uses(_any_device("taints")),
}


def _minor(text: str) -> tuple[int, int]:
    major, minor = text.split(".")[:2]
    return int(major), int(minor)


def dra_feature_findings(
    snapshot: Snapshot, features: Sequence[Mapping[str, Any]]
) -> list[Finding]:
    version = snapshot.kubernetes_minor
    findings = []
    for feature in features:
        name = str(feature.get("feature", ""))
        uses = USES.get(name)
        objects = uses(snapshot) if uses else []
        stages = {_minor(k): v for k, v in (feature.get("stages") or {}).items()}
        if not objects or not stages:
            continue
        source = (str(feature["source"]),) if feature.get("source") else ()
        if version is None:
            findings.append(
                Finding(
                    INFO,
                    "kubernetes-version-unknown",
                    _(
                        "%(feature)s is in use, but the snapshot has no Kubernetes version to "
                        "check it against",
                        feature=name,
                    ),
                    objects=tuple(objects),
                    evidence=source,
                )
            )
            continue
        here = f"{version[0]}.{version[1]}"
        first = min(stages)
        on_since = feature.get("default_on_since")
        if version < first:
            findings.append(
                Finding(
                    ERROR,
                    "dra-feature-too-old",
                    _(
                        "%(feature)s is in use, but Kubernetes %(version)s predates it (first "
                        "in %(first)s as %(stage)s)",
                        feature=name,
                        version=here,
                        first=f"{first[0]}.{first[1]}",
                        stage=_(stages[first]),
                    ),
                    objects=tuple(objects),
                    evidence=source,
                )
            )
        elif on_since and version < _minor(str(on_since)):
            findings.append(
                Finding(
                    WARNING,
                    "dra-feature-off-by-default",
                    _(
                        "%(feature)s is in use, but in Kubernetes %(version)s it is %(stage)s "
                        "and off by default (on from %(since)s): the feature gate must be on "
                        "in the API server, the scheduler and every kubelet that serves it",
                        feature=name,
                        version=here,
                        stage=_(stages.get(version, "not verified")),
                        since=str(on_since),
                    ),
                    objects=tuple(objects),
                    evidence=source,
                )
            )
    return findings


STAGE_WORDS = (_("alpha"), _("beta"), _("GA"), _("not verified"))
