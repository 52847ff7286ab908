"""Volcano's scheduler configuration for the queues EcoMap writes: their `spec.deserved` is
what Volcano's capacity plugin lends and reclaims, which needs the `capacity` plugin in place of
`proportion` and the `reclaim` action (Volcano v1.15.1 docs/user-guide/
how_to_use_capacity_plugin.md, "add reclaim action", "add this field and remove proportion
plugin"). The chart's default has neither, so without this the deserved shares are never
reclaimed.

The chart reads the whole scheduler configuration from `custom.scheduler_config_override` when it
is set (installer/helm/chart/volcano/templates/scheduler.yaml#L18-L23 at v1.15.1), so the
generated `volcano/values.yaml` is the chart's default for the targeted release
(catalog/data/facts/volcano-scheduler-config.yaml) with exactly those two changes. For a release
those facts do not hold, no values file is written and install.sh says what to change by hand.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import yaml

from catalog.engine.gpus import GPUS_PATH
from evaluations.configgen.model import (
    DecisionFacts,
    Document,
    GeneratedFile,
    RowFacts,
    release_default,
)

FACTS_PATH = GPUS_PATH.parent / "volcano-scheduler-config.yaml"
# HAMi's device plugin for Volcano hands out vGPUs that Volcano's deviceshare plugin schedules
# only with VGPUEnable (volcano-vgpu-device-plugin v1.12.0 README.md#L107-L110).
VGPU_PROJECT = "volcano-vgpu-device-plugin"
DEVICESHARE = "deviceshare"
VGPU_ENABLE = "deviceshare.VGPUEnable"
VALUES_PATH = "volcano/values.yaml"
RECLAIM = "reclaim"
CAPACITY, PROPORTION = "capacity", "proportion"


def chart_default(release: str) -> dict[str, Any] | None:
    """The scheduler configuration Volcano's chart installs at `release`, a copy; None when the
    facts do not hold it."""
    return release_default(FACTS_PATH, release)[1]


def volcano_row(facts: DecisionFacts) -> RowFacts | None:
    return next((row for row in facts.rows if row.project == "volcano"), None)


def with_capacity_and_reclaim(config: dict[str, Any]) -> dict[str, Any]:
    """`config` with the reclaim action and the capacity plugin in place of proportion."""
    actions = [a.strip() for a in str(config.get("actions", "")).split(",") if a.strip()]
    if RECLAIM not in actions:
        actions.append(RECLAIM)
    config["actions"] = ", ".join(actions)
    plugins = [p for tier in config.get("tiers", []) for p in tier.get("plugins", [])]
    if not any(p.get("name") == CAPACITY for p in plugins):
        for tier in config.get("tiers", []):
            for plugin in tier.get("plugins", []):
                if plugin.get("name") == PROPORTION:
                    plugin.clear()
                    plugin["name"] = CAPACITY
        if not any(p.get("name") == CAPACITY for t in config["tiers"] for p in t["plugins"]):
            config["tiers"][-1]["plugins"].append({"name": CAPACITY})
    for tier in config.get("tiers", []):
        tier["plugins"] = [p for p in tier.get("plugins", []) if p.get("name") != PROPORTION]
    return config


def with_vgpu(config: dict[str, Any]) -> dict[str, Any]:
    """`config` with the deviceshare plugin scheduling vGPUs (after drf, as the README's
    example), or its VGPUEnable argument turned on where the plugin is already there."""
    for tier in config.get("tiers", []):
        for plugin in tier.get("plugins", []):
            if plugin.get("name") == DEVICESHARE:
                plugin.setdefault("arguments", {})[VGPU_ENABLE] = True
                return config
    tier = config["tiers"][-1]
    names = [p.get("name") for p in tier["plugins"]]
    at = names.index("drf") + 1 if "drf" in names else 0
    tier["plugins"].insert(at, {"name": DEVICESHARE, "arguments": {VGPU_ENABLE: True}})
    return config


def manual_step(release: str) -> str:
    return (
        f"Volcano {release}: EcoMap holds no chart default scheduler configuration for this "
        "release, so no volcano/values.yaml was written. In volcano-scheduler-configmap add the "
        "reclaim action and replace the proportion plugin with capacity (Volcano's capacity "
        "plugin guide), or the queues' spec.deserved is never reclaimed"
    )


def volcano_values_file(facts: DecisionFacts, header: list[str]) -> GeneratedFile | None:
    row = volcano_row(facts)
    if row is None:
        return None
    config = chart_default(row.version)
    if config is None:
        return None
    config = with_capacity_and_reclaim(config)
    vgpu = any(r.project == VGPU_PROJECT for r in facts.rows)
    if vgpu:
        config = with_vgpu(config)
    text = yaml.safe_dump(config, sort_keys=False)
    doc = Document({"custom": {"scheduler_config_override": text}})
    source = release_default(FACTS_PATH, row.version)[0]
    doc.note(
        "custom.scheduler_config_override",
        "the chart's default + reclaim action, capacity plugin in place of proportion",
        f"{row.cites()}: the default of {source}; the queues' spec.deserved is lent and "
        "reclaimed by the capacity plugin and the reclaim action"
        + ("; deviceshare schedules the decided vGPU device plugin's vGPUs" if vgpu else ""),
    )
    return GeneratedFile(
        VALUES_PATH,
        "volcano-values",
        [doc],
        [*header, "helm upgrade --install with -f volcano/values.yaml (install.sh)"],
    )


def schedules_vgpus(facts: DecisionFacts, files: Sequence[GeneratedFile]) -> list[str]:
    """With HAMi's device plugin for Volcano decided, Volcano's deviceshare plugin must have
    VGPUEnable on, or no pod asking for volcano.sh/vgpu-* is ever placed."""
    values = next((f for f in files if f.kind == "volcano-values"), None)
    if values is None or not any(r.project == VGPU_PROJECT for r in facts.rows):
        return []
    config = yaml.safe_load(values.documents[0].data["custom"]["scheduler_config_override"])
    enabled = any(
        p.get("name") == DEVICESHARE and (p.get("arguments") or {}).get(VGPU_ENABLE) is True
        for tier in config.get("tiers", [])
        for p in tier.get("plugins", [])
    )
    if enabled:
        return []
    return [
        "volcano/values.yaml: deviceshare.VGPUEnable is off, so pods asking for "
        "volcano.sh/vgpu-* are never placed"
    ]


def reclaims_deserved(files: Sequence[GeneratedFile]) -> list[str]:
    """When Volcano queues set spec.deserved, the generated scheduler configuration must run
    the capacity plugin and the reclaim action."""
    deserving = [
        doc
        for file in files
        if file.kind == "volcano"
        for doc in file.documents
        if (doc.data.get("spec") or {}).get("deserved")
    ]
    values = next((f for f in files if f.kind == "volcano-values"), None)
    if not deserving or values is None:
        return []
    config = yaml.safe_load(values.documents[0].data["custom"]["scheduler_config_override"])
    actions = [a.strip() for a in str(config.get("actions", "")).split(",")]
    plugins = {p.get("name") for t in config.get("tiers", []) for p in t.get("plugins", [])}
    problems = []
    if RECLAIM not in actions:
        problems.append(
            "volcano/values.yaml: no reclaim action, so spec.deserved is never reclaimed"
        )
    if CAPACITY not in plugins or PROPORTION in plugins:
        problems.append(
            "volcano/values.yaml: the capacity plugin must replace proportion for spec.deserved"
        )
    return problems
