"""Volcano Queues and KAI Scheduler Queues from a decision: one queue per tenant whose quota is
the tenant's share of the pools' capacity (the capacity sizing), the way the Kueue ClusterQueues
of generate.py are. Every value's comment says where it came from (docs/configgen.md).

Volcano v1.15.1 (the catalog's pin): Queue scheduling.volcano.sh/v1beta1, cluster-scoped, with
spec.capability (upper bound), spec.deserved (what the capacity plugin lends and reclaims back),
spec.guarantee.resource (reserved: withheld from every other queue), spec.weight (the proportion
plugin's divisor, 1..65535) and spec.reclaimable; its webhook requires guarantee <= deserved <=
capability. https://github.com/volcano-sh/volcano/blob/v1.15.1/config/crd/volcano/bases/scheduling.volcano.sh_queues.yaml
https://github.com/volcano-sh/volcano/blob/v1.15.1/pkg/webhooks/admission/queues/validate/validate_queue.go#L226-L290
https://github.com/volcano-sh/volcano/blob/v1.15.1/docs/user-guide/how_to_use_capacity_plugin.md

KAI Scheduler v0.17.0: Queue scheduling.run.ai/v2, cluster-scoped, spec.parentQueue and
spec.resources.{gpu,cpu,memory}.{quota,overQuotaWeight,limit}; GPU in GPUs (fractions allowed),
limit -1 no limit, 0 or unset nothing over quota; only leaf queues take jobs.
https://github.com/kai-scheduler/KAI-Scheduler/blob/v0.17.0/pkg/apis/scheduling/v2/resources.go
https://github.com/kai-scheduler/KAI-Scheduler/blob/v0.17.0/docs/queues/README.md
"""

from __future__ import annotations

import re
from collections.abc import Callable

from catalog.engine.text import _
from evaluations.configgen.capacity_of import UNKNOWN_CAPACITY, capacity, presented, split
from evaluations.configgen.generate_dra import claim_class, presenters
from evaluations.configgen.model import (
    POOL_LABEL,
    ConfigRefused,
    DecisionFacts,
    Document,
    GeneratedFile,
    Pool,
)
from evaluations.configgen.names import k8s_name

VOLCANO_API = "scheduling.volcano.sh/v1beta1"
# staging/src/volcano.sh/apis/pkg/apis/scheduling/v1beta1/labels.go#L46-L48 at v1.15.1
VOLCANO_QUEUE_ANNOTATION = "scheduling.volcano.sh/queue-name"
VOLCANO_WEIGHT_MAX = 65535  # the Queue CRD's spec.weight maximum
# docs/user-guide/how_to_use_dra_quota.md#L60-L70 at v1.15.1: a DeviceClass's device count is
# the queue key deviceclass/<DeviceClass>, read by the capacity plugin since v1.15.0.
VOLCANO_DRA_KEY = "deviceclass/"
VOLCANO_DRA_QUOTA_SINCE = (1, 15)
# Volcano keeps a `root` queue it will not let anyone change (validate_queue.go#L100-L108).
VOLCANO_RESERVED = {"root"}
KAI_API = "scheduling.run.ai/v2"
# pkg/common/constants/constants.go#L20 (DefaultQueueLabel) and docs/quickstart/README.md#L29-L33
KAI_QUEUE_LABEL = "kai.scheduler/queue"
KAI_NO_LIMIT = -1


def queue_files(facts: DecisionFacts, pools: list[Pool], header: list[str]) -> list[GeneratedFile]:
    """The Volcano and KAI queue files the decision gives (none when it decides neither)."""
    files = []
    if "volcano" in facts.projects():
        files.append(_volcano_file(facts, _pools_of(pools, "volcano"), header))
    if "kai-scheduler" in facts.projects():
        files.append(_kai_file(facts, _pools_of(pools, "kai-scheduler"), header))
    return files


def _pools_of(pools: list[Pool], project: str) -> list[Pool]:
    """The pools whose work the project queues: those it serves (every pool when it is not
    assigned to any)."""
    return [pool for pool in pools if pool.has(project)] or pools


def _cited(facts: DecisionFacts, project: str) -> str:
    return ", ".join(r.cites() for r in facts.rows if r.project == project) or "decision"


# Extra quota keys a pool presents besides its extended resources: key -> (capacity, why).
Extra = Callable[[Pool], dict[str, tuple[int, str]]]


class _Shares:
    """Every resource the pools present, its capacity summed over the pools, and each tenant's
    share of it (in each pool in proportion to the tenant's GPU quota, so shares sum to it)."""

    def __init__(self, pools: list[Pool], extra: Extra | None = None) -> None:
        self.pools = pools
        self.tenants = list(pools[0].quotas)
        more = {pool.name: extra(pool) if extra else {} for pool in pools}
        self.resources = sorted(
            {name for pool in pools for name in [*presented(pool), *more[pool.name]]}
        )
        self.total: dict[str, int] = {}
        self.share: dict[str, dict[str, int]] = {}
        self.why: dict[str, str] = {}
        self.unknown: set[str] = set()  # no pool's capacity of it follows from the decision
        for resource in self.resources:
            self.total[resource] = 0
            self.share[resource] = dict.fromkeys(self.tenants, 0)
            whys, known = [], False
            for pool in pools:
                if resource in presented(pool):
                    amount, why = capacity(pool, resource)
                else:
                    amount, why = more[pool.name].get(resource, (0, "its rows do not present it"))
                self.total[resource] += amount
                known = known or why != UNKNOWN_CAPACITY
                for tenant, part in split(amount, pool.quotas).items():
                    self.share[resource][tenant] += part
                whys.append(f"pool {pool.name} {amount}: {why}")
            self.why[resource] = "; ".join(whys)
            if not known:
                self.unknown.add(resource)

    def gpus(self, tenant: str) -> int:
        return sum(pool.quotas[tenant] for pool in self.pools)

    def cites(self, tenant: str) -> str:
        pools = ", ".join(f"{pool.quotas[tenant]} of pool {pool.name}'s" for pool in self.pools)
        total = sum(pool.size.gpus for pool in self.pools)
        return f"{tenant}'s {pools} GPUs ({total} in all, capacity sizing)"


# ---- Volcano ------------------------------------------------------------------------------------


def _volcano_dra_quota(facts: DecisionFacts) -> bool:
    """Volcano puts DRA devices under queue quota from v1.15.0 (how_to_use_dra_quota.md)."""
    row = next((r for r in facts.rows if r.project == "volcano"), None)
    digits = re.findall(r"\d+", row.version if row else "")
    return len(digits) >= 2 and (int(digits[0]), int(digits[1])) >= VOLCANO_DRA_QUOTA_SINCE


def _dra_devices(pool: Pool) -> dict[str, tuple[int, str]]:
    """`deviceclass/<class>` device counts of the pool's DRA drivers whose chart installs the
    class: the pool's GPUs when the class is the driver's whole-GPU one, else not known."""
    keys = {}
    for row in presenters(pool):
        name = claim_class(row)
        if name is None:
            continue
        if name in row.dra_drivers and "whole_gpu" in row.units:
            keys[f"{VOLCANO_DRA_KEY}{name}"] = (
                pool.size.gpus,
                f"{pool.cites_gpus()}; {row.cites()} publishes each GPU as one {name} device",
            )
        else:
            keys[f"{VOLCANO_DRA_KEY}{name}"] = (0, UNKNOWN_CAPACITY)
    return keys


def _volcano_file(facts: DecisionFacts, pools: list[Pool], header: list[str]) -> GeneratedFile:
    dra = _volcano_dra_quota(facts) and any(presenters(pool) for pool in pools)
    shares = _Shares(pools, _dra_devices if dra else None)
    if not shares.resources:
        raise ConfigRefused(_("no decided data-plane row presents a resource for Volcano's queues"))
    cited = _cited(facts, "volcano")
    documents = []
    for tenant in shares.tenants:
        if tenant in VOLCANO_RESERVED:
            raise ConfigRefused(
                _("tenant name %(name)s is Volcano's own root queue", name=repr(tenant))
            )
        doc = Document({"apiVersion": VOLCANO_API, "kind": "Queue", "metadata": {"name": tenant}})
        doc.note("apiVersion", VOLCANO_API, f"{cited}: the Queue CRD it serves")
        doc.note("metadata.name", tenant, f"tenant of step 1 ({len(shares.tenants)} tenants)")
        gpus = shares.gpus(tenant)
        weight = doc.note(
            "spec.weight",
            max(1, min(VOLCANO_WEIGHT_MAX, gpus)),
            f"{shares.cites(tenant)}: the proportion plugin divides by weight, so its shares "
            "follow the same quotas as spec.deserved",
        )
        reclaimable = doc.note(
            "spec.reclaimable",
            True,
            "what this tenant borrows beyond spec.deserved is reclaimed when its owner needs it",
        )
        capability, deserved, guarantee = {}, {}, {}
        for resource in shares.resources:
            if resource in shares.unknown:
                # A capability of 0 would hold every pod requesting it; unset is unlimited.
                doc.note(
                    f"spec.capability.{resource}",
                    "unset",
                    f"{UNKNOWN_CAPACITY}: left unlimited rather than 0, which would hold "
                    "every pod that requests it",
                )
            else:
                capability[resource] = doc.note(
                    f"spec.capability.{resource}",
                    shares.total[resource],
                    f"the pools' whole capacity ({shares.why[resource]}): idle quota may be "
                    "borrowed",
                )
            deserved[resource] = doc.note(
                f"spec.deserved.{resource}",
                shares.share[resource][tenant],
                f"{shares.cites(tenant)} of {shares.total[resource]}",
            )
            guarantee[resource] = doc.note(
                f"spec.guarantee.resource.{resource}",
                0,
                "nothing reserved: a guarantee is withheld from every other tenant even when "
                "idle; spec.deserved is reclaimed for this tenant instead",
            )
        doc.data["spec"] = {
            "weight": weight,
            "reclaimable": reclaimable,
            **({"capability": capability} if capability else {}),
            "deserved": deserved,
            "guarantee": {"resource": guarantee},
        }
        documents.append(doc)
    return GeneratedFile(
        "volcano/queues.yaml",
        "volcano",
        documents,
        [
            *header,
            f"Volcano Queues ({VOLCANO_API}, cluster-scoped): kubectl apply -f volcano/queues.yaml",
            "A workload picks its tenant's queue with schedulerName: volcano and, for a Volcano "
            "Job or a PodGroup, spec.queue: TENANT; a plain pod by the annotation "
            f"{VOLCANO_QUEUE_ANNOTATION}: TENANT.",
            "spec.deserved is what the capacity plugin lends and reclaims: enable it and the "
            "reclaim action in volcano-scheduler-configmap, without the proportion plugin "
            "(docs/user-guide/how_to_use_capacity_plugin.md at v1.15.1).",
            "Volcano queues are cluster-wide: the pool a pod runs in is chosen by its node "
            f"selector {POOL_LABEL} (and toleration), not by the queue. Pools queued: "
            + ", ".join(pool.name for pool in pools),
            "Quotas: deserved sums to the pools' capacity of each resource.",
            *(
                [
                    "deviceclass/<DeviceClass> keys count DRA devices: the capacity plugin reads "
                    "them with capacity.DynamicResourceAllocationEnable (default: the "
                    "DynamicResourceAllocation gate), docs/user-guide/how_to_use_dra_quota.md"
                ]
                if dra
                else []
            ),
        ],
    )


# ---- KAI Scheduler ------------------------------------------------------------------------------


def _kai_quota(doc: Document, path: str, quota, limit, why: str) -> dict:
    return {
        "quota": doc.note(f"{path}.quota", quota, why),
        "overQuotaWeight": doc.note(
            f"{path}.overQuotaWeight", 1, "idle resources beyond quota shared evenly"
        ),
        "limit": doc.note(
            f"{path}.limit",
            limit,
            "-1: no limit (0 would allow nothing over quota), idle GPUs may be borrowed and "
            "are reclaimed for their owner"
            if limit == KAI_NO_LIMIT
            else "the pools' GPUs",
        ),
    }


def _unsized(doc: Document, path: str) -> dict:
    """CPU and memory, which EcoMap does not size: unlimited quota and no limit. KAI holds
    non-preemptible work (priority 100 and above) within its queue's quota, so a quota of 0 would
    refuse every such pod that asks for CPU or memory (docs/queues/README.md at v0.17.0,
    "Special Values": quota -1 unlimited, limit -1 no limit)."""
    why = (
        "EcoMap sizes GPUs only: unlimited quota and no limit, so non-preemptible work asking "
        "for CPU or memory is never over quota"
    )
    return {
        "quota": doc.note(f"{path}.quota", KAI_NO_LIMIT, why),
        "overQuotaWeight": doc.note(f"{path}.overQuotaWeight", 1, why),
        "limit": doc.note(f"{path}.limit", KAI_NO_LIMIT, why),
    }


def _kai_file(facts: DecisionFacts, pools: list[Pool], header: list[str]) -> GeneratedFile:
    shares = _Shares(pools)
    cited = _cited(facts, "kai-scheduler")
    parent = k8s_name(_("queue"), facts.name)
    if parent in shares.tenants:
        raise ConfigRefused(
            _("tenant name %(name)s is the evaluation's parent queue", name=repr(parent))
        )
    total = sum(pool.size.gpus for pool in pools)
    gpus_why = "; ".join(pool.cites_gpus() for pool in pools)
    top = Document({"apiVersion": KAI_API, "kind": "Queue", "metadata": {"name": parent}})
    top.note("apiVersion", KAI_API, f"{cited}: the Queue CRD it serves")
    top.note("metadata.name", parent, f"the department queue of {facts.source}")
    top.data["spec"] = {
        "resources": {
            "gpu": _kai_quota(top, "spec.resources.gpu", total, KAI_NO_LIMIT, gpus_why),
            "cpu": _unsized(top, "spec.resources.cpu"),
            "memory": _unsized(top, "spec.resources.memory"),
        }
    }
    documents = [top]
    for tenant in shares.tenants:
        doc = Document({"apiVersion": KAI_API, "kind": "Queue", "metadata": {"name": tenant}})
        doc.note("apiVersion", KAI_API, f"{cited}: the Queue CRD it serves")
        doc.note("metadata.name", tenant, f"tenant of step 1 ({len(shares.tenants)} tenants)")
        doc.note("spec.parentQueue", parent, "the evaluation's department queue")
        gpus = shares.gpus(tenant)
        doc.data["spec"] = {
            "parentQueue": parent,
            "resources": {
                "gpu": _kai_quota(
                    doc, "spec.resources.gpu", gpus, KAI_NO_LIMIT, shares.cites(tenant)
                ),
                "cpu": _unsized(doc, "spec.resources.cpu"),
                "memory": _unsized(doc, "spec.resources.memory"),
            },
        }
        documents.append(doc)
    return GeneratedFile(
        "kai-scheduler/queues.yaml",
        "kai-scheduler",
        documents,
        [
            *header,
            f"KAI Scheduler Queues ({KAI_API}, cluster-scoped): kubectl apply -f "
            "kai-scheduler/queues.yaml",
            f"A pod picks its tenant's queue with the label {KAI_QUEUE_LABEL}: TENANT and "
            f"schedulerName: kai-scheduler; only the tenants' (leaf) queues take jobs, {parent} "
            "is their parent.",
            "GPU quotas are GPUs (KAI allows fractions, e.g. 0.5) and sum to the pools' GPUs "
            f"({total}); pools queued: " + ", ".join(pool.name for pool in pools),
        ],
    )
