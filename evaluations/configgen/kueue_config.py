"""Kueue's manager Configuration, so that pods asking for CPU and memory are admitted.

Kueue admits a workload only when its ClusterQueue covers every resource the workload requests,
except resources whose names start with one of `resources.excludeResourcePrefixes` in Kueue's
Configuration ("resource cpu unavailable in ClusterQueue" otherwise: pkg/scheduler/
flavorassigner at v0.19.2; `ExcludeResourcePrefixes` exists from v0.9 in config v1beta1 and in
v1beta2). EcoMap's ClusterQueues cover the GPU resources it governs only, so the generated
`kueue/values.yaml` excludes CPU, memory, ephemeral storage and huge pages: those stay with the
namespaces' ResourceQuotas and the scheduler.

The chart installs its Configuration from `managerConfig.controllerManagerConfigYaml`, one string
that a values file replaces whole, so the generated one is the chart's default for the release
the decision targets (catalog/data/facts/kueue-chart-config.yaml, refreshed from the chart at each
tag by scripts/refresh-kueue-chart-config) plus `resources`. For a release those facts do not
hold, no values file is written and install.sh says what to add by hand.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

import yaml

from catalog.engine.gpus import GPUS_PATH
from catalog.engine.text import _
from evaluations.configgen.capacity_of import UNKNOWN_CAPACITY
from evaluations.configgen.generate_dra import pool_classes
from evaluations.configgen.model import (
    ConfigRefused,
    DecisionFacts,
    Document,
    GeneratedFile,
    Pool,
    RowFacts,
    release_default,
)

CHART_CONFIG_PATH = GPUS_PATH.parent / "kueue-chart-config.yaml"
# Kueue counts devices a ResourceClaimTemplate asks for against quota through the
# Configuration's resources.deviceClassMappings, on by default from 0.18 (site/content/en/docs/
# tasks/manage/setup_dra.md at v0.19.2, "Set up the ResourceClaimTemplate path").
DRA_SINCE = (0, 18)
DRA_PREFIX = "dra.ecomap.io/"
VALUES_PATH = "kueue/values.yaml"
# What every pod may ask besides the GPUs EcoMap's queues govern.
EXCLUDED_PREFIXES = ("cpu", "memory", "ephemeral-storage", "hugepages-")


def chart_config(release: str) -> dict[str, Any] | None:
    """The Configuration Kueue's chart installs by default at `release` ("0.19.2", a leading v
    ignored), a copy; None for a release the facts do not hold."""
    return release_default(CHART_CONFIG_PATH, release)[1]


def cluster_queues(files: Sequence[GeneratedFile]) -> list[dict[str, Any]]:
    """The generated Kueue ClusterQueues, as written."""
    return [
        doc.data
        for file in files
        if file.kind == "kueue"
        for doc in file.documents
        if doc.data.get("kind") == "ClusterQueue"
    ]


def _release(version: str) -> tuple[int, ...]:
    return tuple(int(part) for part in re.findall(r"\d+", version)[:3])


def dra_quota(facts: DecisionFacts, pool: Pool) -> dict[str, tuple[int, str, str]]:
    """The logical resources Kueue's quota counts the pool's DRA devices under: name ->
    (capacity, why, DeviceClass). One device per GPU where the class is the driver's whole-device
    class; otherwise the count is not known (0, said). ConfigRefused for a Kueue before 0.18."""
    found = {}
    for row, device_class, _installed in pool_classes(facts, pool):
        kueue = kueue_row(facts)
        if kueue is not None and _release(kueue.version) < DRA_SINCE:
            raise ConfigRefused(
                _(
                    "Kueue %(version)s does not count DRA devices against quota by default "
                    "(deviceClassMappings from 0.18): decide Kueue 0.18 or later for pool "
                    "%(pool)s, whose devices are claimed through DRA",
                    version=kueue.version,
                    pool=pool.name,
                )
            )
        name = DRA_PREFIX + re.sub(r"[^a-z0-9-]", "-", device_class.lower())[:63].strip("-")
        if device_class in row.dra_drivers and "whole_gpu" in row.units:
            found[name] = (
                pool.size.gpus,
                f"{pool.cites_gpus()}; {row.cites()} publishes each GPU as one {device_class} "
                "device",
                device_class,
            )
        else:
            found[name] = (0, UNKNOWN_CAPACITY, device_class)
    return found


def kueue_row(facts: DecisionFacts) -> RowFacts | None:
    return next((row for row in facts.rows if row.project == "kueue"), None)


def manual_step(release: str) -> str:
    """What install.sh says when no values file could be written for `release`."""
    return (
        f"Kueue {release}: EcoMap holds no chart default Configuration for this release, so no "
        "kueue/values.yaml was written. Add resources.excludeResourcePrefixes: "
        f"[{', '.join(EXCLUDED_PREFIXES)}] to Kueue's Configuration (ConfigMap "
        "kueue-manager-config) and restart kueue-controller-manager, or pods that ask for CPU or "
        "memory are never admitted"
    )


def kueue_values_file(
    facts: DecisionFacts, header: list[str], pools: list[Pool] = ()
) -> GeneratedFile | None:
    """kueue/values.yaml for the decided Kueue release; None when the facts lack its default."""
    row = kueue_row(facts)
    if row is None:
        return None
    config = chart_config(row.version)
    if config is None:
        return None
    resources = config.setdefault("resources", {})
    excluded = list(resources.get("excludeResourcePrefixes") or [])
    resources["excludeResourcePrefixes"] = excluded + [
        prefix for prefix in EXCLUDED_PREFIXES if prefix not in excluded
    ]
    mappings: dict[str, list[str]] = {}
    for pool in pools:
        for name, (_count, _why, device_class) in dra_quota(facts, pool).items():
            mappings.setdefault(name, [])
            if device_class not in mappings[name]:
                mappings[name].append(device_class)
    if mappings:
        resources["deviceClassMappings"] = [
            {"name": name, "deviceClassNames": classes} for name, classes in mappings.items()
        ]
    source = release_default(CHART_CONFIG_PATH, row.version)[0]
    text = yaml.safe_dump(config, sort_keys=False, default_flow_style=False)
    doc = Document({"managerConfig": {"controllerManagerConfigYaml": text}})
    doc.note(
        "managerConfig.controllerManagerConfigYaml",
        "the chart's default Configuration + resources.excludeResourcePrefixes",
        f"{row.cites()}: the default of {source}; "
        "the ClusterQueues cover GPU resources only, so CPU, memory, ephemeral storage and huge "
        "pages are left out of Kueue's quota check",
    )
    return GeneratedFile(
        VALUES_PATH,
        "kueue-values",
        [doc],
        [*header, "helm upgrade --install with -f kueue/values.yaml (install.sh)"],
    )


def admits_cpu_and_memory(files: list[GeneratedFile]) -> list[str]:
    """Each plain resource (cpu, memory) a pod asks that a generated ClusterQueue neither covers
    nor the generated Kueue Configuration excludes: such a pod is never admitted."""
    queues = cluster_queues(files)
    if not queues:
        return []
    excluded: list[str] = []
    for file in files:
        if file.kind == "kueue-values":
            text = file.documents[0].data["managerConfig"]["controllerManagerConfigYaml"]
            config = yaml.safe_load(text) or {}
            excluded = list((config.get("resources") or {}).get("excludeResourcePrefixes") or [])
    problems = []
    for queue in queues:
        covered = {
            name
            for group in queue.get("spec", {}).get("resourceGroups", [])
            for name in group.get("coveredResources", [])
        }
        for resource in ("cpu", "memory"):
            if resource in covered or any(resource.startswith(p) for p in excluded):
                continue
            problems.append(
                f"ClusterQueue {queue['metadata']['name']} does not cover {resource} and Kueue's "
                f"Configuration does not exclude it: a pod asking for {resource} is never "
                "admitted"
            )
    return problems
