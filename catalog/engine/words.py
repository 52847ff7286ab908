"""How the engines name vocabulary keys in sentences, translatable after the fact (see text.py)."""

from __future__ import annotations

from collections.abc import Iterable
from functools import lru_cache

from catalog.engine.text import Text, _, joined

LAYER_WORDS: dict[str, Text] = {
    "data_plane": _("data plane"),
    "control_plane": _("control plane"),
    "platform": _("platform"),
}
UNIT_WORDS: dict[str, Text] = {
    "whole_gpu": _("whole GPU"),
    "mig_slice": _("MIG slice"),
    "amd_partition": _("AMD partition"),
    "vgpu": _("vGPU"),
    "time_slice": _("time slice"),
    "mps_share": _("MPS share"),
    "memory_compute_quota": _("memory + compute quota"),
    "dra_claim": _("DRA claim"),
    "none": _("no unit"),
}
FUNCTION_WORDS: dict[str, Text] = {
    "present": _("resource presentation"),
    "partition": _("partitioning"),
    "isolate": _("isolation"),
    "observe": _("observability"),
    "label": _("node labelling"),
    "runtime": _("container runtime"),
    "quota": _("quota"),
    "fair_sharing": _("fair sharing"),
    "preemption": _("preemption"),
    "gang": _("gang scheduling"),
    "device_placement": _("device placement"),
    "allocation": _("claim allocation"),
    "lifecycle_operator": _("lifecycle operation"),
    "workload_operator": _("workload operation"),
    "serving": _("model serving"),
    "cost": _("cost metering"),
    "self_service": _("self-service"),
    "virtualization": _("virtual machines"),
}


def word(table: dict[str, Text], key: str) -> str:
    """A vocabulary key in words; a key an admin added later is said as it is."""
    return table.get(key, key)


def words(table: dict[str, Text], keys: Iterable[str]) -> Text:
    """Several keys in words, in a stable order, joined by commas."""
    return joined(", ", [word(table, key) for key in sorted(keys)])


# The matrix explains many pairs with the same few unit and function sets: say each set once.
@lru_cache(maxsize=4096)
def _said(kind: str, keys: tuple[str, ...]) -> Text:
    table = UNIT_WORDS if kind == "unit" else FUNCTION_WORDS
    return joined(", ", [word(table, key) for key in keys])


def unit_words(keys: Iterable[str]) -> Text:
    return _said("unit", tuple(sorted(keys)))


def function_words(keys: Iterable[str]) -> Text:
    return _said("function", tuple(sorted(keys)))
