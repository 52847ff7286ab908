"""The seeded vocabulary of DESIGN.md with English and Simplified Chinese names.

The tables are admin-editable after seeding; this module is only the starting point (used by the
seed migration) and the source of the fixed, non-table choices.
"""

from __future__ import annotations

from typing import NamedTuple


class Term(NamedTuple):
    key: str
    name_en: str
    name_zh: str
    description_en: str
    description_zh: str


LAYERS: tuple[Term, ...] = (
    Term(
        "platform",
        "Platform",
        "平台层",
        "How is it delivered and operated end to end? Lifecycle of drivers, runtimes and plugins, "
        "multi-cluster, permissions, billing, audit, self-service.",
        "如何端到端交付与运维？驱动/运行时/插件的生命周期、多集群、权限、计费、审计、自助服务。",
    ),
    Term(
        "control_plane",
        "Control plane",
        "控制面",
        "Who gets it, how much, how long, may it enter? Queues and admission, quotas and fair "
        "sharing, priority and preemption, gang scheduling.",
        "谁能用、用多少、用多久、能否进入？队列与准入、配额与公平共享、优先级与抢占、成组调度。",
    ),
    Term(
        "data_plane",
        "Data plane",
        "数据平面",
        "What is the resource, and how is it shared and observed on the node? Device discovery, "
        "slicing and virtualisation, isolation, observability and metering.",
        "资源是什么，在节点上如何被共享与观测？设备发现、切分与虚拟化、隔离、可观测与计量。",
    ),
)

RESOURCE_UNITS: tuple[Term, ...] = (
    Term(
        "whole_gpu",
        "Whole GPU",
        "整卡",
        "One physical GPU per request.",
        "每次请求一整块物理 GPU。",
    ),
    Term(
        "mig_slice",
        "MIG slice",
        "MIG 切片",
        "A hardware partition of an NVIDIA GPU (Multi-Instance GPU): hard memory and compute "
        "isolation, reconfiguration needs the GPU drained.",
        "NVIDIA GPU 的硬件分区（多实例 GPU）：显存与算力硬隔离，重新切分需要清空该卡。",
    ),
    Term(
        "amd_partition",
        "AMD partition",
        "AMD 分区",
        "A logical GPU of an AMD Instinct GPU in a compute/memory partition mode (CPX, NPS4 ...): "
        "its own compute dies and, under NPS4, its own memory; no per-partition fault "
        "containment is promised; changing the mode needs the GPU drained.",
        "AMD Instinct GPU 在计算/显存分区模式（CPX、NPS4 等）下呈现的逻辑 GPU：独占计算芯粒，"
        "NPS4 下独占显存；不承诺分区级故障隔离；切换模式需要清空该卡。",
    ),
    Term(
        "vgpu",
        "vGPU",
        "vGPU",
        "A virtual GPU presented by a virtualisation layer (hypervisor or software).",
        "由虚拟化层（虚拟机监控器或软件）呈现的虚拟 GPU。",
    ),
    Term(
        "time_slice",
        "Time slice",
        "时间片",
        "Several workloads take turns on one GPU. A sharing policy, not a partition: isolation "
        "depends on workload behaviour.",
        "多个负载轮流使用一块 GPU。是共享策略而非硬分区：隔离效果取决于负载行为。",
    ),
    Term(
        "mps_share",
        "MPS share",
        "MPS 份额",
        "A share of a GPU through CUDA Multi-Process Service: concurrent kernels, limited fault "
        "isolation.",
        "通过 CUDA 多进程服务（MPS）共享 GPU：内核并发执行，故障隔离有限。",
    ),
    Term(
        "memory_compute_quota",
        "Memory + compute quota",
        "显存 + 算力配额",
        "A memory limit and a compute share enforced in software, usually by intercepting CUDA.",
        "由软件（通常是 CUDA 拦截）强制执行的显存上限与算力份额。",
    ),
    Term(
        "dra_claim",
        "DRA device claim",
        "DRA 设备申领",
        "A device claimed through Kubernetes Dynamic Resource Allocation (ResourceClaim).",
        "通过 Kubernetes 动态资源分配（ResourceClaim）申领的设备。",
    ),
    Term(
        "none",
        "No unit",
        "无资源单位",
        "The component presents no resource unit (e.g. a metrics exporter).",
        "该组件不呈现资源单位（例如指标导出器）。",
    ),
)

ENFORCEMENT_POINTS: tuple[Term, ...] = (
    Term(
        "driver_hardware",
        "Driver / kernel / hardware",
        "驱动/内核/硬件",
        "Strong but heavy: rules are enforced by the driver, the kernel or the GPU itself.",
        "强但重：规则由驱动、内核或 GPU 硬件本身执行。",
    ),
    Term(
        "runtime_interception",
        "Runtime and interception",
        "运行时与拦截层",
        "Flexible, needs engineering safety nets: rules are enforced in the container runtime "
        "or by intercepting API calls.",
        "灵活，但需要工程兜底：规则在容器运行时或 API 调用拦截中执行。",
    ),
    Term(
        "scheduler",
        "Kubernetes scheduler",
        "Kubernetes 调度器",
        "Governance at placement time; does not change contention inside the node.",
        "在调度时治理；不改变节点内部的资源争用。",
    ),
    Term(
        "admission",
        "Admission control",
        "准入控制",
        "Rules enforced when work is admitted (quotas, queues, webhooks).",
        "在工作负载准入时执行规则（配额、队列、Webhook）。",
    ),
    Term(
        "platform",
        "Platform orchestration and operations",
        "平台编排与运维",
        "Good experience, but depends on the layers below.",
        "体验好，但依赖下层能力。",
    ),
)


def seed_vocabulary(layer_model, unit_model, point_model) -> None:
    """Create any missing seeded term (idempotent); models are passed in so migrations can
    hand over their historical models."""
    for model, terms in ((layer_model, LAYERS), (unit_model, RESOURCE_UNITS),
                         (point_model, ENFORCEMENT_POINTS)):  # fmt: skip
        for position, term in enumerate(terms):
            model.objects.get_or_create(
                key=term.key,
                defaults={
                    "name_en": term.name_en,
                    "name_zh": term.name_zh,
                    "description_en": term.description_en,
                    "description_zh": term.description_zh,
                    "position": position,
                },
            )


class FunctionTerm(NamedTuple):
    key: str
    layer: str
    name_en: str
    name_zh: str
    description_en: str
    description_zh: str


# What question a row answers (METHOD step 3: "what the project can and cannot solve"); two rows
# are alternatives only when they share one. Keys match catalog.engine.functions.FUNCTION_LAYERS.
FUNCTIONS: tuple[FunctionTerm, ...] = (
    FunctionTerm("present", "data_plane", "Resource presentation", "资源呈现",
                 "Advertises a resource unit to the kubelet and owns the node's devices.",
                 "向 kubelet 通告资源单位，并管理节点上的设备。"),
    FunctionTerm("partition", "data_plane", "Partitioning", "切分",
                 "Changes the hardware layout of the devices, e.g. the MIG geometry.",
                 "改变设备的硬件布局，例如 MIG 切分方式。"),
    FunctionTerm("isolate", "data_plane", "Isolation", "隔离",
                 "Enforces per-container limits (memory, compute) at run time.",
                 "在运行时强制执行每个容器的限制（显存、算力）。"),
    FunctionTerm("observe", "data_plane", "Observability", "可观测",
                 "Exports device and workload metrics for SLOs, metering and audit.",
                 "导出设备与负载指标，用于 SLO、计量与审计。"),
    FunctionTerm("label", "data_plane", "Node labelling", "节点标注",
                 "Publishes node facts (GPU model, memory, MIG capability) as labels.",
                 "以标签形式发布节点事实（GPU 型号、显存、MIG 能力）。"),
    FunctionTerm("runtime", "data_plane", "Container runtime", "容器运行时",
                 "Gives containers their devices: runtime hooks, CDI injection.",
                 "为容器注入设备：运行时钩子、CDI 注入。"),
    FunctionTerm("quota", "control_plane", "Quota", "配额",
                 "Per-team or per-queue limits on resources, enforced at admission.",
                 "按团队或队列限制资源用量，在准入时执行。"),
    FunctionTerm("fair_sharing", "control_plane", "Fair sharing", "公平共享",
                 "Borrowing and reclaiming between queues by weight.",
                 "按权重在队列之间借用与回收资源。"),
    FunctionTerm("preemption", "control_plane", "Preemption", "抢占",
                 "Evicting lower-priority work for higher-priority work.",
                 "为高优先级任务驱逐低优先级任务。"),
    FunctionTerm("gang", "control_plane", "Gang scheduling", "成组调度",
                 "All-or-nothing placement of a group of pods.",
                 "一组 Pod 要么全部调度，要么都不调度。"),
    FunctionTerm("device_placement", "control_plane", "Device placement", "设备放置",
                 "Chooses the node and the device for a device request (binpack, spread, "
                 "topology); a helper, not governance.",
                 "为设备请求选择节点与具体设备（装箱、打散、拓扑）；是辅助功能，不是治理。"),
    FunctionTerm("allocation", "control_plane", "Claim allocation", "申领分配",
                 "Resolves device claims against published devices (e.g. DRA).",
                 "根据已发布的设备解析设备申领（例如 DRA）。"),
    FunctionTerm("lifecycle_operator", "platform", "Lifecycle operation", "生命周期运维",
                 "Installs, upgrades and validates drivers, runtimes and plugins.",
                 "安装、升级并验证驱动、运行时与插件。"),
    FunctionTerm("workload_operator", "platform", "Workload operation", "负载编排",
                 "Runs a kind of workload (training jobs, Ray clusters, job sets) as resources.",
                 "以资源对象的方式运行一类负载（训练任务、Ray 集群、任务集）。"),
    FunctionTerm("serving", "platform", "Model serving", "模型服务",
                 "Deploys and scales inference services.",
                 "部署并伸缩推理服务。"),
    FunctionTerm("cost", "platform", "Cost metering", "成本计量",
                 "Attributes resource usage and cost to teams and workloads.",
                 "把资源用量与成本归属到团队与负载。"),
    FunctionTerm("self_service", "platform", "Self-service", "自助服务",
                 "Lets users request and manage resources through a product UI or API.",
                 "让用户通过产品界面或 API 申请并管理资源。"),
    FunctionTerm("virtualization", "platform", "Virtual machines", "虚拟机",
                 "Runs virtual machines with GPUs on Kubernetes.",
                 "在 Kubernetes 上运行带 GPU 的虚拟机。"),
)  # fmt: skip


def seed_functions(function_model, layer_model) -> None:
    """Create any missing seeded function (idempotent); models are passed in so migrations can
    hand over their historical models."""
    layer_ids = dict(layer_model.objects.values_list("key", "id"))
    for position, term in enumerate(FUNCTIONS):
        if term.layer in layer_ids:
            function_model.objects.get_or_create(
                key=term.key,
                defaults={
                    "layer_id": layer_ids[term.layer],
                    "name_en": term.name_en,
                    "name_zh": term.name_zh,
                    "description_en": term.description_en,
                    "description_zh": term.description_zh,
                    "position": position,
                },
            )
