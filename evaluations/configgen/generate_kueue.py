"""Kueue objects from a decision: a ResourceFlavor per pool (its node label and taint), a
ClusterQueue per tenant whose quotas per flavor sum to each pool's capacity of every covered
resource, with a cohort, lending and reclaim following the tenant's sharing rule, and a
LocalQueue in the tenant's namespace. The chart's Configuration is kueue_config.py's."""

from __future__ import annotations

from catalog.engine.text import _
from evaluations.configgen.capacity_of import capacity, presented, split
from evaluations.configgen.kueue_config import dra_quota
from evaluations.configgen.model import (
    POOL_LABEL,
    ConfigRefused,
    DecisionFacts,
    Document,
    GeneratedFile,
    Pool,
    tainted,
)

KUEUE_GROUP = "kueue.x-k8s.io"
LOCAL_QUEUE = "gpu"


def kueue_api_version(facts: DecisionFacts) -> tuple[str, str]:
    """The Kueue API the decision's pinned Kueue serves: v1beta2 when its row provides the
    v1beta2 ClusterQueue CRD (Kueue 0.19.2 serves both, stores v1beta2; 0.20 drops v1beta1),
    else v1beta1."""
    rows = [row for row in facts.rows if row.project == "kueue"]
    for row in rows:
        if f"crd:{KUEUE_GROUP}/v1beta2/ClusterQueue" in row.provides:
            return f"{KUEUE_GROUP}/v1beta2", f"{row.cites()} provides the v1beta2 ClusterQueue CRD"
    cited = rows[0].cites() if rows else "decision"
    return f"{KUEUE_GROUP}/v1beta1", f"{cited} does not provide v1beta2: v1beta1"


def kueue_files(facts: DecisionFacts, pools: list[Pool], header: list[str]) -> list[GeneratedFile]:
    api, why_api = kueue_api_version(facts)
    flavors = []
    for pool in pools:
        doc = Document(
            {"apiVersion": api, "kind": "ResourceFlavor", "metadata": {"name": pool.name}}
        )
        doc.note("apiVersion", api, why_api)
        doc.note("metadata.name", pool.name, f"node pool {pool.name} of {facts.source}")
        spec = {"nodeLabels": {POOL_LABEL: pool.name}}
        doc.note(f"spec.nodeLabels.{POOL_LABEL}", pool.name, "the pool's node label")
        if tainted(facts):
            spec["tolerations"] = [
                {"key": POOL_LABEL, "operator": "Equal", "value": pool.name, "effect": "NoSchedule"}
            ]
            doc.note("spec.tolerations", "the pool's taint", "admitted workloads tolerate it")
        doc.data["spec"] = spec
        flavors.append(doc)
    devices = {pool.name: dra_quota(facts, pool) for pool in pools}  # DRA claims (kueue_config)
    offered = {pool.name: presented(pool) + list(devices[pool.name]) for pool in pools}
    covered = sorted({name for names in offered.values() for name in names})
    if not covered:
        raise ConfigRefused(_("no decided data-plane row advertises a resource for Kueue to cover"))
    tenants = list(pools[0].quotas)
    per_pool = {}
    for pool in pools:
        per_pool[pool.name] = {}
        for turn, resource in enumerate(covered):  # equal tenants take odd units in turn
            total, why = (
                capacity(pool, resource)
                if resource in pool.resources
                else devices[pool.name][resource][:2]
                if resource in devices[pool.name]
                else (0, f"pool {pool.name}'s rows do not advertise it")
            )
            per_pool[pool.name][resource] = (split(total, pool.quotas, turn), total, why)
    cohort_field = "cohortName" if api.endswith("v1beta2") else "cohort"
    tenant_rules = {
        tenant.name: facts.profile.rule_for([tenant]) for tenant in facts.profile.tenant_list
    }
    queues, locals_ = [], []
    for tenant in tenants:
        doc = Document({"apiVersion": api, "kind": "ClusterQueue", "metadata": {"name": tenant}})
        doc.note("apiVersion", api, why_api)
        doc.note("metadata.name", tenant, f"tenant of step 1 ({len(tenants)} tenants)")
        group_flavors = []
        for f_index, pool in enumerate(pools):
            resources = []
            for r_index, resource in enumerate(covered):
                shares, total, why = per_pool[pool.name][resource]
                path = f"spec.resourceGroups[0].flavors[{f_index}].resources[{r_index}]"
                quota = doc.note(
                    f"{path}.nominalQuota ({resource})",
                    shares[tenant],
                    f"{tenant}'s {pool.quotas[tenant]} of pool {pool.name}'s {pool.size.gpus} "
                    f"GPUs (capacity sizing) of {total}: {why}",
                )
                resources.append({"name": resource, "nominalQuota": quota})
            group_flavors.append({"name": pool.name, "resources": resources})
        doc.note(
            "spec.resourceGroups[0].coveredResources",
            covered,
            "every resource the decided data-plane rows advertise ("
            + "; ".join(f"{row.ref}: {', '.join(row.resources)}" for row in _data_plane(pools))
            + ") and, under the MIG mixed strategy, each profile of the sized geometry",
        )
        spec: dict = {}
        rule = tenant_rules.get(tenant, facts.profile.tenant_rule)
        if rule == "never":
            doc.note(
                f"spec.{cohort_field}",
                None,
                f"{tenant} never shares a GPU with another tenant (step 1): no cohort, so its "
                "queue neither lends its idle quota nor borrows another's",
            )
        else:
            spec[cohort_field] = doc.note(
                f"spec.{cohort_field}",
                facts.name,
                "one cohort per evaluation: idle quota is lent to the other tenants "
                f"({tenant}'s rule: {rule})",
            )
            spec["preemption"] = {
                "reclaimWithinCohort": doc.note(
                    "spec.preemption.reclaimWithinCohort",
                    "Any",
                    "quota lent to another tenant comes back when its owner needs it",
                ),
                "withinClusterQueue": doc.note(
                    "spec.preemption.withinClusterQueue",
                    "LowerPriority",
                    "within the tenant, higher-priority work preempts lower-priority work",
                ),
            }
        spec["namespaceSelector"] = {"matchLabels": {"kubernetes.io/metadata.name": tenant}}
        spec["resourceGroups"] = [{"coveredResources": covered, "flavors": group_flavors}]
        doc.data["spec"] = spec
        doc.note("spec.namespaceSelector", tenant, "the tenant's namespace")
        queues.append(doc)
        local = Document(
            {
                "apiVersion": api,
                "kind": "LocalQueue",
                "metadata": {"name": LOCAL_QUEUE, "namespace": tenant},
                "spec": {"clusterQueue": tenant},
            }
        )
        local.note("apiVersion", api, why_api)
        local.note("metadata.name", LOCAL_QUEUE, "one queue per tenant namespace")
        local.note("metadata.namespace", tenant, "the tenant's namespace")
        local.note("spec.clusterQueue", tenant, "the tenant's ClusterQueue")
        locals_.append(local)
    return [
        GeneratedFile("kueue/resource-flavors.yaml", "kueue", flavors, header),
        GeneratedFile(
            "kueue/cluster-queues.yaml",
            "kueue",
            queues,
            [*header, "Quotas per flavor sum to the pool's capacity of each resource."],
        ),
        GeneratedFile("kueue/local-queues.yaml", "kueue", locals_, header),
    ]


def _data_plane(pools: list[Pool]):
    seen = {}
    for pool in pools:
        for row in pool.data_plane:
            seen.setdefault(row.ref, row)
    return list(seen.values())
