"""DRA from a decision: for every pool whose devices a decided DRA driver presents, one
ResourceClaimTemplate per tenant namespace asking one device of the driver's DeviceClass, and a
DeviceClass selecting the driver's devices only where the driver's chart installs none.

The resource.k8s.io version follows the Kubernetes release of step 1 (k8s.io/api at v0.N.0 is
Kubernetes 1.N): v1 from 1.34 (DRA GA), v1beta2 in 1.33, v1beta1 in 1.32; before 1.32 DRA with
structured parameters is not served in beta, and the decision is refused. v1beta1 puts
deviceClassName on the request; v1beta2 and v1 under `exactly` (ExactDeviceRequest).
https://github.com/kubernetes/api/blob/v0.32.0/resource/v1beta1/types.go#L398-L470
https://github.com/kubernetes/api/blob/v0.33.0/resource/v1beta2/types.go#L628-L660
https://github.com/kubernetes/api/blob/v0.34.0/resource/v1/types.go#L768-L830
catalog/data/facts/kubernetes-features.yaml (DynamicResourceAllocation: beta 1.32-1.33, GA 1.34)

Driver names come from the rows' `detect.dra_drivers`, DeviceClass names from the rows'
`deviceclass:` provides, which the catalog lists for the classes each driver's chart installs
(NVIDIA dra-driver-nvidia-gpu v0.4.1 templates/deviceclass-gpu.yaml and deviceclass-mig.yaml,
Intel gpu-v0.11.0 templates/device-class.yaml, AMD helm-charts-k8s/templates/deviceclass.yaml,
HAMi k8s-dra-driver v0.1.0 templates/deviceclass-hami-gpu.yaml): those are referenced, never
written again. Rows whose devices no GPU claim asks for are skipped: the NVIDIA ComputeDomain
controller writes its channel claim templates itself (ComputeDomain
spec.channel.resourceClaimTemplate.name, api/nvidia.com/resource/v1beta1/computedomain.go#L97 at
v0.4.1), and the kubernetes-dra rows name no driver.

Each decided driver release is looked up in catalog/data/facts/dra-drivers.yaml (catalog.engine.
dra_releases): when it documents a newer minimum Kubernetes than step 1's (NVIDIA v0.4.1: 1.34.2,
docs/prerequisites.md at v0.4.1), or step 1 gives the minor without the patch that minimum names,
the files' headers warn, naming the source and, where its chart's kubeVersion refuses that
release, that too. Only what no cluster of step 1's version can serve (no resource.k8s.io before
1.32) is refused.
"""

from __future__ import annotations

from catalog.engine.dra_releases import (
    BELOW,
    UNSURE,
    chart_refuses,
    driver_release,
    kubernetes_support,
)
from catalog.engine.kubernetes import format_minor, parse_version
from catalog.engine.text import _
from evaluations.configgen.dra_values import dra_driver_values_file
from evaluations.configgen.model import (
    POOL_LABEL,
    ConfigRefused,
    DecisionFacts,
    Document,
    GeneratedFile,
    Pool,
    RowFacts,
)
from evaluations.configgen.names import k8s_name

RESOURCE_GROUP = "resource.k8s.io"
# The first release serving each version (k8s.io/api tags v0.32.0, v0.33.0, v0.34.0).
API_BY_MINOR = ((1, 34), "v1"), ((1, 33), "v1beta2"), ((1, 32), "v1beta1")
REQUEST = "gpu"


def dra_api_version(facts: DecisionFacts) -> tuple[str, str]:
    """The resource.k8s.io version step 1's Kubernetes serves, and why; v1 when step 1 does not
    say (the header says so); ConfigRefused before 1.32."""
    version = facts.profile.kubernetes_version
    if not version:
        return (
            f"{RESOURCE_GROUP}/v1",
            "step 1 does not say the Kubernetes version: resource.k8s.io/v1 (Kubernetes 1.34 "
            "and later, DRA GA) assumed; set it and generate again for an older cluster",
        )
    minor = parse_version(version)
    for since, api in API_BY_MINOR:
        if minor >= since:
            why = f"step 1's Kubernetes {version} serves {RESOURCE_GROUP}/{api}"
            if api != "v1":
                why += (
                    f" (DRA beta, off by default before 1.34: enable the "
                    f"DynamicResourceAllocation gate and --runtime-config={RESOURCE_GROUP}/"
                    f"{api}=true)"
                )
            return f"{RESOURCE_GROUP}/{api}", why
    raise ConfigRefused(
        _(
            "the decision uses a DRA driver but step 1's Kubernetes is %(version)s: DRA with "
            "structured parameters (resource.k8s.io) is served from 1.32 (beta) and GA in 1.34",
            version=format_minor(minor),
        )
    )


def release_warnings(version: str | None, rows: list[RowFacts]) -> list[str]:
    """Header lines for each decided driver release that documents a newer minimum Kubernetes
    than step 1's, or one step 1 cannot be told to meet (no version; a minor without the patch
    the minimum names). A warning, not a refusal: the files are right for the API the cluster
    serves, the cluster or the pinned release is what must change (docs/configgen.md, "DRA")."""
    releases = {}
    for row in rows:
        release = driver_release(row.project, row.version)
        if release is not None:
            releases.setdefault((release.project, release.release), (row, release))
    lines = []
    for row, release in releases.values():
        needs = (
            f"{row.cites()} supports Kubernetes {release.kubernetes} or later "
            f"({release.sources[0]}, read {release.verified_at})"
        )
        if not version:
            lines.append(f"{needs}: make sure the cluster runs it.")
            continue
        support = kubernetes_support(release, version)
        if support == UNSURE:
            lines.append(
                f"WARNING: {needs}; step 1 says {version} without the patch release: make sure "
                f"the cluster runs {release.kubernetes} or later."
            )
        elif support == BELOW:
            refused = (
                f" Helm refuses to install its chart there (kubeVersion "
                f"{release.chart_kube_version})."
                if chart_refuses(release, version)
                else ""
            )
            lines.append(
                f"WARNING: {needs}, but step 1's Kubernetes is {version}: upgrade the cluster "
                f"to {release.kubernetes} or later, or decide a driver release that supports "
                f"{version}.{refused} {release.note}".rstrip()
            )
    return lines


def presenters(pool: Pool) -> list[RowFacts]:
    """The pool's data-plane rows that hand out devices by DRA claim and name their driver."""
    return [row for row in pool.data_plane if "dra_claim" in row.units and row.dra_drivers]


def claim_class(row: RowFacts) -> str | None:
    """The class a GPU claim names among those the row's chart installs: the one named like the
    driver (its whole-device class), else the first; None when the chart installs none."""
    classes = row.device_classes
    if not classes:
        return None
    return next((name for name in classes if name in row.dra_drivers), classes[0])


def pool_classes(facts: DecisionFacts, pool: Pool) -> list[tuple[RowFacts, str, bool]]:
    """Each DRA presenter of the pool with the DeviceClass its claims name, and whether that
    class is installed by the driver's chart (else dra_files writes it, named per pool)."""
    found = []
    rows = presenters(pool)
    for index, row in enumerate(rows):
        suffix = f"-{index + 1}" if len(rows) > 1 else ""
        name = claim_class(row)
        if name is not None:
            found.append((row, name, True))
        else:
            found.append((row, k8s_name("DeviceClass", f"{facts.name}-{pool.name}{suffix}"), False))
    return found


def dra_files(facts: DecisionFacts, pools: list[Pool], header: list[str]) -> list[GeneratedFile]:
    values = dra_driver_values_file(facts, pools, header)  # the driver chart's (dra_values.py)
    files = [values] if values is not None else []
    served = [(pool, row) for pool in pools for row in presenters(pool)]
    if not served:
        return files
    api, why_api = dra_api_version(facts)
    notes = [] if facts.profile.kubernetes_version else [why_api]
    notes += release_warnings(facts.profile.kubernetes_version, [row for _p, row in served])
    classes, claims = [], []  # (pool, row, class name, why)
    for pool in pools:
        named = pool_classes(facts, pool)
        for index, (row, name, installed) in enumerate(named):
            suffix = f"-{index + 1}" if len(named) > 1 else ""
            if installed:
                why = (
                    f"{row.cites()}: the driver's chart installs DeviceClass {name} (row "
                    f"provides deviceclass:{name}), so it is referenced, not written again"
                )
            else:
                classes.append(_device_class(api, why_api, name, pool, row))
                why = f"generated for pool {pool.name} in dra/device-classes.yaml"
            template = k8s_name("ResourceClaimTemplate", f"{REQUEST}-{pool.name}{suffix}")
            claims.append((pool, row, name, template, why))
    tenants = list(pools[0].quotas)
    templates = [
        _claim_template(api, why_api, tenant, *claim) for claim in claims for tenant in tenants
    ]
    installed = sorted({name for _p, row, name, _t, _w in claims if name in row.device_classes})
    if classes:
        files.append(
            GeneratedFile(
                "dra/device-classes.yaml",
                "dra",
                classes,
                [
                    *header,
                    *notes,
                    f"DeviceClasses ({api}, cluster-scoped): kubectl apply -f "
                    "dra/device-classes.yaml",
                    "No pool attribute is selected: a DeviceClass sees device attributes, not "
                    f"node labels, and no verified attribute tells the pools apart; the pod's "
                    f"node selector {POOL_LABEL} places it in its pool.",
                ],
            )
        )
    files.append(
        GeneratedFile(
            "dra/resource-claim-templates.yaml",
            "dra",
            templates,
            [
                *header,
                *notes,
                f"ResourceClaimTemplates ({api}), one per tenant namespace and pool: kubectl "
                "apply -f dra/resource-claim-templates.yaml",
                "A pod asks for the device with spec.resourceClaims: [{name: gpu, "
                "resourceClaimTemplateName: TEMPLATE}] and resources.claims: [{name: gpu}] in "
                f"its container, plus the pool's node selector {POOL_LABEL}: POOL (and its "
                "toleration when the pools are tainted).",
                *(
                    f"The driver's chart installs DeviceClass {name}: no DeviceClass is generated "
                    "for it."
                    for name in installed
                ),
            ],
        )
    )
    return files


def _device_class(api: str, why_api: str, name: str, pool: Pool, row: RowFacts) -> Document:
    drivers = row.dra_drivers
    expression = " || ".join(f'device.driver == "{driver}"' for driver in drivers)
    doc = Document(
        {
            "apiVersion": api,
            "kind": "DeviceClass",
            "metadata": {"name": name},
            "spec": {"selectors": [{"cel": {"expression": expression}}]},
        }
    )
    doc.about = {"pool": pool.name, "drivers": drivers}
    doc.note("apiVersion", api, why_api)
    doc.note("metadata.name", name, f"pool {pool.name}'s devices")
    doc.note(
        "spec.selectors[0].cel.expression",
        expression,
        f"{row.cites()}: its driver name(s) (detect.dra_drivers); its chart installs no "
        "DeviceClass (the row provides no deviceclass:)",
    )
    return doc


def _claim_template(
    api: str,
    why_api: str,
    tenant: str,
    pool: Pool,
    row: RowFacts,
    device_class: str,
    name: str,
    why_class: str,
) -> Document:
    exact = {"deviceClassName": device_class, "allocationMode": "ExactCount", "count": 1}
    request = (
        {"name": REQUEST, **exact}
        if api.endswith("/v1beta1")
        else {"name": REQUEST, "exactly": exact}
    )
    doc = Document(
        {
            "apiVersion": api,
            "kind": "ResourceClaimTemplate",
            "metadata": {"name": name, "namespace": tenant},
            "spec": {"spec": {"devices": {"requests": [request]}}},
        }
    )
    doc.about = {
        "pool": pool.name,
        "drivers": row.dra_drivers,
        "device_class": device_class,
        # The row whose chart installs the class; empty: generated in dra/device-classes.yaml.
        "installed_by": row.cites() if device_class in row.device_classes else "",
    }
    doc.note("apiVersion", api, why_api)
    doc.note("metadata.name", name, f"pool {pool.name}'s device claim")
    doc.note("metadata.namespace", tenant, "the tenant's namespace")
    field = "deviceClassName" if api.endswith("/v1beta1") else "exactly.deviceClassName"
    path = f"spec.spec.devices.requests[0].{field}"
    doc.note(path, device_class, why_class)
    doc.note(
        path.replace("deviceClassName", "count"),
        1,
        f"one device per claim: a pod needing more lists more claims ({row.cites()})",
    )
    return doc
