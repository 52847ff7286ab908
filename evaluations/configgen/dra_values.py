"""The Helm values of the DRA Driver for NVIDIA GPUs (chart dra-driver-nvidia-gpu v0.4.1, installed
from oci://registry.k8s.io/dra-driver-nvidia/charts as its docs/install.md says), so install.sh
installs the driver the decision names instead of leaving it to a comment.

What the file sets, each from the chart at v0.4.1
(https://github.com/kubernetes-sigs/dra-driver-nvidia-gpu/blob/v0.4.1/deployments/helm/dra-driver-nvidia-gpu/):

- `resources.gpus.enabled` / `resources.computeDomains.enabled` (values.yaml L77-L81, both on by
  default): the GPU kubelet plugin only when a GPU-allocating row is decided, ComputeDomains only
  when the compute-domain row is;
- `gpuResourcesEnabledOverride: true` with the GPU plugin: the chart refuses to install it
  otherwise (templates/validation.yaml L33-L43), because it must not share nodes with the NVIDIA
  device plugin; EcoMap keeps the device plugin off those nodes (generate._operator_plugin_off)
  and the plugin's affinity below keeps the driver on its own pools;
- `nvidiaDriverRoot: /run/nvidia/driver` when the GPU Operator's driver container installs the
  driver (docs/install.md L127; the chart's default `/` is a host-installed driver);
- `featureGates.DynamicMIG: true` for the dynamic-MIG row (alpha, off by default:
  pkg/featuregates/featuregates.go L64, L116);
- `kubeletPlugin.affinity`: the chart's own node affinity (values.yaml L288-L321: NFD's NVIDIA PCI
  labels or the operator's nvidia.com/gpu.present), each term narrowed to the pools that use the
  driver when other pools do not, so the plugin never advertises GPUs a device plugin hands out;
- `kubeletPlugin.tolerations` for the pools' taint (agents.py, chart default kept).
"""

from __future__ import annotations

import copy
from typing import Any

from evaluations.configgen.model import POOL_LABEL, DecisionFacts, Document, GeneratedFile, Pool

PROJECT = "nvidia-dra-driver-gpu"
VALUES_PATH = "dra-driver-nvidia-gpu/values.yaml"
VALUES_KIND = "dra-driver-nvidia-gpu-values"
COMPUTE_DOMAIN_ROW = f"{PROJECT}/compute-domain"
DYNAMIC_MIG_ROW = f"{PROJECT}/dynamic-mig"
OPERATOR_DRIVER_ROOT = "/run/nvidia/driver"
_CHART = "chart dra-driver-nvidia-gpu v0.4.1"

# The chart's default kubelet-plugin node affinity terms (values.yaml L288-L321), any one of which
# places the plugin on a node.
_DEFAULT_TERMS: tuple[tuple[str, str], ...] = (
    ("feature.node.kubernetes.io/pci-10de.present", "true"),
    ("feature.node.kubernetes.io/pci-0302_10de.present", "true"),
    ("feature.node.kubernetes.io/pci-0300_10de.present", "true"),
    ("feature.node.kubernetes.io/cpu-model.vendor_id", "NVIDIA"),
    ("nvidia.com/gpu.present", "true"),
)


def driver_pools(pools: list[Pool]) -> list[Pool]:
    """The pools where a row of the DRA driver runs on the nodes."""
    return [pool for pool in pools if pool.serves(PROJECT)]


def dra_driver_values_file(
    facts: DecisionFacts, pools: list[Pool], header: list[str]
) -> GeneratedFile | None:
    """The driver chart's values for the decision; None when the decision installs no driver
    chart (the project is not decided, or its row names no chart)."""
    rows = [row for row in facts.rows if row.project == PROJECT]
    if not rows or all(row.chart is None for row in rows):
        return None
    doc = Document({})
    gpus = any(row.ref != COMPUTE_DOMAIN_ROW for row in rows)
    domains = any(row.ref == COMPUTE_DOMAIN_ROW for row in rows)
    decided = ", ".join(row.ref for row in rows)
    doc.data["resources"] = {
        "gpus": {
            "enabled": doc.note(
                "resources.gpus.enabled",
                gpus,
                f"decided: {decided}; "
                + ("GPUs are handed out by claim" if gpus else "only ComputeDomains are decided"),
            )
        },
        "computeDomains": {
            "enabled": doc.note(
                "resources.computeDomains.enabled",
                domains,
                "the compute-domain row is decided"
                if domains
                else "no ComputeDomain is decided (no IMEX daemons or controller)",
            )
        },
    }
    if gpus:
        doc.data["gpuResourcesEnabledOverride"] = doc.note(
            "gpuResourcesEnabledOverride",
            True,
            f"{_CHART} refuses the GPU plugin without it (templates/validation.yaml L33-L43); "
            "the NVIDIA device plugin is kept off the driver's pools",
        )
    if "nvidia-gpu-operator" in facts.projects():
        doc.data["nvidiaDriverRoot"] = doc.note(
            "nvidiaDriverRoot",
            OPERATOR_DRIVER_ROOT,
            "the GPU Operator's driver container installs the driver there (docs/install.md "
            "L127); set / if the nodes carry a host-installed driver instead",
        )
    if any(row.ref == DYNAMIC_MIG_ROW for row in rows):
        doc.data["featureGates"] = {
            "DynamicMIG": doc.note(
                "featureGates.DynamicMIG",
                True,
                f"{DYNAMIC_MIG_ROW} is decided; the gate is alpha and off by default "
                "(pkg/featuregates/featuregates.go L116)",
            )
        }
    served = driver_pools(pools)
    if served and len(served) < len(pools):
        names = [pool.name for pool in served]
        doc.data["kubeletPlugin"] = {"affinity": _affinity(names)}
        doc.note(
            "kubeletPlugin.affinity",
            f"{POOL_LABEL} In {names}",
            "the chart's node affinity (values.yaml L288-L321), each term narrowed to the pools "
            "that use the driver: the other pools' GPUs belong to their device plugin",
        )
    return GeneratedFile(
        VALUES_PATH,
        VALUES_KIND,
        [doc],
        [
            *header,
            f"DRA Driver for NVIDIA GPUs ({_CHART}): helm upgrade --install with -f "
            f"{VALUES_PATH} (install.sh)",
        ],
    )


def _affinity(pools: list[str]) -> dict[str, Any]:
    narrowed = {"key": POOL_LABEL, "operator": "In", "values": list(pools)}
    terms = [
        {
            "matchExpressions": [
                {"key": key, "operator": "In", "values": [value]},
                copy.deepcopy(narrowed),
            ]
        }
        for key, value in _DEFAULT_TERMS
    ]
    return {
        "nodeAffinity": {
            "requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": terms}
        }
    }
