"""Functions: what question a placement row answers (METHOD step 3, "what the project can and
cannot solve"). Two rows are alternatives only when they do the same job; this module names the
jobs per layer and infers them for a bundle that does not list them."""

from __future__ import annotations

from collections.abc import Iterable

# The engine branches on these keys, so they are fixed here (names and descriptions are the
# admin-editable vocabulary table).
FUNCTION_LAYERS: dict[str, str] = {
    "present": "data_plane",
    "partition": "data_plane",
    "isolate": "data_plane",
    "observe": "data_plane",
    "label": "data_plane",
    "runtime": "data_plane",
    "quota": "control_plane",
    "fair_sharing": "control_plane",
    "preemption": "control_plane",
    "gang": "control_plane",
    "device_placement": "control_plane",
    "allocation": "control_plane",
    "lifecycle_operator": "platform",
    "workload_operator": "platform",
    "serving": "platform",
    "cost": "platform",
    "self_service": "platform",
    "virtualization": "platform",
}
FUNCTIONS: tuple[str, ...] = tuple(FUNCTION_LAYERS)

# Governance answers "who gets it, how much, may it enter"; a row that governs is compared on
# governance only, so its device placement never makes it a placement helper's alternative.
GOVERNANCE: frozenset[str] = frozenset({"quota", "fair_sharing", "preemption", "gang"})
DEVICE_PLACEMENT = "device_placement"

_CAPABILITY_FUNCTIONS = {
    "capability:quota": "quota",
    "capability:fair-sharing": "fair_sharing",
    "capability:preemption": "preemption",
    "capability:gang-scheduling": "gang",
}


def comparable_functions(layer: str, functions: frozenset[str]) -> frozenset[str]:
    """The functions a row is compared on: a control-plane row that governs drops
    device_placement (a placement helper is never an alternative to a batch scheduler)."""
    if layer == "control_plane" and functions & GOVERNANCE:
        return functions - {DEVICE_PLACEMENT}
    return functions


def infer_functions(
    *,
    layer: str,
    enforcement_points: Iterable[str],
    provides: Iterable[str],
    resource_units: Iterable[str] = (),
) -> list[str]:
    """A best guess for a row that lists no functions (shown as inferred, never as sourced)."""
    points, provided, units = set(enforcement_points), set(provides), set(resource_units)
    found: list[str] = []
    if layer == "data_plane":
        if any(p.startswith("resource:") for p in provided):
            found.append("present")
        if "runtime_interception" in points:
            found.append("isolate")
        if any(p.startswith("label:") for p in provided):
            found.append("label")
        if any(p.startswith("signal:") for p in provided) and not found:
            found.append("observe")
        return found or ["runtime"]
    if layer == "control_plane":
        found = [fn for cap, fn in _CAPABILITY_FUNCTIONS.items() if cap in provided]
        if "dra_claim" in units and not found and "scheduler" in points:
            found.append("allocation")
        if "scheduler" in points and not found:
            found.append(DEVICE_PLACEMENT)
        return found or ["quota"]
    if any(p.startswith("signal:") for p in provided) and not any(
        p.startswith(("crd:", "resource:")) for p in provided
    ):
        return ["cost"]
    operates_workloads = any(p.startswith("crd:") for p in provided)
    return ["workload_operator" if operates_workloads else "lifecycle_operator"]
