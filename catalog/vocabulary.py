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
