"""The method's guidance shown beside each field, in English and Simplified Chinese (METHOD.md),
and the facts step 1 shows beside its answers (`profile_notes`).

The guidance is kept as a bilingual table rather than gettext strings because it is long prose
that is reviewed against the Chinese original of the method; `guidance()` picks the active
language.
"""

from __future__ import annotations

from typing import Any

from django.utils import translation
from django.utils.translation import gettext as _

from catalog.engine.gpus import gpu_model_find
from catalog.engine.profile import Profile, profile_valid_fields
from evaluations.steps.forms import CROSS_TENANT_CHOICES

GUIDANCE: dict[str, dict[str, str]] = {
    # Step 1: fix the target workload and SLO
    "step_profile": {
        "en": "Fix the target workload and SLO first. Without it, comparison degrades into a "
        "shouting match: training throughput and inference P99 ask for different stacks.",
        "zh": "先固定目标工作负载与 SLO。没有这一步，比较就会变成争吵：训练吞吐优先与推理 P99 "
        "优先需要不同的技术栈。",
    },
    "workload_types": {
        "en": "Which workloads share these GPUs? Training and batch need gang scheduling and "
        "queues; online inference needs provable isolation and observable P99; a mix usually "
        "means pools split by isolation level (shape C).",
        "zh": "哪些负载共享这些 GPU？训练与批处理需要成组调度与队列；在线推理需要可证明的隔离与"
        "可观测的 P99；混合负载通常意味着按隔离级别拆分资源池（形态 C）。",
    },
    "primary_objective": {
        "en": "Training throughput first, inference P99 first, or cost first? One objective leads; "
        "the others become constraints.",
        "zh": "训练吞吐优先、推理 P99 优先，还是成本优先？只能有一个主目标，其余作为约束。",
    },
    "p99_target_ms": {
        "en": "The tail latency the service promises, in milliseconds. Required when P99 latency "
        "is the objective: the data plane must then offer signals to observe it.",
        "zh": "服务承诺的尾延迟（毫秒）。以 P99 延迟为主目标时必填："
        "数据平面必须提供可观测它的信号。",
    },
    "jitter_tolerance": {
        "en": "How much latency jitter is tolerable? Low tolerance rules out sharing policies "
        "whose isolation depends on neighbours' behaviour (time slicing, soft compute limits).",
        "zh": "能容忍多大的延迟抖动？容忍度低时，应排除隔离效果取决于邻居行为的共享策略"
        "（时间片、软性算力限制）。",
    },
    "isolation": {
        "en": "Is strong isolation required? Hard means a partition the hardware or driver "
        "enforces (MIG); soft means enforced in software (interception); none means shared.",
        "zh": "是否需要强隔离？硬隔离指由硬件或驱动强制的分区（MIG）；软隔离指由软件强制（拦截）；"
        "无隔离即共享。",
    },
    "failure_semantics": {
        "en": "Is a failure a degradation or an incident? If a neighbour's fault is an incident, "
        "fault isolation matters as much as memory isolation.",
        "zh": "故障是降级还是事故？如果邻居的故障就是事故，故障隔离与显存隔离同样重要。",
    },
    "tenancy": {
        "en": "Single or multi-tenant? Several teams or customers need a control plane "
        "(queues, quotas, fair sharing) and metering signals from the data plane.",
        "zh": "单租户还是多租户？多个团队或客户需要控制面（队列、配额、公平共享）以及来自数据平面的"
        "计量信号。",
    },
    "cross_tenant_sharing": {
        "en": "May one GPU serve several tenants at once? Never: each GPU serves one tenant at a "
        "time (whole devices, or a pool per tenant). Only through hard partitions: tenants share "
        "a GPU only through partitions hard on memory, compute and fault (MIG). Allowed: any "
        "sharing unit will do. Left empty, it follows from tenancy and isolation.",
        "zh": "一块 GPU 能否同时服务多个租户？从不：每块 GPU 同一时间只服务一个租户（整卡，或每个"
        "租户一个资源池）。仅通过硬分区：租户只通过显存、算力与故障都硬隔离的分区（MIG）共享 GPU。"
        "允许：任何共享单位都可以。留空时，由租户模式与隔离要求推出。",
    },
    "node_groups": {
        "en": "Describe the cluster as it is: one row per kind of node (its GPU model, how many "
        "nodes, GPUs per node). Several GPU models, e.g. A100 for training and L4 for "
        "inference, need several groups: the recommendation then places each pool on a group. "
        "With groups, the single GPU model and node count are taken from them.",
        "zh": "按集群的实际情况描述：每种节点一行（GPU 型号、节点数、每节点 GPU 数）。多种 GPU "
        "型号（例如训练用 A100、推理用 L4）需要多个节点组：推荐会把每个资源池放到一个节点组上。"
        "有了节点组，单一的 GPU 型号与节点数由节点组得出。",
    },
    "tenants": {
        "en": "Name the teams or customers who share the GPUs, the work each runs and what it "
        "asks for: whole GPUs, or replicas of whole GPUs or of a MIG slice, always or in a time "
        "window. A tenant's own sharing rule and isolation bind the pools its work runs in; "
        "left at the profile default, the answers above apply. Named tenants replace the "
        "number of tenants.",
        "zh": "写出共享 GPU 的团队或客户、各自运行的负载及需求：整卡数，或副本数（每副本整卡或一个 "
        "MIG 切片），始终运行还是在时间窗口内。租户自己的共享规则与隔离要求约束其负载所在的资源池；"
        "保持为画像默认值时，沿用上面的回答。具名租户取代租户数量。",
    },
    "installed": {
        "en": "What already runs in the cluster, with its version: it is the default for its "
        "job, and generated configuration targets its API versions; it is never upgraded "
        "silently.",
        "zh": "集群中已经在运行的组件及其版本：它是该职责的默认选择，生成的配置面向它的 API "
        "版本；不会被悄悄升级。",
    },
    "workload_isolation": {
        "en": "Where one workload type needs other isolation than the requirement above, say so "
        "here: notebooks of one team often need only soft isolation from each other, while "
        "inference needs hard. Left empty, a type takes the requirement above.",
        "zh": "某类负载所需的隔离与上面的要求不同时，在此说明：同一团队的 Notebook 之间往往只需软"
        "隔离，而推理需要硬隔离。留空时，该类负载沿用上面的要求。",
    },
    "workload_mix": {
        "en": "What each tenant runs, in numbers: capacity sizing gives each recommended stack's "
        "pools their nodes, MIG layouts and tenant quotas from it, and replays it to show what "
        "each stack's unit leaves unused. An uploaded trace fills it in.",
        "zh": "每个租户运行什么，用数字说明：容量测算据此为每个推荐方案的资源池分配节点、MIG 布局"
        "与租户配额，并回放它以显示各方案的资源单位会闲置多少。上传的 trace 会自动填写此项。",
    },
    "gpu_model": {
        "en": "Pick the model from EcoMap's GPU facts or type it: its vendor decides which "
        "catalog rows can serve it, and its MIG profiles or partition modes which slices exist. "
        "A model not in the facts is kept, but MIG and vendor are then not checked.",
        "zh": "从 EcoMap 的 GPU 事实中选择型号，或直接输入：厂商决定哪些目录条目能服务它，"
        "MIG 规格或分区模式决定有哪些切分。不在事实中的型号也会保存，但不再检查 MIG 与厂商。",
    },
    "priorities": {
        "en": "Rank isolation strength, cost target, observability and compatibility. The ranking "
        "breaks ties between stacks that both fit.",
        "zh": "为隔离强度、成本目标、可观测性与兼容性排序。排序用于在都满足要求的方案之间取舍。",
    },
    # Step 2: name the resource unit
    "step_units": {
        "en": "Name the resource unit. The unit fixes the smallest granularity the scheduler can "
        "see, the upper bound of isolation, and the reconfiguration cost and coupling to "
        "operations.",
        "zh": "明确资源单位。资源单位决定了调度器能看到的最小粒度、隔离的上限，以及重新配置的代价和"
        "与运维的耦合。",
    },
    "units_time_slice": {
        "en": "Time slicing is flexible, but its isolation depends on workload behaviour: it is a "
        "sharing policy, not a hard partition.",
        "zh": "时间片很灵活，但隔离效果取决于负载行为：它是共享策略，不是硬分区。",
    },
    # Step 3: locate the enforcement point
    "step_candidates": {
        "en": "Locate the enforcement point: where do the rules become real? The enforcement point "
        "decides the layer and what the project can and cannot solve. Confirm each candidate's "
        "points as the catalog states them, or correct them.",
        "zh": "定位执行点：规则在哪里真正生效？执行点决定了项目所在的层，以及它能解决和不能解决的"
        "问题。逐一确认目录给出的执行点，或加以更正。",
    },
    "alternative_group": {
        "en": "Put candidates you weigh against each other in the same alternatives group. Only "
        "rows that do the same job on the same layer with a common unit are real alternatives; "
        "across layers, things compose.",
        "zh": "把相互替代、需要取舍的候选放进同一个备选组。只有同层、同职能、有共同资源单位的"
        "组件才是真正的替代；跨层的组件是组合关系。",
    },
    # Step 4: write the boundary of responsibility
    "step_boundaries": {
        "en": "Write the boundary of responsibility, one sentence each: what it is responsible "
        "for, what it is not. Data-plane projects own unit presentation, isolation and node-side "
        "metering; control-plane projects own queues, quotas, priority and admission but never "
        "promise zero interference inside the node; the platform owns delivery and operations.",
        "zh": "写清责任边界，各用一句话：负责什么，不负责什么。"
        "数据平面负责资源单位呈现、隔离与节点侧"
        "计量；控制面负责队列、配额、优先级与准入，但从不承诺节点内零干扰；平台层负责大规模交付与"
        "运维。",
    },
    # Comparison, recommendations, decision
    "comparison": {
        "en": "Same layer and same resource unit: compare isolation strength, performance "
        "overhead, observability and metering, reconfiguration cost. Across layers: compare only "
        "interface contracts and how they compose.",
        "zh": "同层同单位比较：隔离强度、性能开销、可观测与计量、重配置代价。"
        "跨层只比接口契约及其组合"
        "方式。",
    },
    "recommendations": {
        "en": "Decision flow: problem domain → priorities → data plane → control plane. Each "
        "stack below is ranked against your step-1 profile and passed through the stack check.",
        "zh": "决策流程：识别问题域 → 设定优先级 → 选择数据平面 → 配置控制面。"
        "以下每个方案都按第 1 步"
        "的画像排序，并经过技术栈检查。",
    },
    "decision": {
        "en": "Name the chosen rows, split them into node pools if the shape needs it (e.g. "
        "training on whole GPUs, inference on MIG slices, notebooks on a shared pool), say "
        "which pools serve one tenant each, and say why, what could fail and how you will "
        "accept it.",
        "zh": "列出所选组件；如形态需要，将其拆分为节点池（例如整卡训练池、MIG 切片推理池、"
        "共享的 Notebook 池），注明哪些节点池每个租户各一份，并说明理由、可能的失败方式以及"
        "验收方法。",
    },
    "risks": {
        "en": "Pre-filled from the chosen rows' typical failure modes: where a stack "
        "'looks like it "
        "runs but is not operable'. Keep the ones you will watch.",
        "zh": "根据所选组件的典型失败模式预填：即“看起来能跑但不可运维”的地方。"
        "保留需要持续关注的项。",
    },
}

# Granularity per unit: what the smallest thing the scheduler sees is. The rest of what a unit
# implies (isolation ceiling, reconfiguration cost) is read from the catalog rows of that unit.
GRANULARITY: dict[str, dict[str, str]] = {
    "whole_gpu": {"en": "one physical GPU", "zh": "一整块物理 GPU"},
    "mig_slice": {
        "en": "a fixed hardware profile (1/7 to a whole GPU)",
        "zh": "固定的硬件切分规格（1/7 至整卡）",
    },
    "amd_partition": {
        "en": "a logical GPU of a compute/memory partition mode (up to 1/8 of an MI300X in CPX)",
        "zh": "计算/显存分区模式下的一个逻辑 GPU（CPX 模式下最小为 MI300X 的 1/8）",
    },
    "vgpu": {"en": "a virtual GPU of a fixed profile", "zh": "固定规格的虚拟 GPU"},
    "time_slice": {"en": "a turn on a shared GPU", "zh": "共享 GPU 上的一个时间片"},
    "mps_share": {"en": "a share of SMs under MPS", "zh": "MPS 下的一份 SM 份额"},
    "memory_compute_quota": {
        "en": "MiB of memory and a percentage of compute",
        "zh": "以 MiB 计的显存与百分比算力",
    },
    "dra_claim": {"en": "whatever a device class describes", "zh": "由设备类描述的任意粒度"},
    "none": {"en": "no unit presented", "zh": "不呈现资源单位"},
}


def _language() -> str:
    return "zh" if (translation.get_language() or "en").lower().startswith("zh") else "en"


def guidance(key: str) -> str:
    """The guidance for `key` in the active language ('' if there is none)."""
    texts = GUIDANCE.get(key) or GRANULARITY.get(key) or {}
    return texts.get(_language()) or texts.get("en", "")


def granularity(unit_key: str) -> str:
    texts = GRANULARITY.get(unit_key, {})
    return texts.get(_language()) or texts.get("en", "")


# Step 1's notes beside the answers: what the GPU model's facts say and what an empty
# cross-tenant answer derives to. Every key is always present, so a note that no longer applies
# is cleared when an autosave answers.
NOTED_FIELDS: tuple[str, ...] = ("gpu_model", "gpu_memory_gb", "cross_tenant_sharing")


def _derived_profile(profile: dict[str, Any]) -> Profile | None:
    """The profile as the engines read it, without a cross-tenant answer (so the rule derives)."""
    answers = {key: value for key, value in profile.items() if value not in (None, "", [], {})}
    answers.pop("cross_tenant_sharing", None)
    try:
        return Profile.from_dict(profile_valid_fields(answers)[0])
    except ValueError:
        return None


def gpu_model_note(typed: str | None) -> dict[str, str]:
    """What the GPU facts say of a typed model: its memory and MIG, or that it is unknown."""
    model = gpu_model_find(typed) if typed else None
    if typed and model is None:
        return {
            "text": _("Not in EcoMap's GPU facts: MIG and vendor are not checked."),
            "kind": "warn",
        }
    if model is None:
        return {"text": "", "kind": "hint"}
    if model.vendor == "amd":
        sharing = _("compute partitions") if model.has_partitions else _("no partitions")
    else:
        sharing = _("MIG") if model.has_mig else _("no MIG")
    text = _("%(name)s in the GPU facts: %(memory)s GB, %(sharing)s.") % {
        "name": model.name,
        "memory": model.memory_gb,
        "sharing": sharing,
    }
    return {"text": text, "kind": "hint"}


# The step-2 cards that list, per node group, what its GPU model offers of the unit.
PARTITION_VENDORS = {"mig_slice": "nvidia", "amd_partition": "amd"}


def unit_gpu_facts(unit_key: str, profile: dict[str, Any]) -> list[dict[str, Any]]:
    """For a hardware-partition unit's card on step 2, one entry per node group of step 1 (a v1
    profile's model is one group): the group's name (when there are several), the model as
    typed, its facts (None: not in the GPU facts) and `offers`: "yes" (its MIG profiles or
    partition modes follow from `model`), "no" (the model has none) or "other_vendor"."""
    vendor = PARTITION_VENDORS.get(unit_key)
    if vendor is None:
        return []
    try:
        groups = Profile.from_dict(profile or {}).groups
    except ValueError:
        groups = ()
    entries = []
    for group in groups:
        if not group.gpu_model:
            continue
        model = gpu_model_find(group.gpu_model)
        if model is None:
            offers = "unknown"
        elif model.vendor != vendor:
            offers = "other_vendor"
        else:
            offers = "yes" if model.has_partitions else "no"
        entries.append(
            {
                "group": group.name if len(groups) > 1 else "",
                "typed": group.gpu_model,
                "model": model,
                "offers": offers,
            }
        )
    return entries


def profile_notes(profile: dict[str, Any]) -> dict[str, dict[str, str]]:
    """Per noted field: `text` (empty: no note), `kind` (warn or hint) and, for the memory, the
    `placeholder` the GPU model's facts suggest."""
    notes = {name: {"text": "", "kind": "hint"} for name in NOTED_FIELDS}
    typed = profile.get("gpu_model")
    model = gpu_model_find(typed) if typed else None
    notes["gpu_model"] = gpu_model_note(typed)
    if model is not None and not profile.get("gpu_memory_gb"):
        notes["gpu_memory_gb"] = {
            "text": _("%(memory)s GB per GPU, from the GPU facts.") % {"memory": model.memory_gb},
            "kind": "hint",
            "placeholder": str(model.memory_gb),
        }
    if not profile.get("cross_tenant_sharing"):
        derived = _derived_profile(profile)
        if derived is not None:
            words = dict(CROSS_TENANT_CHOICES)[derived.tenant_rule]
            notes["cross_tenant_sharing"]["text"] = _("Left empty, this is: %(rule)s.") % {
                "rule": words
            }
    return notes
