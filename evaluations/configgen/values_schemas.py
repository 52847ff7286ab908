"""Schemas of the Helm values EcoMap writes (the keys it sets, closed) and of the workload
examples (examples.py): checked with the rest of the files by schemas.check_file."""

from __future__ import annotations

from evaluations.configgen.schema_parts import (
    LABELS,
    NAME,
    QUANTITY,
    RESOURCE_NAME,
    TOLERATIONS,
    _closed,
)

HAMI_VALUES = _closed(
    {
        "scheduler": _closed(
            {
                "defaultSchedulerPolicy": _closed(
                    {
                        "nodeSchedulerPolicy": {"enum": ["binpack", "spread"]},
                        "gpuSchedulerPolicy": {"enum": ["binpack", "spread", "topology-aware"]},
                    }
                )
            }
        ),
        "devicePlugin": _closed(
            {
                "deviceSplitCount": {"type": "integer", "minimum": 1},
                "deviceMemoryScaling": {"type": "number", "exclusiveMinimum": 0},
                "deviceCoreScaling": {"type": "number", "exclusiveMinimum": 0},
                "tolerations": TOLERATIONS,
            },
            ["deviceSplitCount", "deviceMemoryScaling", "deviceCoreScaling"],
        ),
    }
)
KUEUE_VALUES = _closed(
    {
        "managerConfig": _closed(
            {"controllerManagerConfigYaml": {"type": "string", "minLength": 1}},
            ["controllerManagerConfigYaml"],
        )
    },
    ["managerConfig"],
)
VOLCANO_VALUES = _closed(
    {
        "custom": _closed(
            {"scheduler_config_override": {"type": "string", "minLength": 1}},
            ["scheduler_config_override"],
        )
    }
)
NVIDIA_DEVICE_PLUGIN_VALUES = _closed({"tolerations": TOLERATIONS}, ["tolerations"])
CONFIG_REF = _closed({"name": NAME, "default": NAME})
GPU_OPERATOR_VALUES = _closed(
    {
        "devicePlugin": _closed(
            {"enabled": {"type": "boolean"}, "config": CONFIG_REF}, ["enabled"]
        ),
        "mig": _closed({"strategy": {"enum": ["single", "mixed"]}}),
        "migManager": _closed({"enabled": {"type": "boolean"}, "config": CONFIG_REF}),
        "daemonsets": _closed({"tolerations": TOLERATIONS}),
        "node-feature-discovery": _closed({"worker": _closed({"tolerations": TOLERATIONS})}),
    },
    ["devicePlugin"],
)
_MATCH_EXPRESSION = _closed(
    {
        "key": {"type": "string", "minLength": 1},
        "operator": {"enum": ["In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt"]},
        "values": {"type": "array", "items": {"type": "string"}},
    },
    ["key", "operator"],
)
NODE_AFFINITY = _closed(
    {
        "nodeAffinity": _closed(
            {
                "requiredDuringSchedulingIgnoredDuringExecution": _closed(
                    {
                        "nodeSelectorTerms": {
                            "type": "array",
                            "minItems": 1,
                            "items": _closed(
                                {
                                    "matchExpressions": {
                                        "type": "array",
                                        "minItems": 1,
                                        "items": _MATCH_EXPRESSION,
                                    }
                                },
                                ["matchExpressions"],
                            ),
                        }
                    },
                    ["nodeSelectorTerms"],
                )
            }
        )
    }
)
# The DRA Driver for NVIDIA GPUs chart (dra_values.py).
DRA_DRIVER_VALUES = _closed(
    {
        "resources": _closed(
            {
                "gpus": _closed({"enabled": {"type": "boolean"}}, ["enabled"]),
                "computeDomains": _closed({"enabled": {"type": "boolean"}}, ["enabled"]),
            },
            ["gpus", "computeDomains"],
        ),
        "gpuResourcesEnabledOverride": {"type": "boolean"},
        "nvidiaDriverRoot": {"type": "string", "pattern": "^/"},
        "featureGates": _closed({"DynamicMIG": {"type": "boolean"}}),
        "kubeletPlugin": _closed({"affinity": NODE_AFFINITY, "tolerations": TOLERATIONS}),
    },
    ["resources"],
)
AMD_GPU_OPERATOR_VALUES = _closed(
    {"crds": _closed({"defaultCR": _closed({"install": {"type": "boolean"}})})}
)
_EXAMPLE_CONTAINER = _closed(
    {
        "name": NAME,
        "image": {"type": "string", "minLength": 1},
        "resources": _closed(
            {
                "requests": {"type": "object"},
                "limits": {"type": "object", "propertyNames": {"pattern": RESOURCE_NAME}},
                "claims": {"type": "array", "items": _closed({"name": NAME})},
            },
            ["requests"],
        ),
    },
    ["name", "image", "resources"],
)
_EXAMPLE_POD = _closed(
    {
        "nodeSelector": LABELS,
        "tolerations": TOLERATIONS,
        "resourceClaims": {
            "type": "array",
            "items": _closed({"name": NAME, "resourceClaimTemplateName": NAME}),
        },
        "schedulerName": NAME,
        "restartPolicy": {"enum": ["Never", "OnFailure"]},
        "containers": {"type": "array", "minItems": 1, "items": _EXAMPLE_CONTAINER},
    },
    ["nodeSelector", "containers"],
)
_EXAMPLE_TEMPLATE = _closed(
    {
        "metadata": _closed({"labels": LABELS, "annotations": {"type": "object"}}, ["labels"]),
        "spec": _EXAMPLE_POD,
    }
)
_EXAMPLE_METADATA = _closed({"name": NAME, "namespace": NAME, "labels": LABELS})
WORKLOAD_EXAMPLE = {
    "oneOf": [
        _closed(
            {
                "apiVersion": {"const": "resource.nvidia.com/v1beta1"},
                "kind": {"const": "ComputeDomain"},
                "metadata": _closed({"name": NAME, "namespace": NAME}),
                "spec": _closed(
                    {
                        "numNodes": QUANTITY,
                        "channel": _closed({"resourceClaimTemplate": _closed({"name": NAME})}),
                    }
                ),
            }
        ),
        _closed(
            {
                "apiVersion": {"const": "batch/v1"},
                "kind": {"const": "Job"},
                "metadata": _EXAMPLE_METADATA,
                "spec": _closed({"backoffLimit": QUANTITY, "template": _EXAMPLE_TEMPLATE}),
            }
        ),
        _closed(
            {
                "apiVersion": {"const": "apps/v1"},
                "kind": {"const": "Deployment"},
                "metadata": _EXAMPLE_METADATA,
                "spec": _closed(
                    {
                        "replicas": QUANTITY,
                        "selector": _closed({"matchLabels": LABELS}),
                        "template": _EXAMPLE_TEMPLATE,
                    }
                ),
            }
        ),
    ]
}
