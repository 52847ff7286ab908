"""Per-node agents on tainted pools: every chart that runs a DaemonSet on GPU nodes gets a
toleration for the pools' taint, so its pods still run there once install.sh taints the nodes.

A chart's tolerations value is a list, and a values file that sets it replaces the chart's
default, so the default entries are kept beside EcoMap's (each from the chart's values.yaml at
the release the catalog pins):

- GPU Operator v26.7.0 runs every operand (driver, toolkit, device plugin, GFD, DCGM exporter,
  MIG manager, validator) from `daemonsets.tolerations` and NFD's worker from
  `node-feature-discovery.worker.tolerations`:
  https://github.com/NVIDIA/gpu-operator/blob/v26.7.0/deployments/gpu-operator/values.yaml
  (L41-L48, L618-L637);
- HAMi v2.10.0's NVIDIA device plugin DaemonSet reads `devicePlugin.tolerations`, empty by
  default: https://github.com/Project-HAMi/HAMi/blob/v2.10.0/charts/hami/values.yaml (L421),
  templates/device-plugin/daemonsetnvidia.yaml (L260-L261);
- the NVIDIA device plugin chart v0.20.0 reads top-level `tolerations`:
  https://github.com/NVIDIA/k8s-device-plugin/blob/v0.20.0/deployments/helm/nvidia-device-plugin/
  values.yaml (L86-L93); its NFD dependency is off by default (gfd.enabled and nfd.enabled
  unset), so no worker runs;
- the DRA Driver for NVIDIA GPUs v0.4.1 runs its kubelet plugin from `kubeletPlugin.tolerations`:
  https://github.com/kubernetes-sigs/dra-driver-nvidia-gpu/blob/v0.4.1/deployments/helm/
  dra-driver-nvidia-gpu/values.yaml (L262-L265), values file dra_values.py.

The AMD GPU Operator's DeviceConfigs carry their own per-pool tolerations (generate_amd.py).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from evaluations.configgen.model import POOL_LABEL, DecisionFacts, Document, GeneratedFile

# Tolerates the taint of every pool (`ecomap.io/pool=<pool>:NoSchedule`, generate._node_file).
POOL_TOLERATION: dict[str, str] = {"key": POOL_LABEL, "operator": "Exists", "effect": "NoSchedule"}

_CONTROL_PLANE = {
    "key": "node-role.kubernetes.io/control-plane",
    "operator": "Equal",
    "value": "",
    "effect": "NoSchedule",
}
_GPU = {"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}

# Values kind -> (the path of each tolerations list of a per-node agent, its chart default).
AGENT_TOLERATIONS: Mapping[str, tuple[tuple[tuple[str, ...], tuple[dict[str, str], ...]], ...]] = {
    "gpu-operator-values": (
        (("daemonsets", "tolerations"), (_GPU,)),
        (("node-feature-discovery", "worker", "tolerations"), (_CONTROL_PLANE, _GPU)),
    ),
    "hami-values": ((("devicePlugin", "tolerations"), ()),),
    "dra-driver-nvidia-gpu-values": ((("kubeletPlugin", "tolerations"), (_GPU,)),),
    "nvidia-device-plugin-values": (
        (("tolerations",), ({"key": "CriticalAddonsOnly", "operator": "Exists"}, _GPU)),
    ),
}
DEVICE_PLUGIN_VALUES = "nvidia-device-plugin/values.yaml"


def tolerates(tolerations: Sequence[Mapping[str, Any]], taint: Mapping[str, Any]) -> bool:
    """Whether a pod with `tolerations` may run on a node with `taint`, as the kubelet and the
    scheduler match them (Kubernetes "Taints and Tolerations": an empty key with Exists matches
    every taint, Exists ignores the value, an empty effect matches every effect)."""
    for toleration in tolerations:
        effect = toleration.get("effect") or ""
        if effect and effect != taint.get("effect"):
            continue
        key = toleration.get("key") or ""
        operator = toleration.get("operator") or "Equal"
        if operator == "Exists" and (not key or key == taint.get("key")):
            return True
        same_value = (toleration.get("value") or "") == (taint.get("value") or "")
        if operator == "Equal" and key == taint.get("key") and same_value:
            return True
    return False


def _set(data: dict[str, Any], path: tuple[str, ...], value: Any) -> None:
    for part in path[:-1]:
        data = data.setdefault(part, {})
    data[path[-1]] = value


def tolerate_pool_taints(
    facts: DecisionFacts, files: list[GeneratedFile], header: list[str]
) -> list[GeneratedFile]:
    """Add the pools' toleration to every per-node agent's values in `files` (in place) and, for
    the NVIDIA device plugin's own chart, a values file of its own (returned)."""
    tainted = any(
        file.kind == "node-pool" and file.documents[0].data.get("taints") for file in files
    )
    if not tainted:
        return []
    added = []
    if "nvidia-gpu-operator" not in facts.projects() and any(
        row.project == "nvidia-device-plugin" and row.chart is not None for row in facts.rows
    ):
        added.append(
            GeneratedFile(
                DEVICE_PLUGIN_VALUES,
                "nvidia-device-plugin-values",
                [Document({})],
                [*header, "helm upgrade --install with -f nvidia-device-plugin/values.yaml"],
            )
        )
    for file in [*files, *added]:
        for path, default in AGENT_TOLERATIONS.get(file.kind, ()):
            doc = file.documents[0]
            tolerations = [dict(item) for item in default] + [dict(POOL_TOLERATION)]
            _set(doc.data, path, tolerations)
            doc.note(
                ".".join(path),
                f"{POOL_LABEL} Exists NoSchedule",
                "the pools' taint, so the agent runs on every pool's nodes"
                + ("; the chart's default entries kept" if default else ""),
            )
    return added


def untolerated(files: Sequence[GeneratedFile]) -> list[str]:
    """Each pool taint a per-node agent's values do not tolerate: its pods would never run on
    that pool's nodes, so nothing there is advertised, labelled or exported."""
    taints = [
        (file.documents[0].data.get("pool"), taint)
        for file in files
        if file.kind == "node-pool"
        for taint in file.documents[0].data.get("taints") or ()
    ]
    problems = []
    for file in files:
        for path, _default in AGENT_TOLERATIONS.get(file.kind, ()):
            found: Any = file.documents[0].data if file.documents else {}
            for part in path:
                found = found.get(part) if isinstance(found, dict) else None
            for pool, taint in taints:
                if not tolerates(found or [], taint):
                    problems.append(
                        f"{file.path}: {'.'.join(path)} does not tolerate pool {pool}'s taint "
                        f"{taint['key']}={taint.get('value', '')}:{taint['effect']}, so its "
                        "pods never run on that pool's nodes"
                    )
    return problems
