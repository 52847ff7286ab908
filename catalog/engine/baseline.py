"""The Kubernetes baseline: interfaces every conformant cluster offers without extra components.

A placement row's `requires` may name these; a stack check treats them as always satisfied. They
bind (show as a link in the matrix) only when offered by the catalog project that stands for
Kubernetes' own implementation of them: the `kubernetes-dra` rows compose with the DRA drivers
and the claim consumers they serve; a device plugin that merely implements the kubelet API binds
nothing.

Kubernetes feature gates are baseline interfaces too, `api:kubernetes/feature/<Gate>`: a row that
cannot work without a gate requires one. Without a Kubernetes version every gate counts as
offered (as before versions were known); at a stated version only the gates on by default there
are (`baseline_offers`).
"""

from __future__ import annotations

from fnmatch import fnmatchcase

from catalog.engine.kubernetes import Minor, available, features
from catalog.engine.rows import Row

FEATURE_PREFIX = "api:kubernetes/feature/"


def feature_interface(gate: str) -> str:
    """The interface a row requires when it needs Kubernetes feature gate `gate` on."""
    return f"{FEATURE_PREFIX}{gate}"


_FEATURE_INTERFACES: frozenset[str] = frozenset(feature_interface(name) for name in features())

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
    # Kubernetes feature gates (catalog/data/facts/kubernetes-features.yaml)
    | _FEATURE_INTERFACES
)

# Baseline interfaces (by prefix) and the catalog project whose rows define them.
BASELINE_DEFINED_BY: dict[str, str] = {
    "api:resource.k8s.io/": "kubernetes-dra",
    "api:kubelet/dra-plugin/": "kubernetes-dra",
}


def binds(interface: str, provider_project: str) -> bool:
    """Whether `interface`, offered by a row of `provider_project`, can link two rows."""
    if interface not in KUBERNETES_BASELINE:
        return True
    return any(
        interface.startswith(prefix) and provider_project == project
        for prefix, project in BASELINE_DEFINED_BY.items()
    )


def baseline_offers(pattern: str, kubernetes_version: str | Minor | None = None) -> bool:
    """Whether Kubernetes itself satisfies `pattern`; at a stated version a feature-gate
    interface counts only when the gate is on by default there."""
    for ident in KUBERNETES_BASELINE:
        if not fnmatchcase(ident, pattern):
            continue
        if kubernetes_version is None or not ident.startswith(FEATURE_PREFIX):
            return True
        if available(ident.removeprefix(FEATURE_PREFIX), kubernetes_version):
            return True
    return False


def runs_on(row: Row, version: str | None) -> bool:
    """Whether `row` needs no Kubernetes feature the cluster's release keeps off (DRA on 1.31).
    A recommender screens presenters with it by their own requirements: a stack of one that
    does not run fails the stack check anyway, so it never takes a search slot's place."""
    if version is None:
        return True
    return all(
        baseline_offers(pattern, version)
        for pattern in row.requires
        if pattern.startswith(FEATURE_PREFIX)
    )
