"""The parts every schema of the generated files is built from: Kubernetes names, labels,
taints and tolerations, resource names, and closed objects (schemas.py)."""

from __future__ import annotations

from typing import Any

DNS_LABEL = r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$"
# A label key: optional DNS-subdomain prefix, then a name of at most 63 characters.
LABEL_KEY = (
    r"^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?"
    r"[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$"
)
LABEL_VALUE = r"^(([A-Za-z0-9][-A-Za-z0-9_.]{0,61})?[A-Za-z0-9])?$"
RESOURCE_NAME = r"^[a-z0-9]([-a-z0-9.]*[a-z0-9])?/[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$"

NAME = {"type": "string", "pattern": DNS_LABEL, "maxLength": 63}
LABELS = {
    "type": "object",
    "propertyNames": {"pattern": LABEL_KEY},
    "additionalProperties": {"type": "string", "pattern": LABEL_VALUE, "maxLength": 63},
}
TAINT = {
    "type": "object",
    "required": ["key", "effect"],
    "properties": {
        "key": {"type": "string", "pattern": LABEL_KEY},
        "operator": {"enum": ["Equal", "Exists"]},
        "value": {"type": "string", "pattern": LABEL_VALUE},
        "effect": {"enum": ["NoSchedule", "PreferNoSchedule", "NoExecute"]},
    },
    "additionalProperties": False,
}
# A toleration: key and effect may be left out (an empty key with Exists tolerates every taint,
# an empty effect every effect), as the Kubernetes Toleration type allows.
TOLERATION = {**TAINT, "required": ["operator"]}
TOLERATIONS = {"type": "array", "items": TOLERATION}
KUEUE_API = {"enum": ["kueue.x-k8s.io/v1beta1", "kueue.x-k8s.io/v1beta2"]}


def _closed(properties: dict[str, Any], required: list[str] | None = None) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": properties,
        "required": required if required is not None else list(properties),
        "additionalProperties": False,
    }


QUANTITY = {"type": "integer", "minimum": 0}
