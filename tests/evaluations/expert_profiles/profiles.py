"""Realistic step-1 profiles and what a GPU-platform expert expects of the top three stacks.

An expectation is a property (a checker in properties.py) with a scope: `each` of the top three,
`any` one of them, the `first`, the `top3` taken together, or the `ranking` itself, and the source
it comes from: upstream documentation (at a release where one exists) or METHOD.md / DESIGN.md.
None of them was read off the engine's output: the engine is what they judge.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

# -- sources ---------------------------------------------------------------------------------

MIG_GPUS = (
    "NVIDIA MIG User Guide (R610), Supported GPUs: MIG on A100, A30, H100, H200, H20, B200, GB200, "
    "RTX PRO Blackwell; L40S and L4 are not listed "
    "https://docs.nvidia.com/datacenter/tesla/mig-user-guide/610/supported-gpus.html"
)
MIG_ISOLATION = (
    "NVIDIA MIG User Guide, Introduction: each GPU instance has its own SMs, L2 slices and memory "
    "paths, with hardware fault isolation "
    "https://docs.nvidia.com/datacenter/tesla/mig-user-guide/introduction.html"
)
MIG_NO_P2P = (
    "NVIDIA MIG User Guide (R620), Deployment Considerations: in MIG mode there is no GPU-to-GPU "
    "P2P (PCIe or NVLink), so multi-GPU training wants whole GPUs "
    "https://docs.nvidia.com/datacenter/tesla/mig-user-guide/620/deployment-considerations.html"
)
DEVICE_PLUGIN_SHARING = (
    "NVIDIA k8s-device-plugin v0.20.0 README, Shared Access to GPUs: time-slicing does nothing to "
    "isolate workloads (shared GPU memory, one fault domain); MPS limits memory and compute per "
    "client and is not supported on MIG-enabled devices "
    "https://github.com/NVIDIA/k8s-device-plugin/blob/v0.20.0/README.md#shared-access-to-gpus"
)
HAMI = (
    "HAMi v2.10.0 README: per-container device-memory hard limit and core share enforced in "
    "HAMi-core (memory hard, compute soft, no fault isolation) "
    "https://github.com/Project-HAMi/HAMi/blob/v2.10.0/README.md"
)
KAI_SHARING = (
    "KAI Scheduler v0.17.0 GPU sharing: KAI does not enforce memory limits or isolate memory, and "
    "pods sharing a GPU can be in different namespaces "
    "https://github.com/kai-scheduler/KAI-Scheduler/blob/v0.17.0/docs/gpu-sharing/README.md"
)
GANG = (
    "Gang (all-or-nothing) scheduling for distributed training: Volcano gang plugin and PodGroup "
    "minMember https://volcano.sh/en/docs/plugins/#gang , "
    "https://github.com/volcano-sh/volcano/blob/v1.15.1/config/crd/volcano/bases/"
    "scheduling.volcano.sh_podgroups.yaml ; Kueue all-or-nothing "
    "https://github.com/kubernetes-sigs/kueue/blob/v0.19.2/site/content/en/docs/tasks/manage/"
    "setup_wait_for_pods_ready.md ; KAI gang scheduling "
    "https://github.com/kai-scheduler/KAI-Scheduler/blob/v0.17.0/README.md"
)
QUOTA = (
    "Per-tenant quota: Kueue ClusterQueue (namespaceSelector, nominal quota, cohorts) "
    "https://github.com/kubernetes-sigs/kueue/blob/v0.19.2/site/content/en/docs/concepts/"
    "cluster_queue.md ; Volcano Queue capability/deserved "
    "https://github.com/volcano-sh/volcano/blob/v1.15.1/config/crd/volcano/bases/"
    "scheduling.volcano.sh_queues.yaml"
)
BORROWING = (
    "Idle quota lent and reclaimed between teams: Kueue cohorts and fair sharing "
    "https://github.com/kubernetes-sigs/kueue/blob/v0.19.2/site/content/en/docs/concepts/"
    "fair_sharing.md ; Volcano capacity plugin (deserved, reclaim) "
    "https://github.com/volcano-sh/volcano/blob/v1.15.1/docs/user-guide/how_to_use_capacity_plugin.md"
)
PREEMPTION = (
    "Priority preemption so training cannot crowd out inference: Kueue preemption "
    "https://github.com/kubernetes-sigs/kueue/blob/v0.19.2/site/content/en/docs/concepts/"
    "preemption.md ; METHOD.md shape B control plane"
)
DRA_GATE = (
    "Kubernetes feature gate DynamicResourceAllocation: beta and off by default in 1.32-1.33, GA "
    "(resource.k8s.io/v1, on) in 1.34 https://github.com/kubernetes/website/blob/"
    "1067c0957e9ffecb403ec7940458b477248bb10e/content/en/docs/reference/command-line-tools-"
    "reference/feature-gates/DynamicResourceAllocation.md ; "
    "https://kubernetes.io/docs/concepts/scheduling-eviction/dynamic-resource-allocation/"
)
COMPUTE_DOMAINS = (
    "DRA Driver for NVIDIA GPUs v0.4.1: ComputeDomains give Multi-Node NVLink (IMEX) and are "
    "officially supported https://github.com/kubernetes-sigs/dra-driver-nvidia-gpu/blob/v0.4.1/"
    "README.md ; NVIDIA GPU Operator, ComputeDomains for GB200 NVL72 "
    "https://docs.nvidia.com/datacenter/cloud-native/gpu-operator/latest/dra-cds.html"
)
AMD = (
    "AMD: ROCm k8s-device-plugin v1.31.0.10 (amd.com/gpu) "
    "https://github.com/ROCm/k8s-device-plugin/blob/v1.31.0.10/README.md ; MI300X compute "
    "(SPX/CPX) and memory (NPS) partitioning is AMD's own mechanism, not MIG "
    "https://instinct.docs.amd.com/projects/amdgpu-docs/en/latest/gpu-partitioning/mi300x/"
    "overview.html , https://rocm.docs.amd.com/projects/amdsmi/en/docs-10.2.0/conceptual/"
    "partition.html"
)
ASCEND = (
    "Huawei Ascend: Ascend Device Plugin (MindCluster v26.1.0) presents NPUs and static vNPUs "
    "https://github.com/Ascend/mind-cluster/blob/v26.1.0/docs/en/scheduling/api/"
    "ascend_device_plugin.md ; Volcano for affinity scheduling "
    "https://www.hiascend.com/document/detail/en/mindcluster/730/clustersched/schedulingug/"
    "cpaug_0017.html"
)
NVIDIA = (
    "NVIDIA stacks: k8s-device-plugin, MIG Manager, DCGM, GFD and the DRA driver serve NVIDIA GPUs "
    "only https://github.com/NVIDIA/k8s-device-plugin/blob/v0.20.0/README.md"
)
QUOTA_REACH = (
    "Quota between tenants is the platform's to govern, on every pool (METHOD.md step 4); a "
    "scheduler cannot place or count resources only another scheduler assigns: HAMi v2.10.0 "
    "resources are assigned by hami-scheduler "
    "https://github.com/Project-HAMi/HAMi/blob/v2.10.0/README.md ; KAI Scheduler v0.17.0 brings "
    "in HAMi-core only, not HAMi's device plugin or resources "
    "https://github.com/kai-scheduler/KAI-Scheduler/blob/v0.17.0/docs/gpu-sharing/hami/README.md ; "
    "Kueue v0.19.2 admits and counts HAMi's resources "
    "https://github.com/kubernetes-sigs/kueue/blob/v0.19.2/site/content/en/docs/tasks/run/"
    "using_hami.md"
)
# -- profile v2 sources (issue 38) -----------------------------------------------------------

PROFILE_V2 = (
    "DESIGN.md, Profile v2: node_groups (several GPU models per cluster; a pool lives on one "
    "group), tenants by name with the work they run and absolute demand (a pool serves the "
    "tenants whose work it runs), installed (the default governor; replacing it is a migration)"
)
L40S_PCIE = (
    "NVIDIA L40S datasheet: interconnect PCIe Gen4 x16, no NVLink, no MIG "
    "https://www.nvidia.com/en-us/data-center/l40s/ ; MIG supported GPUs (L40S not listed) "
    "https://docs.nvidia.com/datacenter/tesla/mig-user-guide/610/supported-gpus.html"
)
TOPOLOGY = (
    "Topology-aware placement keeps a multi-node job inside one NVLink domain: KAI Scheduler "
    "v0.17.0 topology docs "
    "https://github.com/kai-scheduler/KAI-Scheduler/blob/v0.17.0/docs/topology/multilevel.md ; "
    "Kueue v0.19.2 Topology Aware Scheduling "
    "https://github.com/kubernetes-sigs/kueue/blob/v0.19.2/site/content/en/docs/concepts/"
    "topology_aware_scheduling.md"
)
MNNVL_CHECKS = (
    "NVIDIA GPU Operator, ComputeDomains (Multi-Node NVLink): a ComputeDomain guarantees "
    "MNNVL-reachability between its pods through IMEX channels; the pods must land in one "
    "NVLink partition (nvidia.com/gpu.clique) "
    "https://docs.nvidia.com/datacenter/cloud-native/gpu-operator/latest/dra-cds.html ; NCCL "
    "all-reduce across nodes is the training job's collective "
    "https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/overview.html"
)
INTEL_GAUDI = (
    "Intel resource drivers for Kubernetes, Gaudi DRA driver gaudi-v0.7.2 (DeviceClass "
    "gaudi.intel.com) "
    "https://github.com/intel/intel-resource-drivers-for-kubernetes/tree/gaudi-v0.7.2 ; Intel "
    "Gaudi docs, Gaudi architecture "
    "https://docs.habana.ai/en/latest/Gaudi_Overview/Gaudi_Architecture.html"
)
VENDOR_SOURCES = {"nvidia": NVIDIA, "amd": AMD, "huawei": ASCEND, "intel": INTEL_GAUDI}
METHOD_SHAPES = "METHOD.md, Decision flow and the three typical end-to-end shapes (shape table)"
METHOD_STEP1 = "METHOD.md step 1 (fix the target workload and SLO)"
METHOD_STEP2 = "METHOD.md step 2 (the resource unit fixes the isolation ceiling)"
METHOD_STEP4 = "METHOD.md step 4 (write the boundary of responsibility)"
DESIGN_PROFILE = (
    "DESIGN.md, step-1 profile: cross_tenant_sharing (never | hard_partitions | allowed; default "
    "multi + hard -> hard_partitions), workload_isolation; hard = hard on memory, compute AND fault"
)
DESIGN_POOLS = (
    "DESIGN.md, Recommendation pool_details and 'two rows that queue, admit or preempt the same "
    "pods are a conflict unless assigned to disjoint pools'"
)


# -- the model -------------------------------------------------------------------------------


@dataclass(frozen=True)
class Expect:
    says: str  # reads as a sentence in the test id
    scope: str  # each | any | first | top3 | ranking
    check: str  # a checker of properties.py
    source: str
    args: Mapping[str, Any] = field(default_factory=dict, hash=False)


@dataclass(frozen=True)
class ExpertProfile:
    name: str
    title: str
    profile: Mapping[str, Any] = field(hash=False)
    source: str
    expectations: tuple[Expect, ...]


def each(check: str, says: str, source: str, **args: Any) -> Expect:
    return Expect(f"each of the top three {says}", "each", check, source, args)


def any_of(check: str, says: str, source: str, **args: Any) -> Expect:
    return Expect(f"one of the top three {says}", "any", check, source, args)


def first(check: str, says: str, source: str, **args: Any) -> Expect:
    return Expect(f"the first {says}", "first", check, source, args)


def top3(check: str, says: str, source: str, **args: Any) -> Expect:
    return Expect(f"the top three {says}", "top3", check, source, args)


def ranking(check: str, says: str, source: str, **args: Any) -> Expect:
    return Expect(f"the ranking {says}", "ranking", check, source, args)


def sound(vendor: str = "nvidia") -> tuple[Expect, ...]:
    """What every expert answer has: a stack that checks out, runs on the cluster's Kubernetes and
    accelerators, serves every workload asked for, claims no more isolation than its rows give,
    has one governor per pool, and three answers that are different in kind."""
    return (
        each("report_ok", "passes the stack check", METHOD_STEP4),
        each("kubernetes_ok", "runs on the cluster's Kubernetes version", DRA_GATE),
        each(
            "serves_vendor",
            f"runs only rows that serve {vendor} or any vendor, with a {vendor} device presenter",
            VENDOR_SOURCES[vendor],
            vendor=vendor,
        ),
        each("all_workloads_served", "gives every workload type a pool", METHOD_STEP1),
        each(
            "pool_details_honest",
            "claims no more units or isolation than its rows give",
            METHOD_STEP2 + " ; " + DESIGN_PROFILE,
        ),
        each("one_governor", "has at most one governor per pool", DESIGN_POOLS),
        each(
            "quota_reaches_every_pool",
            "puts every resource its pools present under a quota layer that can express it, "
            "when the profile is multi-tenant",
            QUOTA_REACH,
        ),
        top3("three_stacks", "are three stacks", METHOD_SHAPES),
        top3(
            "distinct_top3",
            "differ in kind, not only by variants of the same projects",
            METHOD_SHAPES,
        ),
    )


HARD_TENANTS = (
    each(
        "tenant_safe",
        "shares GPUs across tenants only through hard partitions",
        DESIGN_PROFILE
        + " ; "
        + MIG_ISOLATION
        + " ; "
        + DEVICE_PLUGIN_SHARING
        + " ; "
        + HAMI
        + " ; "
        + KAI_SHARING,
    ),
    each(
        "governor_has",
        "puts each pool under a governor with per-tenant quota",
        QUOTA,
        functions=("quota",),
    ),
)
TRAINING = (
    each("training_on_whole_gpus", "trains on whole GPUs", MIG_NO_P2P + " ; " + METHOD_SHAPES),
    each("gang_for", "gang-schedules training", GANG, kinds=("training",)),
)


def p99(target_ms: int) -> Expect:
    return each(
        "p99_check_on_inference_pool",
        f"puts a P99 <= {target_ms} ms acceptance check on the inference pool",
        METHOD_SHAPES + " (shape B key acceptance checks: P99, jitter)",
    )


PROFILES: tuple[ExpertProfile, ...] = (
    ExpertProfile(
        name="llm-inference-6-tenants-h100",
        title=(
            "LLM inference, p99 < 300 ms, nightly fine-tuning, 24 nodes x 8 H100 80 GB, Kubernetes "
            "1.33, 6 tenant teams that must not see each other's data; notebooks want fractions "
            "of a GPU; training wants whole GPUs and gang scheduling"
        ),
        profile={
            "workload_types": ["online_inference", "training", "interactive"],
            "time_windows": {
                "online_inference": "always",
                "training": "night",
                "interactive": "business_hours",
            },
            "primary_objective": "p99_latency",
            "p99_target_ms": 300,
            "jitter_tolerance": "medium",
            "isolation": "hard",
            "failure_semantics": "incident",
            "tenancy": "multi",
            "tenant_count": 6,
            "gpu_model": "H100 80GB",
            "gpu_memory_gb": 80,
            "node_count": 24,
            "kubernetes_version": "1.33",
            "priorities": ["isolation", "observability", "cost", "compatibility"],
        },
        source=(
            "The realistic brief. Tenants are kept apart by MIG (hard on memory, compute, fault) "
            "or by pools of their own; soft sharing (HAMi, time-slicing, MPS, KAI fractions) only "
            "inside one tenant. Inference on MIG or whole GPUs; training on whole GPUs, gang "
            "scheduled; one governor; DRA is off by default on 1.33."
        ),
        expectations=(
            *sound(),
            *HARD_TENANTS,
            *TRAINING,
            each("no_dra", "needs no DRA (beta, off by default on 1.33)", DRA_GATE),
            each(
                "interactive_on_fractions",
                "gives notebooks fractions of a GPU",
                MIG_ISOLATION + " ; " + METHOD_SHAPES + " (shape C shared pool)",
            ),
            each(
                "inference_on_hard_units",
                "serves inference on MIG slices or whole GPUs",
                MIG_ISOLATION + " ; " + DEVICE_PLUGIN_SHARING,
            ),
            each(
                "isolation_per_workload",
                "isolates inference and training hard",
                DESIGN_PROFILE,
                workloads=("online_inference", "training"),
            ),
            each(
                "preemption_protects_inference",
                "lets inference preempt training it shares a pool with",
                PREEMPTION,
            ),
            p99(300),
            each("states_trade_off", "states its trade-off in one line", METHOD_STEP4),
            first(
                "shape_is",
                "is shape C (pools split by isolation level)",
                METHOD_SHAPES + " (shape C: training + inference + interactive dev)",
                shape="C",
            ),
        ),
    ),
    ExpertProfile(
        name="training-lab-a100",
        title="Single-tenant training lab: 16 nodes x 8 A100 80GB, training + batch, throughput",
        profile={
            "workload_types": ["training", "batch"],
            "primary_objective": "throughput",
            "jitter_tolerance": "high",
            "isolation": "none",
            "failure_semantics": "degrade",
            "tenancy": "single",
            "gpu_model": "A100 80GB",
            "gpu_memory_gb": 80,
            "node_count": 16,
            "kubernetes_version": "1.32",
            "priorities": ["cost", "compatibility", "observability"],
        },
        source="METHOD shape A: whole GPUs or MIG, queues + gang, metering for capacity planning.",
        expectations=(
            *sound(),
            *TRAINING,
            each(
                "offers_signals",
                "meters GPU usage for capacity planning",
                METHOD_SHAPES + " (shape A data plane: metering for capacity planning)",
            ),
            first("shape_is", "is shape A (training / batch first)", METHOD_SHAPES, shape="A"),
        ),
    ),
    ExpertProfile(
        name="mi300x-fleet",
        title="AMD MI300X fleet: 8 nodes x 8 MI300X, training + online inference, one team",
        profile={
            "workload_types": ["training", "online_inference"],
            "primary_objective": "throughput",
            "p99_target_ms": 800,
            "jitter_tolerance": "medium",
            "isolation": "none",
            "failure_semantics": "degrade",
            "tenancy": "single",
            "gpu_model": "MI300X",
            "gpu_memory_gb": 192,
            "node_count": 8,
            "kubernetes_version": "1.32",
            "priorities": ["compatibility", "cost"],
        },
        source="Only AMD or vendor-neutral rows; AMD partitions are not MIG; no NVIDIA MIG rows.",
        expectations=(
            *sound("amd"),
            *TRAINING,
            each("no_mig", "has no MIG row or MIG unit", AMD + " ; " + MIG_GPUS),
            each(
                "preemption_protects_inference",
                "lets inference preempt training it shares a pool with",
                PREEMPTION,
            ),
            p99(800),
            ranking(
                "left_out_mentions",
                "says NVIDIA-only rows were left out for the MI300X",
                AMD,
                groups=(("nvidia", "mig"), ("mi300x", "amd")),
            ),
        ),
    ),
    ExpertProfile(
        name="mi300x-university",
        title=(
            "University MI300X cluster: 16 nodes x 8 MI300X, four departments, night training "
            "and course notebooks that must not see each other, Kubernetes 1.32"
        ),
        profile={
            "primary_objective": "cost",
            "jitter_tolerance": "high",
            "isolation": "soft",
            "failure_semantics": "degrade",
            "kubernetes_version": "1.32",
            "priorities": ["cost", "isolation"],
            "node_groups": [
                {"name": "mi300x", "gpu_model": "MI300X", "nodes": 16, "gpus_per_node": 8}
            ],
            "tenants": [
                {
                    "name": "physics",
                    "workloads": ["training"],
                    "demand": [{"workload": "training", "gpus": 32, "when": "window"}],
                },
                {
                    "name": "chemistry",
                    "workloads": ["training"],
                    "demand": [{"workload": "training", "gpus": 16, "when": "window"}],
                },
                {
                    "name": "cs-courses",
                    "workloads": ["interactive"],
                    "cross_tenant_sharing": "hard_partitions",
                    "demand": [
                        {
                            "workload": "interactive",
                            "replicas": 40,
                            "gpus_per_replica": 1,
                            "when": "always",
                        }
                    ],
                },
                {
                    "name": "linguistics",
                    "workloads": ["interactive"],
                    "cross_tenant_sharing": "hard_partitions",
                    "demand": [
                        {
                            "workload": "interactive",
                            "replicas": 8,
                            "gpus_per_replica": 1,
                            "when": "always",
                        }
                    ],
                },
            ],
        },  # fmt: skip
        source=(
            "An MI300X is cut into AMD's own compute/memory partitions (CPX gives 8 logical "
            "GPUs), not MIG: notebooks get AMD partitions, training whole GPUs, and nothing on "
            "the page speaks of MIG."
        ),
        expectations=(
            *sound("amd"),
            *TRAINING,
            each("no_mig", "has no MIG row or MIG unit", AMD + " ; " + MIG_GPUS),
            each(
                "shares_gpus_for",
                "gives notebooks AMD partitions",
                AMD,
                workload="interactive",
                units=("amd_partition",),
            ),
            each("never_says", "never speaks of MIG for AMD GPUs", AMD, words=("MIG",)),
            each("every_group_hosts_a_pool", "puts a pool on every node group", PROFILE_V2),
            each("tenants_by_work", "names, per pool, the tenants whose work it runs", PROFILE_V2),
        ),
    ),
    ExpertProfile(
        name="l40s-inference-3-teams",
        title="L40S inference fleet: 12 nodes, 3 product teams, p99 < 150 ms, hard isolation",
        profile={
            "workload_types": ["online_inference"],
            "primary_objective": "p99_latency",
            "p99_target_ms": 150,
            "jitter_tolerance": "low",
            "isolation": "hard",
            "failure_semantics": "incident",
            "tenancy": "multi",
            "tenant_count": 3,
            "gpu_model": "L40S",
            "gpu_memory_gb": 48,
            "node_count": 12,
            "kubernetes_version": "1.32",
            "priorities": ["isolation", "observability", "cost"],
        },
        source=(
            "L40S has no MIG, so no hard partitions exist: tenants get whole GPUs (or soft "
            "sharing inside one tenant's pool), never a soft-sharing pool across tenants."
        ),
        expectations=(
            *sound(),
            *HARD_TENANTS,
            each("no_mig", "uses no MIG (the L40S has none)", MIG_GPUS, strict=True),
            each(
                "inference_on_hard_units",
                "serves inference on whole GPUs",
                MIG_GPUS + " ; " + DEVICE_PLUGIN_SHARING,
            ),
            each("isolation_per_workload", "isolates inference hard", DESIGN_PROFILE),
            each(
                "offers_signals",
                "makes P99 and interference observable",
                METHOD_SHAPES + " (shape B: observable P99 and interference signals)",
            ),
            p99(150),
            ranking(
                "left_out_mentions",
                "says MIG was left out because the L40S has none",
                MIG_GPUS,
                groups=(("mig",), ("l40s",)),
            ),
        ),
    ),
    ExpertProfile(
        name="ascend-910b-training",
        title="Huawei Ascend 910B: 16 nodes x 8 NPUs, training + batch, 3 teams, soft isolation",
        profile={
            "workload_types": ["training", "batch"],
            "primary_objective": "throughput",
            "jitter_tolerance": "high",
            "isolation": "soft",
            "failure_semantics": "degrade",
            "tenancy": "multi",
            "tenant_count": 3,
            "gpu_model": "Ascend 910B",
            "gpu_memory_gb": 64,
            "node_count": 16,
            "kubernetes_version": "1.31",
            "priorities": ["compatibility", "cost"],
        },
        source="Ascend Device Plugin presents the NPUs; no NVIDIA row has anything to present.",
        expectations=(
            *sound("huawei"),
            *TRAINING,
            each(
                "governor_has",
                "puts each pool under a governor with per-team quota",
                QUOTA,
                functions=("quota",),
            ),
            first("shape_is", "is shape A (training / batch first)", METHOD_SHAPES, shape="A"),
            ranking(
                "left_out_mentions",
                "says NVIDIA rows were left out for the Ascend NPUs",
                ASCEND,
                groups=(("nvidia",), ("ascend", "910b", "huawei", "npu")),
            ),
        ),
    ),
    ExpertProfile(
        name="h100-inference-single-tenant-soft",
        title="H100 inference for one team: many small models, p99 < 100 ms, soft isolation",
        profile={
            "workload_types": ["online_inference"],
            "primary_objective": "p99_latency",
            "p99_target_ms": 100,
            "jitter_tolerance": "medium",
            "isolation": "soft",
            "failure_semantics": "degrade",
            "tenancy": "single",
            "gpu_model": "H100 80GB",
            "gpu_memory_gb": 80,
            "node_count": 6,
            "kubernetes_version": "1.32",
            "priorities": ["cost", "observability"],
        },
        source=(
            "One tenant, soft isolation: HAMi-style memory + compute quotas are fine (memory "
            "hard, compute soft); time-slicing shares memory, so it is below soft."
        ),
        expectations=(
            *sound(),
            each(
                "isolation_per_workload",
                "isolates inference at least soft (no plain time-slicing)",
                DEVICE_PLUGIN_SHARING + " ; " + HAMI,
            ),
            each(
                "offers_signals",
                "makes P99 and interference observable",
                METHOD_SHAPES + " (shape B: observable P99 and interference signals)",
            ),
            p99(100),
            any_of(
                "shares_gpus_for",
                "shares GPUs HAMi-style (memory + compute quota)",
                HAMI + " ; " + METHOD_SHAPES + " (shape B data plane, e.g. HAMi)",
                workload="online_inference",
                units=("memory_compute_quota", "vgpu", "mps_share"),
            ),
            first("shape_is", "is shape B (inference first)", METHOD_SHAPES, shape="B"),
        ),
    ),
    ExpertProfile(
        name="bank-4-units-never-share",
        title=(
            "Bank: 4 business units, fraud scoring p99 < 50 ms + nightly batch scoring on A100s; "
            "a GPU must never serve two units at once"
        ),
        profile={
            "workload_types": ["online_inference", "batch"],
            "time_windows": {"online_inference": "always", "batch": "night"},
            "primary_objective": "p99_latency",
            "p99_target_ms": 50,
            "jitter_tolerance": "low",
            "isolation": "hard",
            "failure_semantics": "incident",
            "tenancy": "multi",
            "tenant_count": 4,
            "cross_tenant_sharing": "never",
            "gpu_model": "A100 80GB",
            "gpu_memory_gb": 80,
            "node_count": 10,
            "kubernetes_version": "1.32",
            "priorities": ["isolation", "compatibility", "observability"],
        },
        source=(
            "cross_tenant_sharing never: a GPU serves one tenant at a time, so MIG slices are "
            "per-tenant (within_tenant) and shared pools are per tenant; whole GPUs are fine."
        ),
        expectations=(
            *sound(),
            *HARD_TENANTS,
            each(
                "inference_on_hard_units",
                "serves inference on MIG slices or whole GPUs",
                MIG_ISOLATION + " ; " + DEVICE_PLUGIN_SHARING,
            ),
            each("isolation_per_workload", "isolates inference and batch hard", DESIGN_PROFILE),
            each(
                "training_on_whole_gpus",
                "runs batch on whole GPUs or MIG slices",
                METHOD_SHAPES + " (shape A data plane: whole GPUs or hard partitions)",
            ),
            each(
                "preemption_protects_inference",
                "lets inference preempt batch it shares a pool with",
                PREEMPTION,
            ),
            each(
                "offers_signals",
                "makes P99 and interference observable",
                METHOD_SHAPES + " (shape B: observable P99 and interference signals)",
            ),
            p99(50),
        ),
    ),
    ExpertProfile(
        name="university-5-labs-notebooks-soft",
        title=(
            "University: 5 labs on A100 40GB, training kept hard apart, notebooks may share "
            "GPUs softly within a lab"
        ),
        profile={
            "workload_types": ["training", "interactive"],
            "time_windows": {"interactive": "business_hours"},
            "primary_objective": "throughput",
            "jitter_tolerance": "high",
            "isolation": "hard",
            "workload_isolation": {"interactive": "soft"},
            "failure_semantics": "degrade",
            "tenancy": "multi",
            "tenant_count": 5,
            "gpu_model": "A100 40GB",
            "gpu_memory_gb": 40,
            "node_count": 20,
            "kubernetes_version": "1.32",
            "priorities": ["cost", "isolation"],
        },
        source=(
            "workload_isolation interactive: soft relaxes notebooks only, and only within a lab: "
            "cross-tenant sharing stays hard_partitions (default for multi + hard)."
        ),
        expectations=(
            *sound(),
            *HARD_TENANTS,
            *TRAINING,
            each(
                "interactive_on_fractions",
                "gives notebooks fractions of a GPU",
                METHOD_SHAPES + " (shape C shared pool)",
            ),
            each(
                "isolation_per_workload",
                "isolates training hard and notebooks at least soft",
                DESIGN_PROFILE + " ; " + DEVICE_PLUGIN_SHARING,
            ),
            any_of(
                "shares_gpus_for",
                "lets notebooks share GPUs softly (within a lab)",
                DESIGN_PROFILE
                + " ; "
                + HAMI
                + " ; "
                + METHOD_SHAPES
                + " (shape C: shared pool via HAMi or time slicing)",
                workload="interactive",
                units=("memory_compute_quota", "vgpu", "mps_share"),
            ),
        ),
    ),
    ExpertProfile(
        name="k8s-1.30-h100-training",
        title="Enterprise still on Kubernetes 1.30: H100 training + batch for 3 teams",
        profile={
            "workload_types": ["training", "batch"],
            "primary_objective": "throughput",
            "jitter_tolerance": "medium",
            "isolation": "soft",
            "failure_semantics": "degrade",
            "tenancy": "multi",
            "tenant_count": 3,
            "gpu_model": "H100 80GB",
            "gpu_memory_gb": 80,
            "node_count": 8,
            "kubernetes_version": "1.30",
            "priorities": ["compatibility", "cost"],
        },
        source="DRA is alpha on 1.30 (structured parameters), so no stack may need it.",
        expectations=(
            *sound(),
            *TRAINING,
            each("no_dra", "needs no DRA (alpha on 1.30)", DRA_GATE),
            each(
                "governor_has",
                "puts each pool under a governor with per-team quota",
                QUOTA,
                functions=("quota",),
            ),
        ),
    ),
    ExpertProfile(
        name="gb200-nvl72-k8s-1.34",
        title=(
            "GB200 NVL72 rack on Kubernetes 1.34: 18 nodes x 4 GPUs, multi-node training over "
            "the NVLink fabric"
        ),
        profile={
            "workload_types": ["training"],
            "primary_objective": "throughput",
            "jitter_tolerance": "medium",
            "isolation": "none",
            "failure_semantics": "degrade",
            "tenancy": "single",
            "gpu_model": "GB200",
            "gpu_memory_gb": 186,
            "node_count": 18,
            "kubernetes_version": "1.34",
            "priorities": ["compatibility", "observability"],
        },
        source=(
            "DRA is GA on 1.34, so a DRA-based stack is acceptable; on GB200 NVL72 Multi-Node "
            "NVLink needs ComputeDomains (IMEX channels) from NVIDIA's DRA driver."
        ),
        expectations=(
            *sound(),
            *TRAINING,
            each(
                "provides_interface",
                "gives jobs a ComputeDomain (Multi-Node NVLink)",
                COMPUTE_DOMAINS,
                pattern="crd:resource.nvidia.com/*/ComputeDomain",
            ),
        ),
    ),
    ExpertProfile(
        name="cost-first-batch-8-teams",
        title="Cost-first batch platform: nightly GPU batch jobs for 8 teams on A100 40GB",
        profile={
            "workload_types": ["batch"],
            "time_windows": {"batch": "night"},
            "primary_objective": "cost",
            "jitter_tolerance": "high",
            "isolation": "soft",
            "failure_semantics": "degrade",
            "tenancy": "multi",
            "tenant_count": 8,
            "gpu_model": "A100 40GB",
            "gpu_memory_gb": 40,
            "node_count": 12,
            "kubernetes_version": "1.32",
            "priorities": ["cost", "observability", "compatibility"],
        },
        source=(
            "Cost first: quotas that lend idle GPUs between teams and take them back, whole GPUs "
            "or MIG for batch, usage metered for chargeback and capacity planning."
        ),
        expectations=(
            *sound(),
            each(
                "training_on_whole_gpus",
                "runs batch on whole GPUs or MIG slices",
                METHOD_SHAPES + " (shape A data plane: whole GPUs or hard partitions)",
            ),
            each(
                "governor_has",
                "puts each pool under a governor that lends idle quota",
                BORROWING,
                functions=("quota", "fair_sharing"),
            ),
            each(
                "offers_signals",
                "meters GPU usage per team",
                METHOD_SHAPES
                + " (shape A: metering for capacity planning; shape C: cost visibility)",
            ),
            first("shape_is", "is shape A (batch first)", METHOD_SHAPES, shape="A"),
        ),
    ),
    ExpertProfile(
        name="mixed-platform-abc",
        title=(
            "Mid-size AI platform, objective open: training and online inference for 3 teams "
            "on H100, soft isolation, sharing across teams allowed"
        ),
        profile={
            "workload_types": ["training", "online_inference"],
            "p99_target_ms": 500,
            "jitter_tolerance": "medium",
            "isolation": "soft",
            "failure_semantics": "degrade",
            "tenancy": "multi",
            "tenant_count": 3,
            "cross_tenant_sharing": "allowed",
            "gpu_model": "H100 80GB",
            "gpu_memory_gb": 80,
            "node_count": 16,
            "kubernetes_version": "1.32",
            "priorities": ["cost", "isolation", "observability", "compatibility"],
        },
        source=(
            "No primary objective: training-first (A), inference-first (B) and split pools (C) "
            "are all defensible, so an expert shows one of each. (Notebooks are left out on "
            "purpose: a notebook wants a fraction of a GPU, so a one-pool-of-whole-GPUs shape A "
            "is no answer for them — METHOD's shape table puts interactive work on a shared "
            "pool.)"
        ),
        expectations=(
            *sound(),
            each("gang_for", "gang-schedules training", GANG, kinds=("training",)),
            each(
                "governor_has",
                "puts each pool under a governor with per-team quota",
                QUOTA,
                functions=("quota",),
            ),
            each(
                "preemption_protects_inference",
                "lets inference preempt training it shares a pool with",
                PREEMPTION,
            ),
            each(
                "isolation_per_workload",
                "isolates every workload at least soft",
                DEVICE_PLUGIN_SHARING + " ; " + HAMI,
            ),
            p99(500),
            top3(
                "shapes_cover", "include shapes A, B and C", METHOD_SHAPES, shapes=("A", "B", "C")
            ),
        ),
    ),
    ExpertProfile(
        name="l4-cost-inference-single-tenant",
        title="L4 inference for one team, cost first, jitter tolerated, no isolation needed",
        profile={
            "workload_types": ["online_inference"],
            "primary_objective": "cost",
            "p99_target_ms": 1000,
            "jitter_tolerance": "high",
            "isolation": "none",
            "failure_semantics": "degrade",
            "tenancy": "single",
            "gpu_model": "L4",
            "gpu_memory_gb": 24,
            "node_count": 10,
            "kubernetes_version": "1.32",
            "priorities": ["cost", "compatibility"],
        },
        source=(
            "No MIG on L4; one tenant, cost first and jitter tolerated: sharing a GPU by "
            "time-slicing, MPS or memory quotas beats idle GPUs."
        ),
        expectations=(
            *sound(),
            each("no_mig", "uses no MIG (the L4 has none)", MIG_GPUS, strict=True),
            p99(1000),
            any_of(
                "shares_gpus_for",
                "shares GPUs between models",
                DEVICE_PLUGIN_SHARING + " ; " + HAMI,
                workload="online_inference",
                units=("time_slice", "mps_share", "memory_compute_quota", "vgpu"),
            ),
            ranking(
                "left_out_mentions",
                "says MIG was left out because the L4 has none",
                MIG_GPUS,
                groups=(("mig",), ("l4",)),
            ),
        ),
    ),
    ExpertProfile(
        name="hospital-a100-l4-kueue",
        title=(
            "Hospital platform: 6 nodes x 4 A100 40GB and 4 nodes x 2 L4 on Kubernetes 1.31 with "
            "Kueue 0.10.1 installed; clinical inference never shares a GPU, research fine-tunes "
            "at night, students use notebooks"
        ),
        profile={
            "primary_objective": "p99_latency",
            "p99_target_ms": 200,
            "jitter_tolerance": "low",
            "isolation": "hard",
            "failure_semantics": "incident",
            "kubernetes_version": "1.31",
            "priorities": ["isolation", "compatibility", "observability", "cost"],
            "node_groups": [
                {"name": "a100", "gpu_model": "A100 40GB", "nodes": 6, "gpus_per_node": 4},
                {"name": "l4", "gpu_model": "L4", "nodes": 4, "gpus_per_node": 2},
            ],
            "tenants": [
                {
                    "name": "clinical",
                    "workloads": ["online_inference"],
                    "cross_tenant_sharing": "never",
                    "demand": [{"workload": "online_inference", "replicas": 12, "when": "always"}],
                },
                {
                    "name": "research",
                    "workloads": ["training"],
                    "demand": [{"workload": "training", "gpus": 16, "when": "window"}],
                },
                {
                    "name": "students",
                    "workloads": ["interactive"],
                    "demand": [
                        {"workload": "interactive", "replicas": 30, "mig_profile": "1g.10gb"}
                    ],
                },
            ],
            "installed": [{"project": "kueue", "version": "0.10.1"}],
        },
        source=(
            "Two GPU models: the L4s have no MIG and must not vanish; each tenant's pool serves "
            "that tenant's work; clinical never shares a GPU; Kueue is installed, so the first "
            "answer keeps it; the top three are different data planes."
        ),
        expectations=(
            *sound(),
            *TRAINING,
            each("every_group_hosts_a_pool", "puts a pool on every node group", PROFILE_V2),
            each("no_mig_on_group", "uses no MIG on the L4 group", MIG_GPUS, group="l4"),
            each("tenants_by_work", "names, per pool, the tenants whose work it runs", PROFILE_V2),
            each(
                "tenant_rules_kept",
                "never shares a GPU of the clinical tenant with another tenant",
                DESIGN_PROFILE,
            ),
            each("demand_lands", "lands each tenant's demand in a pool serving it", PROFILE_V2),
            each(
                "inference_on_hard_units",
                "serves clinical inference on hard units",
                MIG_ISOLATION,
            ),
            each("interactive_on_fractions", "gives notebooks fractions of a GPU", METHOD_SHAPES),
            p99(200),
            first("keeps_installed_governor", "keeps the installed Kueue", PROFILE_V2),
            ranking(
                "distinct_planes_top3",
                "offers three data planes, not one under three governors",
                METHOD_SHAPES + " ; " + PROFILE_V2,
            ),
            ranking(
                "left_out_mentions",
                "says MIG is not used on the L4 group",
                MIG_GPUS,
                groups=(("mig",), ("l4",)),
            ),
        ),
    ),
    ExpertProfile(
        name="mixed-fleet-h100-l40s",
        title=(
            "H100 + L40S fleet: 3 nodes x 8 H100 for training, 4 nodes x 4 L40S; three teams, "
            "hard isolation between them, Kubernetes 1.32"
        ),
        profile={
            "primary_objective": "throughput",
            "p99_target_ms": 300,
            "jitter_tolerance": "medium",
            "isolation": "hard",
            "failure_semantics": "degrade",
            "kubernetes_version": "1.32",
            "priorities": ["isolation", "observability", "compatibility", "cost"],
            "node_groups": [
                {"name": "h100", "gpu_model": "H100 80GB", "nodes": 3, "gpus_per_node": 8},
                {"name": "l40s", "gpu_model": "L40S", "nodes": 4, "gpus_per_node": 4},
            ],
            "tenants": [
                {"name": "ml-platform", "workloads": ["training"]},
                {"name": "search", "workloads": ["online_inference"]},
                {"name": "ads", "workloads": ["online_inference"]},
            ],
        },
        source=(
            "Training across GPUs wants NVLink (H100 HGX), the L40S is PCIe-only without MIG: "
            "training on the H100 group, no MIG on the L40S group, every GPU used."
        ),
        expectations=(
            *sound(),
            *TRAINING,
            each("every_group_hosts_a_pool", "puts a pool on every node group", PROFILE_V2),
            each("no_mig_on_group", "uses no MIG on the L40S group", L40S_PCIE, group="l40s"),
            each(
                "work_on_groups",
                "trains on the H100 group",
                L40S_PCIE + " ; " + MIG_NO_P2P,
                workload="training",
                groups=("h100",),
            ),
            each("tenants_by_work", "names, per pool, the tenants whose work it runs", PROFILE_V2),
            each("inference_on_hard_units", "serves inference on hard units", MIG_ISOLATION),
            ranking(
                "left_out_mentions",
                "says MIG is not used on the L40S group",
                L40S_PCIE,
                groups=(("mig",), ("l40s",)),
            ),
        ),
    ),
    ExpertProfile(
        name="gaudi3-training-k8s-1.34",
        title="Intel Gaudi 3 training cluster: 4 nodes x 8 Gaudi 3, one team, Kubernetes 1.34",
        profile={
            "workload_types": ["training"],
            "primary_objective": "throughput",
            "isolation": "none",
            "failure_semantics": "degrade",
            "tenancy": "single",
            "kubernetes_version": "1.34",
            "priorities": ["compatibility", "observability"],
            "node_groups": [
                {"name": "gaudi", "gpu_model": "Gaudi 3", "nodes": 4, "gpus_per_node": 8}
            ],
        },
        source=(
            "Gaudi 3 is Intel's; the Gaudi DRA driver presents it, no NVIDIA, AMD or Intel GPU "
            "device plugin can; training on whole devices with gang."
        ),
        expectations=(
            *sound("intel"),
            each("gang_for", "gang-schedules training", GANG, kinds=("training",)),
            each("training_on_whole_gpus", "trains on whole devices", INTEL_GAUDI + " ; " + GANG),
            ranking(
                "left_out_mentions",
                "says NVIDIA rows were left out for the Gaudi 3",
                INTEL_GAUDI,
                groups=(("nvidia-device-plugin", "NVIDIA"), ("Gaudi",)),
            ),
        ),
    ),
    ExpertProfile(
        name="gb200-nvl72-two-teams",
        title=(
            "GB200 NVL72 rack shared by two research teams on Kubernetes 1.34: multi-node "
            "training over the NVLink fabric"
        ),
        profile={
            "primary_objective": "throughput",
            "isolation": "soft",
            "failure_semantics": "degrade",
            "kubernetes_version": "1.34",
            "priorities": ["compatibility", "observability", "isolation"],
            "node_groups": [
                {"name": "nvl72", "gpu_model": "GB200", "nodes": 18, "gpus_per_node": 4}
            ],
            "tenants": [
                {"name": "llm", "workloads": ["training"]},
                {"name": "vision", "workloads": ["training"]},
            ],
        },
        source=(
            "A job across nodes must stay in one NVLink domain with a ComputeDomain: the "
            "governor places by topology, and acceptance tests IMEX and cross-node NCCL."
        ),
        expectations=(
            *sound(),
            *TRAINING,
            each(
                "provides_interface",
                "gives jobs a ComputeDomain (Multi-Node NVLink)",
                COMPUTE_DOMAINS,
                pattern="crd:resource.nvidia.com/*/ComputeDomain",
            ),
            each("topology_governor", "places training by topology", TOPOLOGY),
            each(
                "checks_mention",
                "tests the ComputeDomain and NCCL across nodes",
                MNNVL_CHECKS,
                groups=(("ComputeDomain", "IMEX"), ("NCCL",)),
            ),
            each("tenants_by_work", "names, per pool, the tenants whose work it runs", PROFILE_V2),
            ranking(
                "distinct_planes_top3",
                "offers other data planes, or says that none other fits",
                METHOD_SHAPES + " ; " + PROFILE_V2,
            ),
        ),
    ),
    ExpertProfile(
        name="l4-edge-sites",
        title=(
            "Edge sites: 3 nodes x 1 L4 running video inference and a nightly batch, one team, "
            "Kubernetes 1.31, cost first"
        ),
        profile={
            "workload_types": ["online_inference", "batch"],
            "time_windows": {"online_inference": "always", "batch": "night"},
            "primary_objective": "cost",
            "p99_target_ms": 250,
            "jitter_tolerance": "medium",
            "isolation": "soft",
            "failure_semantics": "degrade",
            "tenancy": "single",
            "kubernetes_version": "1.31",
            "priorities": ["cost", "compatibility"],
            "node_groups": [{"name": "edge", "gpu_model": "L4", "nodes": 3, "gpus_per_node": 1}],
        },
        source=(
            "No MIG on the L4, no DRA by default on 1.31; three single-GPU nodes: every pool on "
            "the one group, P99 checked on inference."
        ),
        expectations=(
            *sound(),
            each("no_mig", "uses no MIG (the L4 has none)", MIG_GPUS, strict=True),
            each("no_dra", "needs no DRA (off by default on 1.31)", DRA_GATE),
            each("every_group_hosts_a_pool", "puts its pools on the edge group", PROFILE_V2),
            p99(250),
            ranking(
                "left_out_mentions",
                "says MIG was left out because the L4 has none",
                MIG_GPUS,
                groups=(("mig",), ("l4",)),
            ),
        ),
    ),
)
PROFILES_BY_NAME: dict[str, ExpertProfile] = {p.name: p for p in PROFILES}
