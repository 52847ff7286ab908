"""Each generated document checked before it ships: it parses with PyYAML's safe loader, and it
validates against a JSON schema of the fields the generator sets, written from each project's
documented API at the decided version (Kueue v1beta1/v1beta2 ClusterQueue, ResourceFlavor and
LocalQueue; the NVIDIA device plugin's config file v1; mig-parted v1; the HAMi and GPU Operator
chart values). Not upstream CRDs: only what EcoMap writes, and closed where EcoMap owns it."""

from __future__ import annotations

import json
from typing import Any

import yaml
from jsonschema import Draft202012Validator

from evaluations.configgen.install import INSTALL_SCRIPT, check_install_script
from evaluations.configgen.model import SAFE_LOADER, GeneratedFile
from evaluations.configgen.schema_parts import (
    DNS_LABEL,
    KUEUE_API,
    LABEL_VALUE,
    LABELS,
    NAME,
    QUANTITY,
    RESOURCE_NAME,
    TAINT,
    TOLERATIONS,
    _closed,
)
from evaluations.configgen.values_schemas import (
    AMD_GPU_OPERATOR_VALUES,
    DRA_DRIVER_VALUES,
    GPU_OPERATOR_VALUES,
    HAMI_VALUES,
    KUEUE_VALUES,
    NVIDIA_DEVICE_PLUGIN_VALUES,
    VOLCANO_VALUES,
    WORKLOAD_EXAMPLE,
)

NODE_POOL = _closed(
    {
        "pool": NAME,
        "nodes": {"type": "integer", "minimum": 0},
        "labels": LABELS,
        "taints": {"type": "array", "items": TAINT},
        "mig_configs": {
            "type": "array",
            "items": _closed({"nodes": {"type": "integer", "minimum": 0}, "labels": LABELS}),
        },
    },
    ["pool", "nodes", "labels", "taints"],
)
SHARING_RESOURCES = _closed(
    {
        "resources": {
            "type": "array",
            "minItems": 1,
            "items": _closed(
                {
                    "name": {"type": "string", "pattern": RESOURCE_NAME},
                    "replicas": {"type": "integer", "minimum": 2},
                }
            ),
        }
    }
)
DEVICE_PLUGIN_CONFIG = _closed(
    {
        "version": {"const": "v1"},
        "flags": _closed({"migStrategy": {"enum": ["none", "single", "mixed"]}}),
        "sharing": {
            "type": "object",
            "properties": {"timeSlicing": SHARING_RESOURCES, "mps": SHARING_RESOURCES},
            "minProperties": 1,
            "maxProperties": 1,
            "additionalProperties": False,
        },
    },
    ["version", "flags"],
)
MIG_PARTED = _closed(
    {
        "version": {"const": "v1"},
        "mig-configs": {
            "type": "object",
            "propertyNames": {"pattern": DNS_LABEL},
            "additionalProperties": {
                "type": "array",
                "minItems": 1,
                "items": _closed(
                    {
                        "devices": {
                            "oneOf": [
                                {"const": "all"},
                                {"type": "array", "items": {"type": "integer", "minimum": 0}},
                            ]
                        },
                        "mig-enabled": {"type": "boolean"},
                        "mig-devices": {
                            "type": "object",
                            "propertyNames": {"pattern": r"^\d+g\.\d+gb(\+me)?$"},
                            "additionalProperties": {"type": "integer", "minimum": 1},
                        },
                    },
                    ["devices", "mig-enabled"],
                ),
            },
        },
    }
)
RESOURCE_FLAVOR = _closed(
    {
        "apiVersion": KUEUE_API,
        "kind": {"const": "ResourceFlavor"},
        "metadata": _closed({"name": NAME, "labels": LABELS}),
        "spec": _closed(
            {"nodeLabels": LABELS, "tolerations": {"type": "array", "items": TAINT}},
            ["nodeLabels"],
        ),
    }
)
FLAVOR_QUOTAS = _closed(
    {
        "name": NAME,
        "resources": {
            "type": "array",
            "minItems": 1,
            "maxItems": 64,
            "items": _closed(
                {"name": {"type": "string", "pattern": RESOURCE_NAME}, "nominalQuota": QUANTITY}
            ),
        },
    }
)
CLUSTER_QUEUE_SPEC = {
    "namespaceSelector": _closed({"matchLabels": LABELS}),
    "preemption": _closed(
        {
            "reclaimWithinCohort": {"enum": ["Never", "LowerPriority", "Any"]},
            "withinClusterQueue": {"enum": ["Never", "LowerPriority", "LowerOrNewerEqualPriority"]},
        }
    ),
    "resourceGroups": {
        "type": "array",
        "minItems": 1,
        "maxItems": 16,
        "items": _closed(
            {
                "coveredResources": {
                    "type": "array",
                    "minItems": 1,
                    "maxItems": 64,
                    "uniqueItems": True,
                    "items": {"type": "string", "pattern": RESOURCE_NAME},
                },
                "flavors": {"type": "array", "minItems": 1, "maxItems": 64, "items": FLAVOR_QUOTAS},
            }
        ),
    },
}
# v1beta1 names the cohort `cohort`; v1beta2 renamed it `cohortName`.
CLUSTER_QUEUE = {
    "oneOf": [
        _closed(
            {
                "apiVersion": {"const": f"kueue.x-k8s.io/{version}"},
                "kind": {"const": "ClusterQueue"},
                "metadata": _closed({"name": NAME, "labels": LABELS}),
                "spec": _closed({cohort: NAME, **CLUSTER_QUEUE_SPEC}, ["resourceGroups"]),
            }
        )
        for version, cohort in (("v1beta1", "cohort"), ("v1beta2", "cohortName"))
    ]
}
LOCAL_QUEUE = _closed(
    {
        "apiVersion": KUEUE_API,
        "kind": {"const": "LocalQueue"},
        "metadata": _closed({"name": NAME, "namespace": NAME, "labels": LABELS}),
        "spec": _closed({"clusterQueue": NAME}),
    }
)
KUEUE = {
    "ResourceFlavor": RESOURCE_FLAVOR,
    "ClusterQueue": CLUSTER_QUEUE,
    "LocalQueue": LOCAL_QUEUE,
}
# ---- Volcano, KAI Scheduler, DRA (generate_queues.py, generate_dra.py) --------------------------
# A resource name as a ResourceList key: a core name (cpu) or a prefixed extended resource.
RESOURCE_KEY = r"^([a-z0-9]([-a-z0-9.]*[a-z0-9])?/)?[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$"
RESOURCE_LIST = {
    "type": "object",
    "minProperties": 1,
    "propertyNames": {"pattern": RESOURCE_KEY, "maxLength": 253},
    "additionalProperties": QUANTITY,
}
# Volcano v1.15.1 Queue CRD (config/crd/volcano/bases/scheduling.volcano.sh_queues.yaml):
# cluster-scoped; weight 1..65535; guarantee.resource; parent at most 253 characters.
VOLCANO_QUEUE = _closed(
    {
        "apiVersion": {"const": "scheduling.volcano.sh/v1beta1"},
        "kind": {"const": "Queue"},
        "metadata": _closed({"name": NAME, "labels": LABELS}),
        "spec": _closed(
            {
                "weight": {"type": "integer", "minimum": 1, "maximum": 65535},
                "reclaimable": {"type": "boolean"},
                "capability": RESOURCE_LIST,
                "deserved": RESOURCE_LIST,
                "guarantee": _closed({"resource": RESOURCE_LIST}),
                "parent": NAME,
            },
            ["weight", "reclaimable", "deserved", "guarantee"],
        ),
    }
)
# KAI Scheduler v0.17.0 Queue (pkg/apis/scheduling/v2/queue_types.go, resources.go): quotas are
# float64, GPUs in GPUs (fractions allowed), -1 unlimited; cluster-scoped.
KAI_AMOUNT = {"type": "number", "minimum": -1}
KAI_RESOURCE = _closed(
    {"quota": KAI_AMOUNT, "overQuotaWeight": {"type": "number", "minimum": 0}, "limit": KAI_AMOUNT}
)
KAI_QUEUE = _closed(
    {
        "apiVersion": {"const": "scheduling.run.ai/v2"},
        "kind": {"const": "Queue"},
        "metadata": _closed({"name": NAME, "labels": LABELS}),
        "spec": _closed(
            {
                "parentQueue": NAME,
                "resources": _closed(
                    {"gpu": KAI_RESOURCE, "cpu": KAI_RESOURCE, "memory": KAI_RESOURCE}, ["gpu"]
                ),
            },
            ["resources"],
        ),
    }
)
# resource.k8s.io (k8s.io/api v0.32.0 v1beta1, v0.33.0 v1beta2, v0.34.0 v1): DeviceClass
# spec.selectors[].cel.expression (at most 10 KiB); a DeviceClass name is a DNS subdomain.
DNS_SUBDOMAIN = r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$"
CLASS_NAME = {"type": "string", "pattern": DNS_SUBDOMAIN, "maxLength": 253}
DRA_API = {"enum": ["resource.k8s.io/v1beta1", "resource.k8s.io/v1beta2", "resource.k8s.io/v1"]}
DEVICE_CLASS = _closed(
    {
        "apiVersion": DRA_API,
        "kind": {"const": "DeviceClass"},
        "metadata": _closed({"name": CLASS_NAME}),
        "spec": _closed(
            {
                "selectors": {
                    "type": "array",
                    "minItems": 1,
                    "maxItems": 32,
                    "items": _closed(
                        {"cel": _closed({"expression": {"type": "string", "maxLength": 10240}})}
                    ),
                }
            }
        ),
    }
)
EXACT_REQUEST = {
    "deviceClassName": CLASS_NAME,
    "allocationMode": {"enum": ["ExactCount", "All"]},
    "count": {"type": "integer", "minimum": 1},
}


def _claim_template(version: str, request: dict[str, Any]) -> dict[str, Any]:
    return _closed(
        {
            "apiVersion": {"const": f"resource.k8s.io/{version}"},
            "kind": {"const": "ResourceClaimTemplate"},
            "metadata": _closed({"name": NAME, "namespace": NAME}),
            "spec": _closed(
                {
                    "spec": _closed(
                        {
                            "devices": _closed(
                                {
                                    "requests": {
                                        "type": "array",
                                        "minItems": 1,
                                        "maxItems": 32,
                                        "items": request,
                                    }
                                }
                            )
                        }
                    )
                }
            ),
        }
    )


# v1beta1 names the class on the request; v1beta2 and v1 under `exactly` (ExactDeviceRequest).
RESOURCE_CLAIM_TEMPLATE = {
    "oneOf": [
        _claim_template(
            "v1beta1", _closed({"name": NAME, **EXACT_REQUEST}, ["name", "deviceClassName"])
        ),
        *(
            _claim_template(
                version,
                _closed(
                    {"name": NAME, "exactly": _closed(EXACT_REQUEST, ["deviceClassName"])},
                    ["name", "exactly"],
                ),
            )
            for version in ("v1beta2", "v1")
        ),
    ]
}
DRA = {
    "if": {"properties": {"kind": {"const": "DeviceClass"}}},
    "then": DEVICE_CLASS,
    "else": RESOURCE_CLAIM_TEMPLATE,
}
# AMD GPU Operator v1.5.1 (generate_amd.py cites the sources): the DCM ConfigMap, whose config.json
# is checked by DCM_CONFIG after parsing, and the DeviceConfig fields EcoMap sets.
NAMESPACED = _closed({"name": NAME, "namespace": NAME})
DCM_CONFIGMAP = _closed(
    {
        "apiVersion": {"const": "v1"},
        "kind": {"const": "ConfigMap"},
        "metadata": NAMESPACED,
        "data": _closed({"config.json": {"type": "string"}}),
    }
)
DCM_PROFILE = _closed(
    {
        "computePartition": {"enum": ["SPX", "CPX"]},
        "memoryPartition": {"enum": ["NPS1", "NPS4"]},
        "numGPUsAssigned": {"type": "integer", "minimum": 1},
    },
    ["computePartition", "memoryPartition"],
)
DCM_CONFIG = _closed(
    {
        "gpu-config-profiles": {
            "type": "object",
            "propertyNames": {"pattern": LABEL_VALUE, "minLength": 1, "maxLength": 63},
            "additionalProperties": _closed(
                {
                    "skippedGPUs": _closed(
                        {"ids": {"type": "array", "items": {"type": "integer", "minimum": 0}}}
                    ),
                    "profiles": {"type": "array", "minItems": 1, "items": DCM_PROFILE},
                },
                ["profiles"],
            ),
        }
    }
)
DEVICE_CONFIG = _closed(
    {
        "apiVersion": {"const": "amd.com/v1alpha1"},
        "kind": {"const": "DeviceConfig"},
        "metadata": NAMESPACED,
        "spec": _closed(
            {
                "selector": LABELS,
                "driver": _closed({"enable": {"type": "boolean"}}),
                "metricsExporter": _closed({"enable": {"type": "boolean"}}),
                "devicePlugin": _closed(
                    {
                        "enableDevicePlugin": {"type": "boolean"},
                        "devicePluginArguments": _closed(
                            {"resource_naming_strategy": {"enum": ["single", "mixed"]}}
                        ),
                        "devicePluginTolerations": TOLERATIONS,
                        "nodeLabellerTolerations": TOLERATIONS,
                    },
                    ["enableDevicePlugin", "devicePluginArguments"],
                ),
                "configManager": _closed(
                    {
                        "enable": {"type": "boolean"},
                        "config": _closed({"name": NAME}),
                        "configManagerTolerations": TOLERATIONS,
                    },
                    ["enable"],
                ),
            },
            ["selector", "driver", "devicePlugin", "configManager"],
        ),
    }
)
AMD_GPU_OPERATOR = {
    "if": {"properties": {"kind": {"const": "ConfigMap"}}},
    "then": DCM_CONFIGMAP,
    "else": DEVICE_CONFIG,
}
SCHEMAS: dict[str, dict[str, Any]] = {
    "node-pool": NODE_POOL,
    "device-plugin-config": DEVICE_PLUGIN_CONFIG,
    "mig-parted-config": MIG_PARTED,
    "hami-values": HAMI_VALUES,
    "gpu-operator-values": GPU_OPERATOR_VALUES,
    "nvidia-device-plugin-values": NVIDIA_DEVICE_PLUGIN_VALUES,
    "kueue-values": KUEUE_VALUES,
    "volcano-values": VOLCANO_VALUES,
    "dra-driver-nvidia-gpu-values": DRA_DRIVER_VALUES,
    "workload-example": WORKLOAD_EXAMPLE,
    "volcano": VOLCANO_QUEUE,
    "kai-scheduler": KAI_QUEUE,
    "dra": DRA,
    "amd-gpu-operator": AMD_GPU_OPERATOR,
    "amd-gpu-operator-values": AMD_GPU_OPERATOR_VALUES,
}


def _schema_of(kind: str, document: Any) -> dict[str, Any] | None:
    if kind == "kueue":
        return KUEUE.get(document.get("kind")) if isinstance(document, dict) else None
    return SCHEMAS.get(kind)


def _kueue_rules(document: dict[str, Any]) -> list[str]:
    """What Kueue's webhook also refuses: every flavor lists the covered resources, in order."""
    problems = []
    for group in document.get("spec", {}).get("resourceGroups", []):
        covered = group.get("coveredResources", [])
        for flavor in group.get("flavors", []):
            names = [resource.get("name") for resource in flavor.get("resources", [])]
            if names != covered:
                problems.append(
                    f"flavor {flavor.get('name')} lists {names}, not the covered {covered}"
                )
    return problems


def _volcano_rules(document: dict[str, Any]) -> list[str]:
    """What Volcano's queue webhook also refuses (validate_queue.go#L226-L290 at v1.15.1):
    guarantee <= deserved <= capability for every resource named in both."""
    spec = document.get("spec", {})
    capability, deserved = spec.get("capability", {}), spec.get("deserved", {})
    guarantee = spec.get("guarantee", {}).get("resource", {})
    problems = []
    for name, amount in guarantee.items():
        if amount > deserved.get(name, amount - 1):
            problems.append(f"guarantee of {name} ({amount}) exceeds deserved or is not deserved")
    for name, amount in deserved.items():
        if name in capability and amount > capability[name]:
            problems.append(f"deserved of {name} ({amount}) exceeds capability")
    return problems


def _dcm_rules(document: dict[str, Any]) -> list[str]:
    """The DCM ConfigMap's config.json parses as JSON, fits DCM_CONFIG, and uses NPS4 only with
    CPX (device-config-manager-configmap.md at v1.5.1, "Supported Partition Modes")."""
    try:
        config = json.loads(document.get("data", {}).get("config.json", ""))
    except ValueError as exc:
        return [f"config.json is not JSON: {exc}"]
    problems = [
        f"config.json: {'/'.join(map(str, e.absolute_path)) or '$'}: {e.message}"
        for e in Draft202012Validator(DCM_CONFIG).iter_errors(config)
    ]
    if problems:
        return problems
    for name, profile in config["gpu-config-profiles"].items():
        for entry in profile["profiles"]:
            if entry["memoryPartition"] == "NPS4" and entry["computePartition"] != "CPX":
                problems.append(f"config.json: profile {name}: NPS4 needs CPX")
    return problems


def check_file(file: GeneratedFile) -> list[str]:
    """The problems of one file: it does not parse, a document fits no schema, or breaks a rule;
    [] when it is fine."""
    if file.kind == INSTALL_SCRIPT:
        return check_install_script(file)
    try:
        documents = list(yaml.load_all(file.content, Loader=SAFE_LOADER))
    except yaml.YAMLError as exc:
        return [f"{file.path}: not YAML: {exc}"]
    if len(documents) != len(file.documents):
        return [f"{file.path}: {len(documents)} documents parsed, {len(file.documents)} written"]
    problems = []
    for number, (parsed, written) in enumerate(zip(documents, file.documents, strict=True)):
        where = f"{file.path} document {number + 1}"
        if parsed != written.data:
            problems.append(f"{where}: parses to something other than what was written")
        schema = _schema_of(file.kind, parsed)
        if schema is None:
            problems.append(f"{where}: no schema for kind {file.kind}")
            continue
        for error in Draft202012Validator(schema).iter_errors(parsed):
            path = "/".join(str(part) for part in error.absolute_path) or "$"
            problems.append(f"{where}: {path}: {error.message}")
        if file.kind == "kueue" and parsed.get("kind") == "ClusterQueue":
            problems.extend(f"{where}: {problem}" for problem in _kueue_rules(parsed))
        if file.kind == "amd-gpu-operator" and parsed.get("kind") == "ConfigMap":
            problems.extend(f"{where}: {problem}" for problem in _dcm_rules(parsed))
        if file.kind == "volcano" and isinstance(parsed, dict):
            problems.extend(f"{where}: {problem}" for problem in _volcano_rules(parsed))
    return problems


def check_files(files: list[GeneratedFile]) -> list[str]:
    return [problem for file in files for problem in check_file(file)]
