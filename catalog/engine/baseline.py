"""The Kubernetes baseline: interfaces every conformant cluster offers without extra components.

A placement row's `requires` may name these; a stack check treats them as always satisfied, and
the matrix never shows them as a link, because no row in the catalog has to bring them.
"""

from __future__ import annotations

KUBERNETES_BASELINE: frozenset[str] = frozenset(
    {
        # kubelet plugin APIs that device plugins and DRA drivers register against
        "api:kubelet/device-plugin/v1beta1",
        "api:kubelet/pod-resources/v1",
        "api:kubelet/dra-plugin/v1",
        # scheduler extension points
        "api:kube-scheduler/extender/v1",
        "api:kube-scheduler/framework",
        # admission webhooks
        "api:admissionregistration.k8s.io/v1/MutatingWebhookConfiguration",
        "api:admissionregistration.k8s.io/v1/ValidatingWebhookConfiguration",
        # Dynamic Resource Allocation (GA in Kubernetes 1.34)
        "api:resource.k8s.io/v1/ResourceClaim",
        "api:resource.k8s.io/v1/ResourceClaimTemplate",
        "api:resource.k8s.io/v1/DeviceClass",
        "api:resource.k8s.io/v1/ResourceSlice",
        # core workload and scheduling objects
        "api:batch/v1/Job",
        "api:apps/v1/Deployment",
        "api:apps/v1/StatefulSet",
        "api:scheduling.k8s.io/v1/PriorityClass",
        "api:v1/ResourceQuota",
        "api:v1/Node",
        "api:v1/Pod",
        # container runtime device injection
        "api:cdi/container-device-interface",
        # the default scheduler and node resources
        "capability:default-scheduler",
        "resource:cpu",
        "resource:memory",
    }
)
