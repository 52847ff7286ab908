"""Would the cluster admit and run what the generated files set up? Checks across files that a
schema of one file cannot make (issue 39): every per-node agent tolerates every pool's taint
(agents.py), Kueue admits pods that ask for CPU and memory (kueue_config.py), a tenant that never
shares lends and borrows nothing, and KAI queues leave room for non-preemptible work. A decision
whose files fail one is not served."""

from __future__ import annotations

from collections.abc import Sequence

from catalog.engine.text import _
from evaluations.configgen.agents import untolerated
from evaluations.configgen.kueue_config import (
    admits_cpu_and_memory,
    chart_config,
    cluster_queues,
    kueue_row,
)
from evaluations.configgen.model import ConfigRefused, DecisionFacts, GeneratedFile, Pool
from evaluations.configgen.volcano_config import (
    chart_default,
    reclaims_deserved,
    schedules_vgpus,
    volcano_row,
)

# Schedulers that place pods themselves (schedulerName), whose pods HAMi's webhook leaves alone.
OTHER_SCHEDULERS = {"volcano": "volcano", "kai-scheduler": "kai-scheduler"}


def refuse_hami_under_another_scheduler(pools: Sequence[Pool]) -> None:
    """HAMi's device plugin hands devices only to pods HAMi's scheduler placed (it reads the
    assignment HAMi's scheduler writes), and HAMi's webhook leaves a pod whose schedulerName is
    another scheduler alone (HAMi v2.10.0 pkg/scheduler/webhook.go#L64-L69): under Volcano or
    KAI no pod would get a HAMi device, so such a pool is refused with the alternative."""
    for pool in pools:
        if not pool.serves("hami"):
            continue
        for project, scheduler in OTHER_SCHEDULERS.items():
            if pool.has(project):
                raise ConfigRefused(
                    _(
                        "pool %(pool)s: HAMi's device plugin serves only pods HAMi's scheduler "
                        "placed, and HAMi's webhook leaves pods with schedulerName %(scheduler)s "
                        "alone (HAMi v2.10.0 pkg/scheduler/webhook.go#L64-L69), so no pod would "
                        "get a HAMi device. Decide HAMi's volcano-vgpu-device-plugin for Volcano, "
                        "or HAMi's scheduler instead of %(scheduler)s",
                        pool=pool.name,
                        scheduler=scheduler,
                    )
                )


def isolated_tenants_lend(facts: DecisionFacts, files: Sequence[GeneratedFile]) -> list[str]:
    """Each ClusterQueue of a tenant whose rule is `never` that is in a cohort (and so lends its
    idle quota and borrows another's)."""
    never = {
        tenant.name
        for tenant in facts.profile.tenant_list
        if facts.profile.rule_for([tenant]) == "never"
    }
    return [
        f"ClusterQueue {queue['metadata']['name']} is in cohort {cohort}, but the tenant never "
        "shares a GPU (step 1): it would lend and borrow quota"
        for queue in cluster_queues(files)
        if queue["metadata"]["name"] in never
        and (cohort := queue["spec"].get("cohort") or queue["spec"].get("cohortName"))
    ]


def kai_holds_non_preemptible(files: Sequence[GeneratedFile]) -> list[str]:
    """Each KAI Queue whose CPU or memory quota is neither unlimited (-1) nor positive: KAI keeps
    non-preemptible work within its queue's quota, so such a pod asking for CPU or memory would
    never be scheduled (KAI Scheduler v0.17.0 docs/queues/README.md, "Special Values")."""
    return [
        f"KAI Queue {doc.data['metadata']['name']}: {resource} quota "
        f"{doc.data['spec']['resources'][resource].get('quota', 0)}: non-preemptible pods asking "
        f"for {resource} are over quota and never scheduled"
        for file in files
        if file.kind == "kai-scheduler"
        for doc in file.documents
        for resource in ("cpu", "memory")
        if doc.data["spec"]["resources"].get(resource, {}).get("quota", 0) == 0
    ]


def strategy_overridden(files: Sequence[GeneratedFile]) -> list[str]:
    """Each pool's device plugin config whose MIG strategy differs from the GPU Operator's
    mig.strategy, which the operator puts in force on every node (capacity_of.operator_strategy):
    the pool would advertise other resources than its queues cover."""
    operator = next((f for f in files if f.kind == "gpu-operator-values"), None)
    forced = (operator.documents[0].data.get("mig") or {}).get("strategy") if operator else None
    if forced is None:
        return []
    return [
        f"{file.path}: flags.migStrategy {strategy}, but the GPU Operator's mig.strategy "
        f"{forced} is in force on every node"
        for file in files
        if file.kind == "device-plugin-config"
        and (strategy := file.documents[0].data["flags"]["migStrategy"]) not in ("none", forced)
    ]


MIG_RESOURCE_PREFIX = "nvidia.com/mig-"


def covers_what_no_gpu_advertises(files: Sequence[GeneratedFile]) -> list[str]:
    """Each MIG resource a ClusterQueue covers that no MIG layout of the files makes a GPU
    advertise (a row lists every profile of every model; the nodes show their layout's)."""
    layouts = {
        profile
        for file in files
        if file.kind == "mig-parted-config"
        for entries in file.documents[0].data.get("mig-configs", {}).values()
        for entry in entries
        for profile in (entry.get("mig-devices") or {})
    }
    return [
        f"ClusterQueue {queue['metadata']['name']} covers {name}, which no GPU of the "
        "decision advertises (its MIG layouts have no such profile)"
        for queue in cluster_queues(files)
        for group in queue["spec"]["resourceGroups"][:1]
        for name in group["coveredResources"]
        if name.startswith(MIG_RESOURCE_PREFIX)
        and name.removeprefix(MIG_RESOURCE_PREFIX) not in layouts
    ]


def admission_problems(facts: DecisionFacts, files: Sequence[GeneratedFile]) -> list[str]:
    """What keeps the generated configuration from admitting or running work; [] when none."""
    problems = untolerated(files)
    row = kueue_row(facts)
    # A Kueue release without chart facts gets a by-hand step in install.sh instead of values.
    if row is not None and chart_config(row.version) is not None:
        problems += admits_cpu_and_memory(list(files))
    problems += isolated_tenants_lend(facts, files)
    problems += kai_holds_non_preemptible(files)
    problems += strategy_overridden(files)
    problems += covers_what_no_gpu_advertises(files)
    volcano = volcano_row(facts)
    if volcano is not None and chart_default(volcano.version) is not None:
        problems += reclaims_deserved(files) + schedules_vgpus(facts, files)
    return problems
