"""How work enters what the files set up: one example workload per tenant and pool, in
`examples/<tenant>.yaml`, with the queue label or annotation and scheduler name of the decided
governor, the pool's node selector and toleration, and a request of the resource (or DRA claim)
the pool's GPUs are presented as. A skeleton to copy, not something install.sh applies.

- Kueue: label `kueue.x-k8s.io/queue-name` on the Job or Deployment, naming the tenant's
  LocalQueue (Kueue docs, "Run a Kubernetes Job"); a Deployment is queued only where the
  release's Configuration integrates `deployment` (catalog/data/facts/kueue-chart-config.yaml).
- Volcano: `schedulerName: volcano` and the pod annotation `scheduling.volcano.sh/queue-name`
  (Volcano v1.15.1 apis labels.go#L46-L48).
- KAI Scheduler: `schedulerName: kai-scheduler` and the label `kai.scheduler/queue` on the
  workload (KAI v0.17.0 docs/quickstart/README.md, "Assigning Pods to Queues").
- NVLink domains: where the decision has the DRA driver's ComputeDomain row, a training
  example comes with its ComputeDomain (resource.nvidia.com/v1beta1, numNodes 0 as the CRD
  recommends) and claims the channel's ResourceClaimTemplate, as the driver's demo does
  (dra-driver-nvidia-gpu v0.4.1 demo/specs/imex/channel-injection.yaml).
- Images: NVIDIA's CUDA vector-add sample from the device plugin's README (v0.20.0, L184) and
  ROCm's TensorFlow image from the AMD device plugin's example pod (example/pod/alexnet-gpu.yaml);
  any other vendor gets a placeholder to replace.
"""

from __future__ import annotations

from typing import Any

from evaluations.configgen.capacity_of import mig_strategy, presented
from evaluations.configgen.generate_amd import amd_layout
from evaluations.configgen.generate_dra import REQUEST, presenters
from evaluations.configgen.generate_queues import (
    KAI_QUEUE_LABEL,
    VOLCANO_QUEUE_ANNOTATION,
)
from evaluations.configgen.kueue_config import chart_config, kueue_row
from evaluations.configgen.model import POOL_LABEL, DecisionFacts, Document, GeneratedFile, Pool
from evaluations.configgen.names import k8s_name

KUEUE_QUEUE_LABEL = "kueue.x-k8s.io/queue-name"
COMPUTE_DOMAIN_ROW = "nvidia-dra-driver-gpu/compute-domain"
COMPUTE_DOMAIN_API = "resource.nvidia.com/v1beta1"
CHANNEL = "channel"
# Examples are written for this many tenants at most; the header says how to make the rest.
MAX_TENANTS = 32
IMAGES = {
    "nvidia": "nvcr.io/nvidia/k8s/cuda-sample:vectoradd-cuda12.5.0",
    "amd": "rocm/tensorflow:latest",
}
PLACEHOLDER_IMAGE = "registry.example.com/your-team/your-image:tag"
BATCH = ("training", "batch")
DEFAULT_CPU, DEFAULT_MEMORY = "1", "4Gi"


def _workload_kind(facts: DecisionFacts, tenant: str) -> str:
    """Job for a tenant whose work is training or batch, else Deployment (serving, notebooks)."""
    named = {t.name: t for t in facts.profile.tenant_list}
    kinds = named[tenant].workloads if tenant in named else facts.profile.workload_types
    return "Job" if kinds and all(kind in BATCH for kind in kinds) else "Deployment"


def _resource(pool: Pool) -> tuple[str | None, str]:
    """The resource one replica asks for in this pool (None: a DRA claim instead), and why."""
    names = presented(pool)
    layout = amd_layout(pool)
    if layout is not None:
        return layout.resource, f"the pool's AMD partitions ({layout.cites()})"
    if "volcano.sh/vgpu-number" in names:  # HAMi's device plugin for Volcano
        return "volcano.sh/vgpu-number", "one vGPU (volcano-vgpu-device-plugin)"
    mig = [n for n in names if n.startswith("nvidia.com/mig-")]
    if pool.is_mig and mig_strategy(pool) == "mixed" and mig:
        return mig[0], "one MIG instance of the pool's layout (mixed strategy)"
    for name in ("nvidia.com/gpu", "amd.com/gpu"):
        if name in names:
            return name, "one device of the pool (a MIG instance under the single strategy)"
    return (names[0], "a resource the pool's nodes advertise") if names else (None, "")


def _vendor(pool: Pool) -> str:
    model = pool.cluster.model
    return model.vendor if model is not None else "nvidia"


def _compute_domain(facts: DecisionFacts, pool: Pool) -> Document:
    name = k8s_name("ComputeDomain", f"example-{pool.name}-domain")
    channel = k8s_name("ResourceClaimTemplate", f"example-{pool.name}-channel")
    doc = Document(
        {
            "apiVersion": COMPUTE_DOMAIN_API,
            "kind": "ComputeDomain",
            "metadata": {"name": name},
            "spec": {"numNodes": 0, "channel": {"resourceClaimTemplate": {"name": channel}}},
        }
    )
    doc.note(
        "kind",
        "ComputeDomain",
        f"{facts.row(COMPUTE_DOMAIN_ROW).cites()}: Multi-Node NVLink for a job across nodes",
    )
    doc.note("spec.numNodes", 0, "the CRD's recommended default (IMEX daemons with DNS names)")
    doc.note("spec.channel.resourceClaimTemplate.name", channel, "the job's pods claim it")
    return doc


def _example(facts: DecisionFacts, pool: Pool, tenant: str, tainted: bool) -> Document | None:
    claims = presenters(pool)
    resource, why = _resource(pool)
    if not claims and resource is None:
        return None
    kind = _workload_kind(facts, tenant)
    name = k8s_name("example", f"example-{pool.name}")
    labels: dict[str, str] = {"app.kubernetes.io/name": name}
    annotations: dict[str, str] = {}
    doc = Document({})
    projects = facts.projects()
    scheduler = None
    if "kueue" in projects:
        frameworks = (chart_config(kueue_row(facts).version) or {}).get("integrations", {})
        integrated = "deployment" in (frameworks.get("frameworks") or [])
        if kind == "Job" or integrated:
            labels[KUEUE_QUEUE_LABEL] = doc.note(
                f"metadata.labels.{KUEUE_QUEUE_LABEL}", "gpu", f"{tenant}'s LocalQueue"
            )
    if "volcano" in projects:
        scheduler = "volcano"
        annotations[VOLCANO_QUEUE_ANNOTATION] = doc.note(
            f"template annotation {VOLCANO_QUEUE_ANNOTATION}", tenant, f"{tenant}'s Queue"
        )
    if "kai-scheduler" in projects:
        scheduler = "kai-scheduler"
        labels[KAI_QUEUE_LABEL] = doc.note(
            f"metadata.labels.{KAI_QUEUE_LABEL}", tenant, f"{tenant}'s KAI Queue"
        )
    image = IMAGES.get(_vendor(pool), PLACEHOLDER_IMAGE)
    container: dict[str, Any] = {
        "name": "main",
        "image": image,
        "resources": {"requests": {"cpu": DEFAULT_CPU, "memory": DEFAULT_MEMORY}},
    }
    pod: dict[str, Any] = {"nodeSelector": {POOL_LABEL: pool.name}}
    doc.note(f"nodeSelector.{POOL_LABEL}", pool.name, "the pool's nodes")
    if tainted:
        pod["tolerations"] = [
            {"key": POOL_LABEL, "operator": "Equal", "value": pool.name, "effect": "NoSchedule"}
        ]
        doc.note("tolerations", "the pool's taint", "the pool's nodes are tainted")
    if claims:
        # As generate_dra names the template of the pool's first presenter.
        suffix = "-1" if len(claims) > 1 else ""
        template_name = k8s_name("ResourceClaimTemplate", f"{REQUEST}-{pool.name}{suffix}")
        pod["resourceClaims"] = [{"name": REQUEST, "resourceClaimTemplateName": template_name}]
        container["resources"]["claims"] = [{"name": REQUEST}]
        doc.note("resourceClaims", template_name, "the pool's ResourceClaimTemplate (dra/)")
    else:
        container["resources"]["limits"] = {resource: 1}
        doc.note(f"limits.{resource}", 1, why)
    if kind == "Job" and facts.row(COMPUTE_DOMAIN_ROW) is not None:
        channel = k8s_name("ResourceClaimTemplate", f"example-{pool.name}-channel")
        pod.setdefault("resourceClaims", []).append(
            {"name": CHANNEL, "resourceClaimTemplateName": channel}
        )
        container["resources"].setdefault("claims", []).append({"name": CHANNEL})
        doc.note("resourceClaims", channel, "the IMEX channel of the ComputeDomain above")
    if scheduler:
        pod["schedulerName"] = doc.note("schedulerName", scheduler, "the decided scheduler")
    if kind == "Job":
        pod["restartPolicy"] = "Never"
    pod["containers"] = [container]
    template: dict[str, Any] = {"metadata": {"labels": dict(labels)}, "spec": pod}
    if annotations:
        template["metadata"]["annotations"] = annotations
    metadata = {"name": name, "namespace": tenant, "labels": labels}
    if kind == "Job":
        doc.data = {
            "apiVersion": "batch/v1",
            "kind": "Job",
            "metadata": metadata,
            "spec": {"backoffLimit": 0, "template": template},
        }
    else:
        doc.data = {
            "apiVersion": "apps/v1",
            "kind": "Deployment",
            "metadata": metadata,
            "spec": {
                "replicas": 1,
                "selector": {"matchLabels": {"app.kubernetes.io/name": name}},
                "template": template,
            },
        }
    doc.note("metadata.namespace", tenant, "the tenant's namespace (its queues select it)")
    return doc


def example_files(
    facts: DecisionFacts, pools: list[Pool], header: list[str], files: list[GeneratedFile]
) -> list[GeneratedFile]:
    """`examples/<tenant>.yaml` for each tenant with a share of some pool (the first
    MAX_TENANTS), one workload per pool it has quota in."""
    tainted = any(f.kind == "node-pool" and f.documents[0].data.get("taints") for f in files)
    tenants = list(pools[0].quotas) if pools else []
    out = []
    for tenant in tenants[:MAX_TENANTS]:
        mine = [pool for pool in pools if pool.quotas.get(tenant, 0) > 0] or pools[:1]
        documents = []
        for pool in mine:
            doc = _example(facts, pool, tenant, tainted)
            if doc is None:
                continue
            if doc.data["kind"] == "Job" and facts.row(COMPUTE_DOMAIN_ROW) is not None:
                domain = _compute_domain(facts, pool)
                domain.data["metadata"]["namespace"] = tenant
                documents.append(domain)
            documents.append(doc)
        if not documents:
            continue
        notes = [
            *header,
            f"How {tenant}'s work enters the pools it has quota in: an example to copy (replace "
            "the image and command), not applied by install.sh.",
        ]
        if len(tenants) > MAX_TENANTS:
            notes.append(
                f"Examples are written for the first {MAX_TENANTS} of {len(tenants)} tenants; "
                "for another, change the namespace and the queue name."
            )
        out.append(GeneratedFile(f"examples/{tenant}.yaml", "workload-example", documents, notes))
    return out
