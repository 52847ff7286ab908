"""Property checkers: what an expert checks on a recommended stack, written once.

Each checker takes a recommendation as its JSON contract (`Recommendation.to_dict()`) and a
`Context` (the profile as the user typed it, the catalog rows by id) and returns the problems it
found, each naming the pool and the rows at fault; an empty list means the property holds. The
checkers read the engine's answer (pools, pool_details, report) and judge it against facts that do
not come from the recommender: the catalog rows' own units, isolation, functions and contracts,
and upstream documentation (the sources are beside each expectation in profiles.py).

A field of the new interface that is missing raises `Unmet`, so a failure says "interface not
there yet" instead of a KeyError.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from fnmatch import fnmatchcase
from typing import Any

from catalog.engine.rows import Row

ASPECTS = ("memory", "compute", "fault")
RANK = {"none": 0, "soft": 1, "hard": 2}
TENANT_SHARING = ("none", "within_tenant", "across_tenants")
# Units that put more than one workload on one physical GPU.
SUB_GPU_UNITS = frozenset({"mig_slice", "vgpu", "time_slice", "mps_share", "memory_compute_quota"})
# Sub-GPU units whose limits are enforced in software or not at all (not hard partitions).
SOFT_SHARING_UNITS = frozenset({"vgpu", "time_slice", "mps_share", "memory_compute_quota"})
# The method's governance functions (DESIGN.md vocabulary): a row with one of them governs.
GOVERNANCE = frozenset({"quota", "fair_sharing", "preemption", "gang"})
PRESENTING = frozenset({"present", "partition", "isolate"})
BATCHY = frozenset({"training", "batch"})
DRA_REQUIRES = ("api:kubernetes/feature/DynamicResourceAllocation", "api:resource.k8s.io/*")
COMPUTE_DOMAIN = "crd:resource.nvidia.com/*/ComputeDomain"

# Which vendor's accelerators a project serves, from the projects' own documentation (NVIDIA
# k8s-device-plugin, mig-parted, DCGM, GFD, Run:ai; ROCm k8s-device-plugin and GPU operator;
# Ascend MindCluster; Intel device plugins). Used beside a row's own `vendors`, never instead.
PROJECT_VENDORS: Mapping[str, str] = {
    "nvidia-device-plugin": "nvidia",
    "nvidia-mig": "nvidia",
    "nvidia-dra-driver-gpu": "nvidia",
    "nvidia-gpu-operator": "nvidia",
    "nvidia-container-toolkit": "nvidia",
    "nvidia-vgpu": "nvidia",
    "nvidia-nim-operator": "nvidia",
    "dcgm-exporter": "nvidia",
    "gpu-feature-discovery": "nvidia",
    "runai": "nvidia",
    "amd-gpu-device-plugin": "amd",
    "amd-gpu-operator": "amd",
    "amd-gpu-dra-driver": "amd",
    "ascend-device-plugin": "huawei",
    "intel-gpu-device-plugin": "intel",
    "intel-resource-drivers": "intel",
}
_CONTRACT_VENDORS = (
    (("capability:nvidia-", "resource:nvidia.com/", "label:nvidia.com/"), "nvidia"),
    (("resource:amd.com/",), "amd"),
    (("resource:huawei.com/",), "huawei"),
    (("resource:gpu.intel.com/",), "intel"),
)
_EXCLUSIVE_VENDORS = (
    ("owner:node/nvidia-", "nvidia"),
    ("owner:node/amd-", "amd"),
    ("owner:node/ascend-", "huawei"),
    ("owner:node/intel-", "intel"),
)


class Unmet(Exception):
    """The recommendation lacks a field of the interface under test."""


@dataclass(frozen=True)
class Context:
    name: str
    profile: Mapping[str, Any]
    rows: Mapping[str, Row]


Problems = list[str]


# -- reading a recommendation ----------------------------------------------------------------


def rank_label(rec: Mapping[str, Any]) -> str:
    return f"rank {rec.get('rank', '?')} (shape {rec.get('shape', '?')})"


def pool_details(rec: Mapping[str, Any]) -> Mapping[str, Mapping[str, Any]]:
    details = rec.get("pool_details")
    if not isinstance(details, Mapping) or not details:
        raise Unmet(
            f"{rank_label(rec)} has no pool_details (the new per-pool units, isolation, "
            "tenant_sharing, workloads and acceptance_checks of Recommendation.to_dict())"
        )
    for pool, detail in details.items():
        for key in ("units", "isolation", "tenant_sharing", "workloads", "acceptance_checks"):
            if key not in detail:
                raise Unmet(f"{rank_label(rec)}: pool_details[{pool!r}] has no {key!r}")
    return details


def row(ctx: Context, row_id: str) -> Row:
    try:
        return ctx.rows[row_id]
    except KeyError:
        raise AssertionError(f"[{ctx.name}] the stack names {row_id!r}, no catalog row") from None


def pool_rows(rec: Mapping[str, Any], pool: str, ctx: Context) -> list[Row]:
    """The rows that run on `pool`: its own and the cluster-wide ones."""
    ids = list((rec.get("pools") or {}).get(pool, ())) + list(rec.get("cluster_wide") or ())
    return [row(ctx, i) for i in dict.fromkeys(ids)]


def stack_rows(rec: Mapping[str, Any], ctx: Context) -> list[Row]:
    return [row(ctx, i) for i in rec.get("rows") or ()]


def gpu_presenters(rows: Iterable[Row]) -> list[Row]:
    """Data-plane rows that present, partition or isolate GPU units (not exporters, labellers,
    runtimes, nor the ComputeDomain plugin, which hands out NVLink channels, not GPUs)."""
    return [
        r
        for r in rows
        if r.layer == "data_plane"
        and r.functions & PRESENTING
        and r.resource_units - {"none"}
        and not any(fnmatchcase(p, COMPUTE_DOMAIN) for p in r.provides)
    ]


def governors(rows: Iterable[Row]) -> list[Row]:
    return [r for r in rows if r.layer == "control_plane" and r.functions & GOVERNANCE]


def unit_kinds(detail: Mapping[str, Any], presenters: Sequence[Row]) -> set[str]:
    """The pool's units; a DRA claim is read as what the pool's presenters put behind it."""
    units = set(detail.get("units") or ())
    if "dra_claim" in units:
        units |= {u for r in presenters for u in r.resource_units} - {"dra_claim", "none"}
    return units


def serving(rec: Mapping[str, Any], kinds: Iterable[str]) -> list[tuple[str, Mapping[str, Any]]]:
    wanted = set(kinds)
    return [(p, d) for p, d in pool_details(rec).items() if wanted & set(d["workloads"])]


def weakest(rows: Sequence[Row]) -> dict[str, str]:
    """Per aspect, the weakest isolation among rows (a pool is as strong as its weakest layer)."""
    return {
        a: min((r.isolation[a] for r in rows), key=RANK.__getitem__, default="none")
        for a in ASPECTS
    }


def describe(rows: Iterable[Row]) -> str:
    return ", ".join(
        f"{r.id} ({'/'.join(r.isolation[a] for a in ASPECTS)} mem/compute/fault)" for r in rows
    )


def all_hard(r: Row) -> bool:
    return all(r.isolation[a] == "hard" for a in ASPECTS)


def vendors_of(r: Row) -> set[str]:
    declared = set(getattr(r, "vendors", None) or ())
    known = {PROJECT_VENDORS[r.project]} if r.project in PROJECT_VENDORS else set()
    for prefixes, vendor in _CONTRACT_VENDORS:
        if any(p.startswith(prefixes) for p in r.requires):
            known.add(vendor)
    for prefix, vendor in _EXCLUSIVE_VENDORS:
        if any(t.startswith(prefix) for t in r.exclusive):
            known.add(vendor)
    return declared | known


def cross_tenant_mode(profile: Mapping[str, Any]) -> str | None:
    """DESIGN.md: default multi + hard -> hard_partitions, multi otherwise -> allowed."""
    tenants = profile.get("tenant_count") or 1
    tenancy = profile.get("tenancy") or ("multi" if tenants > 1 else "single")
    if tenancy != "multi":
        return None
    default = "hard_partitions" if profile.get("isolation") == "hard" else "allowed"
    return profile.get("cross_tenant_sharing") or default


def demanded_isolation(profile: Mapping[str, Any], workload: str) -> str:
    return (profile.get("workload_isolation") or {}).get(workload) or profile.get(
        "isolation", "none"
    )


# -- per recommendation ----------------------------------------------------------------------


def report_ok(rec, ctx) -> Problems:
    report = rec.get("report") or {}
    if report.get("ok"):
        return []
    return [
        f"{rank_label(rec)}: stack check not ok: gaps {report.get('gaps')}, "
        f"conflicts {report.get('conflicts')}"
    ]


def kubernetes_ok(rec, ctx) -> Problems:
    fit = (rec.get("report") or {}).get("fit") or ()
    return [
        f"{rank_label(rec)}: Kubernetes {ctx.profile.get('kubernetes_version')} gap: "
        f"{f.get('message')}"
        for f in fit
        if f.get("aspect") == "kubernetes" and f.get("status") == "gap"
    ]


def no_dra(rec, ctx) -> Problems:
    problems = [
        f"{rank_label(rec)}: {r.id} needs DRA ({', '.join(sorted(needs))}), not enabled by "
        f"default on Kubernetes {ctx.profile.get('kubernetes_version')}"
        for r in stack_rows(rec, ctx)
        if (needs := {p for p in r.requires if any(fnmatchcase(p, d) for d in DRA_REQUIRES)})
    ]
    return problems + _pools_with_unit(rec, "dra_claim", problems)


def serves_vendor(rec, ctx, vendor: str) -> Problems:
    problems = [
        f"{rank_label(rec)}: {r.id} serves {', '.join(sorted(vendors_of(r)))}, not {vendor}"
        for r in stack_rows(rec, ctx)
        if vendors_of(r) and vendor not in vendors_of(r)
    ]
    for pool in rec.get("pools") or {}:
        presenters = gpu_presenters(pool_rows(rec, pool, ctx))
        if not any(vendor in vendors_of(r) for r in presenters):
            problems.append(
                f"{rank_label(rec)}: pool {pool!r} has no {vendor} device presenter "
                f"(presenters: {[r.id for r in presenters]})"
            )
    return problems


def no_mig(rec, ctx, strict: bool = True) -> Problems:
    """No NVIDIA MIG row; with `strict` (an NVIDIA GPU without MIG) no mig_slice unit at all."""
    problems = [
        f"{rank_label(rec)}: {r.id} offers MIG slices"
        for r in stack_rows(rec, ctx)
        if r.layer == "data_plane"
        and "mig_slice" in r.resource_units
        and (strict or "nvidia" in vendors_of(r))
    ]
    if strict:
        problems += _pools_with_unit(rec, "mig_slice", problems)
    return problems


def _pools_with_unit(rec, unit: str, found: Problems) -> Problems:
    """Pools handing out `unit`; without pool_details, the rows already found still count."""
    try:
        details = pool_details(rec)
    except Unmet:
        if found:
            return []
        raise
    return [
        f"{rank_label(rec)}: pool {pool!r} hands out {unit} units"
        for pool, d in details.items()
        if unit in d["units"]
    ]


def tenant_safe(rec, ctx) -> Problems:
    """No GPU is shared across tenants beyond what cross_tenant_sharing allows: `never` forbids
    any sub-GPU sharing across tenants; `hard_partitions` allows only partitions hard on memory,
    compute and fault (MIG), checked on the catalog rows, not only on what pool_details says."""
    mode = cross_tenant_mode(ctx.profile)
    if mode is None or mode == "allowed":
        return []
    problems = []
    for pool, d in pool_details(rec).items():
        sharing = d["tenant_sharing"]
        if sharing not in TENANT_SHARING:
            problems.append(f"{rank_label(rec)}: pool {pool!r} tenant_sharing {sharing!r}?")
        if sharing != "across_tenants":
            continue
        presenters = gpu_presenters(pool_rows(rec, pool, ctx))
        shared = unit_kinds(d, presenters) & SUB_GPU_UNITS
        if not shared:
            continue  # whole GPUs: each GPU still serves one tenant at a time
        where = f"{rank_label(rec)}: pool {pool!r} ({', '.join(d['workloads'])})"
        if mode == "never":
            problems.append(
                f"{where} shares GPUs across tenants as {sorted(shared)} via "
                f"{[r.id for r in presenters]}; cross_tenant_sharing is never"
            )
            continue
        soft = shared & SOFT_SHARING_UNITS
        weak = [r for r in presenters if not all_hard(r)]
        claimed = [a for a in ASPECTS if d["isolation"].get(a) != "hard"]
        if soft or weak or claimed:
            problems.append(
                f"{where} shares GPUs across tenants but not through hard partitions: "
                f"soft units {sorted(soft)}, rows {describe(weak) or '-'}, pool isolation "
                f"{dict(d['isolation'])}; cross_tenant_sharing is hard_partitions"
            )
    return problems


def interactive_on_fractions(rec, ctx) -> Problems:
    pools = serving(rec, ["interactive"])
    if not pools:
        return [f"{rank_label(rec)}: no pool serves interactive"]
    return [
        f"{rank_label(rec)}: pool {pool!r} gives notebooks {sorted(d['units'])}, no fraction "
        "of a GPU"
        for pool, d in pools
        if not unit_kinds(d, gpu_presenters(pool_rows(rec, pool, ctx))) & SUB_GPU_UNITS
    ]


def inference_on_hard_units(rec, ctx) -> Problems:
    """Online inference on MIG slices or whole GPUs, every presenter hard on all three."""
    pools = serving(rec, ["online_inference"])
    if not pools:
        return [f"{rank_label(rec)}: no pool serves online_inference"]
    problems = []
    for pool, d in pools:
        presenters = gpu_presenters(pool_rows(rec, pool, ctx))
        soft = unit_kinds(d, presenters) & SOFT_SHARING_UNITS
        weak = [r for r in presenters if not all_hard(r)]
        if soft or weak:
            problems.append(
                f"{rank_label(rec)}: inference pool {pool!r} uses soft units {sorted(soft)} / "
                f"rows {describe(weak) or '-'}; expected MIG slices or whole GPUs"
            )
    return problems


def training_on_whole_gpus(rec, ctx) -> Problems:
    """Training on whole GPUs (MIG has no GPU-to-GPU P2P/NVLink); batch-only pools on whole GPUs
    or hard partitions (METHOD shape A)."""
    problems = []
    for pool, d in serving(rec, BATCHY):
        presenters = gpu_presenters(pool_rows(rec, pool, ctx))
        allowed = {"whole_gpu", "dra_claim"}
        if "training" not in d["workloads"]:
            allowed.add("mig_slice")
        extra = set(d["units"]) - allowed
        if "dra_claim" in d["units"] and not any(
            "whole_gpu" in r.resource_units for r in presenters
        ):
            extra.add("dra_claim without a whole-GPU presenter")
        if extra:
            problems.append(
                f"{rank_label(rec)}: pool {pool!r} serves {', '.join(d['workloads'])} on "
                f"{sorted(extra)}; expected {sorted(allowed)}"
            )
    return problems


def gang_for(rec, ctx, kinds: Sequence[str] = ("training",)) -> Problems:
    pools = serving(rec, kinds)
    if not pools:
        return [f"{rank_label(rec)}: no pool serves {', '.join(kinds)}"]
    return [
        f"{rank_label(rec)}: pool {pool!r} runs {', '.join(d['workloads'])} with no gang "
        f"scheduler (governors: {[r.id for r in governors(pool_rows(rec, pool, ctx))]})"
        for pool, d in pools
        if not any("gang" in r.functions for r in governors(pool_rows(rec, pool, ctx)))
    ]


def one_governor(rec, ctx) -> Problems:
    problems = []
    for pool in rec.get("pools") or {}:
        found = governors(pool_rows(rec, pool, ctx))
        if len(found) > 1:
            problems.append(
                f"{rank_label(rec)}: pool {pool!r} has {len(found)} governors "
                f"{[r.id for r in found]}: they queue, admit or preempt the same pods"
            )
    return problems


def governor_has(rec, ctx, functions: Sequence[str] = ("quota",)) -> Problems:
    problems = []
    for pool in rec.get("pools") or {}:
        found = governors(pool_rows(rec, pool, ctx))
        if not any(set(functions) <= r.functions for r in found):
            problems.append(
                f"{rank_label(rec)}: pool {pool!r} has no governor with {', '.join(functions)} "
                f"(governors: {[(r.id, sorted(r.functions & GOVERNANCE)) for r in found]})"
            )
    return problems


def _quota_names(queue: Row, resource: str, presenter: Row) -> bool:
    """Whether `queue` can put quota on `resource` as `presenter` presents it: one of its requires
    or accepts names it, and, when the queue row also places pods (a scheduler), it provides the
    assigner the presenter requires. HAMi's resources are assigned by HAMi's scheduler (HAMi
    v2.10.0 README), Volcano provides volcano-vgpu's; Kueue only admits and counts them (Kueue
    v0.19.2 "Using HAMi"), the default scheduler with HAMi's extender places them."""
    if not any(fnmatchcase(f"resource:{resource}", p) for p in queue.requires | queue.accepts):
        return False
    if "scheduler" not in queue.enforcement_points:
        return True
    assigners = {p for p in presenter.requires if p.startswith("assigner:")}
    return assigners <= queue.provides


def quota_reaches_every_pool(rec, ctx) -> Problems:
    """With several tenants, every resource a pool's presenters advertise is under a quota row in
    reach of that pool that can name it; a single-tenant profile needs no quota."""
    if ctx.profile.get("tenancy") != "multi":
        return []
    problems = []
    for pool in rec.get("pools") or {}:
        rows = pool_rows(rec, pool, ctx)
        queues = [r for r in governors(rows) if "quota" in r.functions]
        unquoted = sorted(
            {
                (ident.removeprefix("resource:"), presenter.id)
                for presenter in gpu_presenters(rows)
                for ident in presenter.provides
                if ident.startswith("resource:")
                and not any(
                    _quota_names(q, ident.removeprefix("resource:"), presenter) for q in queues
                )
            }
        )
        if unquoted:
            problems.append(
                f"{rank_label(rec)}: pool {pool!r} presents "
                f"{[f'{name} ({by})' for name, by in unquoted]} that no quota row of "
                f"{[q.id for q in queues]} can put quota on"
            )
    return problems


def preemption_protects_inference(rec, ctx) -> Problems:
    return [
        f"{rank_label(rec)}: pool {pool!r} runs online_inference beside "
        f"{sorted(BATCHY & set(d['workloads']))} with no preemption "
        f"(governors: {[r.id for r in governors(pool_rows(rec, pool, ctx))]})"
        for pool, d in serving(rec, ["online_inference"])
        if BATCHY & set(d["workloads"])
        and not any("preemption" in r.functions for r in governors(pool_rows(rec, pool, ctx)))
    ]


def p99_check_on_inference_pool(rec, ctx) -> Problems:
    target = ctx.profile["p99_target_ms"]
    number = re.compile(rf"(?<![\d.]){re.escape(f'{target:g}')}(?![\d])")
    pools = serving(rec, ["online_inference"])
    if not pools:
        return [f"{rank_label(rec)}: no pool serves online_inference"]
    return [
        f"{rank_label(rec)}: inference pool {pool!r} has no acceptance check on P99 "
        f"<= {target:g} ms (checks: {d['acceptance_checks']})"
        for pool, d in pools
        if not any(
            "p99" in str(text).lower() and number.search(str(text))
            for text in d["acceptance_checks"]
        )
    ]


def all_workloads_served(rec, ctx) -> Problems:
    # DESIGN.md, profile v2: without workload_types, the named tenants' work is the profile's.
    wanted = set(ctx.profile.get("workload_types") or ()) or {
        kind for tenant in ctx.profile.get("tenants") or () for kind in tenant["workloads"]
    }
    served = {w for d in pool_details(rec).values() for w in d["workloads"]}
    problems = []
    if wanted - served:
        problems.append(f"{rank_label(rec)}: no pool serves {sorted(wanted - served)}")
    if served - wanted:
        problems.append(f"{rank_label(rec)}: pools serve {sorted(served - wanted)}, not asked")
    return problems


def isolation_per_workload(rec, ctx, workloads: Sequence[str] | None = None) -> Problems:
    """Each pool honours the isolation demanded of each workload it serves (workload_isolation
    over isolation): hard = hard on memory, compute and fault; soft = at least soft on memory
    and compute (time-slicing shares memory and is not soft)."""
    problems = []
    for pool, d in pool_details(rec).items():
        presenters = gpu_presenters(pool_rows(rec, pool, ctx))
        for workload in d["workloads"]:
            if workloads is not None and workload not in workloads:
                continue
            level = demanded_isolation(ctx.profile, workload)
            if level == "hard":
                weak = [r for r in presenters if not all_hard(r)]
                claimed = [a for a in ASPECTS if d["isolation"].get(a) != "hard"]
            elif level == "soft":
                weak = [r for r in presenters if min(RANK[r.isolation[a]] for a in ASPECTS[:2]) < 1]
                claimed = [a for a in ASPECTS[:2] if RANK.get(d["isolation"].get(a), 0) < 1]
            else:
                continue
            if weak or claimed or not presenters:
                problems.append(
                    f"{rank_label(rec)}: pool {pool!r} runs {workload} (isolation {level} "
                    f"demanded) on rows {describe(weak) or [r.id for r in presenters]}, pool "
                    f"isolation {dict(d['isolation'])}"
                )
    return problems


def pool_details_honest(rec, ctx) -> Problems:
    """pool_details claims no more than the pool's rows give: each unit is presented by one of
    them, and no aspect is stronger than the weakest presenter."""
    details = pool_details(rec)
    problems = []
    if set(details) != set(rec.get("pools") or {}):
        problems.append(f"{rank_label(rec)}: pool_details {sorted(details)} vs pools")
    for pool, d in details.items():
        presenters = gpu_presenters(pool_rows(rec, pool, ctx))
        offered = {u for r in presenters for u in r.resource_units}
        unbacked = set(d["units"]) - offered
        if unbacked:
            problems.append(
                f"{rank_label(rec)}: pool {pool!r} claims units {sorted(unbacked)} no presenter "
                f"of it offers ({[r.id for r in presenters]})"
            )
        floor = weakest(presenters)
        over = [a for a in ASPECTS if RANK.get(d["isolation"].get(a), 0) > RANK[floor[a]]]
        if over:
            problems.append(
                f"{rank_label(rec)}: pool {pool!r} claims isolation {dict(d['isolation'])}, "
                f"rows give {floor} ({describe(presenters)})"
            )
    return problems


def offers_signals(rec, ctx) -> Problems:
    if any(
        r.layer == "data_plane" and any(s.startswith("signal:") for s in r.signals | r.provides)
        for r in stack_rows(rec, ctx)
    ):
        return []
    return [f"{rank_label(rec)}: no data-plane row offers signals (usage, P99, interference)"]


def provides_interface(rec, ctx, pattern: str) -> Problems:
    if any(fnmatchcase(p, pattern) for r in stack_rows(rec, ctx) for p in r.provides):
        return []
    return [f"{rank_label(rec)}: no row provides {pattern} (rows: {rec.get('rows')})"]


def states_trade_off(rec, ctx) -> Problems:
    text = rec.get("trade_off")
    if isinstance(text, str) and text.strip() and "\n" not in text.strip():
        return []
    raise Unmet(f"{rank_label(rec)}: trade_off is {text!r}, expected one line of text")


def shares_gpus_for(rec, ctx, workload: str, units: Sequence[str]) -> Problems:
    """Some pool serving `workload` shares GPUs by one of `units`."""
    if any(
        unit_kinds(d, gpu_presenters(pool_rows(rec, pool, ctx))) & set(units)
        for pool, d in serving(rec, [workload])
    ):
        return []
    return [
        f"{rank_label(rec)}: {workload} runs on "
        f"{[(p, d['units']) for p, d in serving(rec, [workload])]}, none of {list(units)}"
    ]


def shape_is(rec, ctx, shape: str) -> Problems:
    return [] if rec.get("shape") == shape else [f"{rank_label(rec)}: expected shape {shape}"]


# -- over the top three ----------------------------------------------------------------------


def signature(rec: Mapping[str, Any], ctx: Context) -> tuple[frozenset, frozenset]:
    """What makes a stack a different kind of answer: the projects presenting each pool with the
    resource units the pool gives (METHOD step 2: another unit — MIG slices instead of whole
    GPUs — is another answer, while a MIG strategy of the same unit is a variant), and the
    governor's project (exporters, labellers, runtimes and platform rows left out)."""
    details = rec.get("pool_details") or {}
    # A sorted tuple, not a set: two pools on the same presenter and unit are two pools.
    pools = tuple(
        sorted(
            (
                tuple(sorted(r.project for r in gpu_presenters(pool_rows(rec, pool, ctx)))),
                tuple(sorted((details.get(pool) or {}).get("units") or ())),
            )
            for pool in rec.get("pools") or {}
        )
    )
    return pools, frozenset(r.project for r in governors(stack_rows(rec, ctx)))


def three_stacks(recs, ctx) -> Problems:
    return [] if len(recs) >= 3 else [f"only {len(recs)} stacks recommended, expected three"]


def distinct_top3(recs, ctx) -> Problems:
    seen: dict[tuple, Mapping[str, Any]] = {}
    problems = []
    for rec in recs[:3]:
        key = signature(rec, ctx)
        if key in seen:
            pools, governor = key
            problems.append(
                f"{rank_label(rec)} differs from {rank_label(seen[key])} only by variants of "
                f"the same projects: presenters {[sorted(p) for p, _units in pools]}, governor "
                f"{sorted(governor)} ({rec.get('rows')} vs {seen[key].get('rows')})"
            )
        else:
            seen[key] = rec
    return problems


def shapes_cover(recs, ctx, shapes: Sequence[str]) -> Problems:
    found = [rec.get("shape") for rec in recs[:3]]
    missing = sorted(set(shapes) - set(found))
    return [f"top three are shapes {found}; missing {missing}"] if missing else []


def left_out_mentions(ranking, ctx, groups: Sequence[Sequence[str]]) -> Problems:
    """Ranking.left_out has a text naming a token of every group (word match, any case)."""
    texts = getattr(ranking, "left_out", None)
    if texts is None:
        raise Unmet("the Ranking has no left_out (texts naming what was left out and why)")
    patterns = [[re.compile(rf"\b{re.escape(t)}\b", re.IGNORECASE) for t in g] for g in groups]
    if any(all(any(p.search(str(text)) for p in g) for g in patterns) for text in texts):
        return []
    return [f"no left_out text names one of each of {list(map(list, groups))}: {list(texts)}"]


# -- profile v2: node groups, named tenants, what is installed -------------------------------


def _groups(ctx: Context) -> list[Mapping[str, Any]]:
    return list(ctx.profile.get("node_groups") or ())


def _tenants(ctx: Context) -> list[Mapping[str, Any]]:
    return list(ctx.profile.get("tenants") or ())


def _detail_field(rec, pool: str, detail: Mapping[str, Any], key: str) -> Any:
    if key not in detail:
        raise Unmet(f"{rank_label(rec)}: pool_details[{pool!r}] has no {key!r} (profile v2)")
    return detail[key]


def every_group_hosts_a_pool(rec, ctx) -> Problems:
    """Every node group hosts a pool (no GPUs vanish), and every pool names a group it lives on."""
    details = pool_details(rec)
    named = {g["name"] for g in _groups(ctx)}
    hosted = {pool: _detail_field(rec, pool, d, "node_group") for pool, d in details.items()}
    problems = [
        f"{rank_label(rec)}: pool {pool!r} lives on {group!r}, not a node group of the profile"
        for pool, group in hosted.items()
        if group not in named
    ]
    return problems + [
        f"{rank_label(rec)}: node group {group!r} hosts no pool (pools: {hosted})"
        for group in sorted(named - set(hosted.values()))
    ]


def no_mig_on_group(rec, ctx, group: str) -> Problems:
    """No pool on `group` hands out MIG slices or runs a MIG row."""
    problems = []
    for pool, d in pool_details(rec).items():
        if _detail_field(rec, pool, d, "node_group") != group:
            continue
        mig = [
            r.id
            for r in gpu_presenters(pool_rows(rec, pool, ctx))
            if "mig_slice" in r.resource_units and "whole_gpu" not in r.resource_units
        ]
        if "mig_slice" in d["units"] or mig:
            problems.append(
                f"{rank_label(rec)}: pool {pool!r} on node group {group!r} uses MIG "
                f"(units {d['units']}, rows {mig})"
            )
    return problems


def work_on_groups(rec, ctx, workload: str, groups: Sequence[str]) -> Problems:
    """Pools serving `workload` live on one of `groups`."""
    return [
        f"{rank_label(rec)}: pool {pool!r} serves {workload} on node group "
        f"{_detail_field(rec, pool, d, 'node_group')!r}, expected one of {list(groups)}"
        for pool, d in serving(rec, [workload])
        if _detail_field(rec, pool, d, "node_group") not in groups
    ]


def tenants_by_work(rec, ctx) -> Problems:
    """Each pool serves, by name, exactly the tenants that run its work; each tenant is served."""
    problems = []
    seen: set[str] = set()
    for pool, d in pool_details(rec).items():
        expected = sorted(
            t["name"] for t in _tenants(ctx) if set(t["workloads"]) & set(d["workloads"])
        )
        given = sorted(_detail_field(rec, pool, d, "tenants"))
        seen.update(given)
        if given != expected:
            problems.append(
                f"{rank_label(rec)}: pool {pool!r} ({', '.join(d['workloads'])}) serves "
                f"{given}; the tenants running that work are {expected}"
            )
    missing = sorted({t["name"] for t in _tenants(ctx)} - seen)
    return problems + ([f"{rank_label(rec)}: tenants {missing} in no pool"] if missing else [])


def tenant_rules_kept(rec, ctx) -> Problems:
    """A tenant that never shares a GPU is never in a pool whose GPUs are shared across tenants
    through a sub-GPU unit (its own cross_tenant_sharing binds the pool)."""
    never = {t["name"] for t in _tenants(ctx) if t.get("cross_tenant_sharing") == "never"}
    problems = []
    for pool, d in pool_details(rec).items():
        here = set(_detail_field(rec, pool, d, "tenants")) & never
        shared = set(d["units"]) & SUB_GPU_UNITS
        if here and d["tenant_sharing"] == "across_tenants" and shared:
            problems.append(
                f"{rank_label(rec)}: pool {pool!r} shares GPUs across tenants as {sorted(shared)}"
                f" though {sorted(here)} never share a GPU"
            )
    return problems


def demand_lands(rec, ctx) -> Problems:
    """Every named tenant's demand line lands in exactly one pool that runs that tenant's work."""
    problems = []
    for tenant in _tenants(ctx):
        for line in tenant.get("demand") or ():
            homes = [
                pool
                for pool, d in pool_details(rec).items()
                for item in _detail_field(rec, pool, d, "demand")
                if item.get("tenant") == tenant["name"]
                and item.get("workload") == line["workload"]
                and line["workload"] in d["workloads"]
                and all(item.get(k) == v for k, v in line.items() if k != "when")
            ]
            if len(homes) != 1:
                problems.append(
                    f"{rank_label(rec)}: {tenant['name']}'s demand {dict(line)} lands in "
                    f"{homes or 'no pool'}"
                )
    return problems


def keeps_installed_governor(rec, ctx) -> Problems:
    """The stack's governor is the one installed (a new one is a migration)."""
    installed = {item["project"] for item in ctx.profile.get("installed") or ()}
    projects = {r.project for r in governors(stack_rows(rec, ctx))}
    if projects & installed:
        return []
    return [f"{rank_label(rec)}: governor {sorted(projects)} replaces the installed {installed}"]


def topology_governor(rec, ctx) -> Problems:
    """Training is governed by a scheduler that places by topology (NVLink domains, racks)."""
    topology = [
        r.id for r in governors(stack_rows(rec, ctx)) if "capability:topology-aware" in r.provides
    ]
    if topology:
        return []
    found = [r.id for r in governors(stack_rows(rec, ctx))]
    return [f"{rank_label(rec)}: governor {found} does not place by topology"]


def checks_mention(rec, ctx, groups: Sequence[Sequence[str]]) -> Problems:
    """The stack's acceptance checks name a word of every group."""
    texts = [str(c) for c in rec.get("acceptance_checks") or ()]
    missing = [
        list(group)
        for group in groups
        if not any(
            re.search(rf"\b{re.escape(w)}\b", t, re.IGNORECASE) for w in group for t in texts
        )
    ]
    return [f"{rank_label(rec)}: no acceptance check names {missing}"] if missing else []


def never_says(rec, ctx, words: Sequence[str]) -> Problems:
    """None of `words` (whole words) appears in what the stack tells the reader: its trade-off,
    explanation, fits, missing and acceptance checks."""
    texts = [str(rec.get("trade_off") or ""), str(rec.get("explanation") or "")]
    for key in ("fits", "missing", "acceptance_checks"):
        texts += [str(t) for t in rec.get(key) or ()]
    return [
        f"{rank_label(rec)} says {w!r}: {t[:160]!r}"
        for w in words
        for t in texts
        if re.search(rf"\b{re.escape(w)}\b", t)
    ]


def names_unknown_model(ranking, ctx, model: str) -> Problems:
    """The ranking names the GPU model the facts do not know."""
    unknown = getattr(ranking, "unknown_models", None)
    if unknown is None:
        raise Unmet("the Ranking has no unknown_models")
    return [] if model in unknown else [f"unknown_models is {unknown}, expected {model!r}"]


def distinct_planes_top3(ranking, ctx) -> Problems:
    """No two of the top three share the data plane (per pool: presenting projects and units)
    and differ only in the governor, unless the ranking says the profile leaves nothing else."""
    recs = [r.to_dict() if hasattr(r, "to_dict") else r for r in list(ranking)[:3]]
    planes: dict[tuple, Mapping[str, Any]] = {}
    problems = []
    for rec in recs:
        plane = signature(rec, ctx)[0]
        if plane in planes:
            problems.append(
                f"{rank_label(rec)} has the data plane of {rank_label(planes[plane])}: "
                f"{[list(p) for p, _u in plane]}"
            )
        planes.setdefault(plane, rec)
    if problems and getattr(ranking, "alike", None):
        return []
    return problems


RECOMMENDATION_CHECKS: dict[str, Callable[..., Problems]] = {
    f.__name__: f
    for f in (
        report_ok,
        kubernetes_ok,
        no_dra,
        serves_vendor,
        no_mig,
        tenant_safe,
        interactive_on_fractions,
        inference_on_hard_units,
        training_on_whole_gpus,
        gang_for,
        one_governor,
        governor_has,
        quota_reaches_every_pool,
        preemption_protects_inference,
        p99_check_on_inference_pool,
        all_workloads_served,
        isolation_per_workload,
        pool_details_honest,
        offers_signals,
        provides_interface,
        states_trade_off,
        shares_gpus_for,
        shape_is,
        every_group_hosts_a_pool,
        no_mig_on_group,
        work_on_groups,
        tenants_by_work,
        tenant_rules_kept,
        demand_lands,
        keeps_installed_governor,
        topology_governor,
        checks_mention,
        never_says,
    )
}
LIST_CHECKS: dict[str, Callable[..., Problems]] = {
    f.__name__: f for f in (three_stacks, distinct_top3, shapes_cover)
}
RANKING_CHECKS: dict[str, Callable[..., Problems]] = {
    f.__name__: f for f in (left_out_mentions, names_unknown_model, distinct_planes_top3)
}
SCOPES = ("each", "any", "first", "top3", "ranking")


def evaluate(
    scope: str, check: str, args: Mapping[str, Any], ranking: Sequence[Any], ctx: Context
) -> Problems:
    """Problems of one expectation over a ranking (its top three, or the ranking itself)."""
    if scope == "ranking":
        return RANKING_CHECKS[check](ranking, ctx, **args)
    recs = [r.to_dict() if hasattr(r, "to_dict") else r for r in list(ranking)[:3]]
    if scope == "top3":
        return LIST_CHECKS[check](recs, ctx, **args)
    fn = RECOMMENDATION_CHECKS[check]
    if not recs:
        return ["no stack recommended"]
    if scope == "first":
        return fn(recs[0], ctx, **args)
    per_rec = [fn(rec, ctx, **args) for rec in recs]
    if scope == "each":
        return [p for problems in per_rec for p in problems]
    if any(not problems for problems in per_rec):  # scope "any"
        return []
    return ["none of the top three:"] + [p for problems in per_rec for p in problems]
