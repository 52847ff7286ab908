"""GPU resources in use against the rows that must name them: queue quotas and cost tools."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping
from fnmatch import fnmatchcase

from catalog.engine.cluster.context import Context, listed
from catalog.engine.cluster.detect import as_list, as_mapping
from catalog.engine.cluster.report import ERROR, WARNING, Finding
from catalog.engine.express import unexpressed, unexpressed_words
from catalog.engine.text import _

# Kueue's own guide to HAMi quotas, through resource transformations (total-gpumem, …).
KUEUE_HAMI_GUIDE = (
    "https://github.com/kubernetes-sigs/kueue/blob/v0.19.2/"
    "site/content/en/docs/tasks/run/using_hami.md"
)
# Extended resources that are GPUs or slices of them when a node advertises them.
GPU_RESOURCE_PATTERNS = ("nvidia.com/*", "amd.com/*")


def resources_in_use(ctx: Context) -> dict[str, set[str]]:
    """GPU resources pods are sized in, with the nodes that serve each: what nodes advertise,
    and what a detected row provides that another detected row requires (HAMi's scheduler needs
    nvidia.com/gpumem although nodes advertise only nvidia.com/gpu)."""
    in_use: dict[str, set[str]] = defaultdict(set)
    for node, resources in ctx.resources.items():
        for name in resources:
            if any(fnmatchcase(name, p) for p in GPU_RESOURCE_PATTERNS):
                in_use[name].add(node)
    required = {p for r in ctx.present for p in r.requires if p.startswith("resource:")}
    for found in ctx.detected:
        for ident in ctx.by_id[found.row].provides:
            if ident.startswith("resource:") and any(fnmatchcase(ident, p) for p in required):
                in_use[ident.removeprefix("resource:")].update(found.nodes)
    return in_use


def _transformed_into(missing: str, covered: set[str], in_use: Mapping[str, set[str]]) -> list[str]:
    """Covered resources that look like a Kueue resource transformation's output for `missing`
    (nvidia.com/gpumem -> nvidia.com/total-gpumem): nothing advertises them, and their name ends
    in the missing resource's name."""
    name = missing.rpartition("/")[2]
    return sorted(
        c for c in covered if c not in in_use and (c.endswith("-" + name) or c.endswith("." + name))
    )


def queue_coverage(ctx: Context) -> list[Finding]:
    """Kueue ClusterQueues and Volcano Queues against the GPU resources in use."""
    in_use = resources_in_use(ctx)
    if not in_use:
        return []
    findings = []
    queues = ctx.snapshot.items("clusterqueues")
    kueue_rows = tuple(r.id for r in ctx.present if r.project == "kueue")
    if queues:
        covered = {
            str(name)
            for q in queues
            for group in as_list(as_mapping(q.get("spec")).get("resourceGroups"))
            if isinstance(group, Mapping)
            for name in as_list(group.get("coveredResources"))
        }
        queue_objects = tuple(f"ClusterQueue {q['metadata']['name']}" for q in queues)
        uncovered = sorted(set(in_use) - covered)
        outputs = {m: _transformed_into(m, covered, in_use) for m in uncovered}
        missing = [m for m in uncovered if not outputs[m]]
        transformed = [m for m in uncovered if outputs[m]]
        if missing:
            nodes = sorted(set().union(*(in_use[m] for m in missing)))
            findings.append(
                Finding(
                    ERROR,
                    "queue-resource-not-covered",
                    _(
                        "no ClusterQueue covers %(missing)s, which the GPU nodes serve "
                        "(%(nodes)s): Kueue never admits a workload that requests them, so it "
                        "stays pending; covered: %(covered)s",
                        missing=", ".join(missing),
                        nodes=listed(nodes[:10]),
                        covered=listed(covered) or "-",
                    ),
                    nodes=tuple(nodes),
                    objects=queue_objects,
                    rows=kueue_rows,
                    evidence=ctx.evidence(*kueue_rows),
                )
            )
        if transformed:
            nodes = sorted(set().union(*(in_use[m] for m in transformed)))
            findings.append(
                Finding(
                    WARNING,
                    "queue-resource-transformed",
                    _(
                        "ClusterQueues cover %(outputs)s instead of %(missing)s: right only if "
                        "Kueue's configuration transforms them (resources.transformations, which "
                        "a snapshot does not hold); otherwise workloads requesting them stay "
                        "pending",
                        outputs=", ".join(o for m in transformed for o in outputs[m]),
                        missing=", ".join(transformed),
                    ),
                    nodes=tuple(nodes),
                    objects=queue_objects,
                    rows=kueue_rows,
                    evidence=(KUEUE_HAMI_GUIDE, *ctx.evidence(*kueue_rows)),
                )
            )
    volcano = ctx.snapshot.items("queues")
    volcano_rows = tuple(r.id for r in ctx.present if r.project == "volcano")
    for queue in volcano:
        spec = as_mapping(queue.get("spec"))
        capped = {
            str(k)
            for part in (spec.get("capability"), spec.get("deserved"))
            if isinstance(part, Mapping)
            for k in part
        }
        gpu_capped = {k for k in capped if any(fnmatchcase(k, p) for p in GPU_RESOURCE_PATTERNS)}
        missing = sorted(set(in_use) - capped)
        if gpu_capped and missing:
            findings.append(
                Finding(
                    WARNING,
                    "queue-resource-not-capped",
                    _(
                        "Volcano queue %(queue)s caps %(capped)s but not %(missing)s: work "
                        "that requests only those is not held to the queue's share",
                        queue=queue["metadata"]["name"],
                        capped=listed(gpu_capped),
                        missing=", ".join(missing),
                    ),
                    nodes=tuple(sorted(set().union(*(in_use[m] for m in missing)))),
                    objects=(f"Queue {queue['metadata']['name']}",),
                    rows=volcano_rows,
                    evidence=ctx.evidence(*volcano_rows),
                )
            )
    findings.extend(_cannot_express(ctx, in_use))
    return findings


def _cannot_express(ctx: Context, in_use: Mapping[str, set[str]]) -> list[Finding]:
    """A quota row present that cannot name a resource in use (its accepts do not match it, or
    only another scheduler can assign it): express.unexpressed, the stack check's rule too."""
    return [
        Finding(
            ERROR,
            "queue-cannot-express",
            unexpressed_words(item.queue, [item.resource], item.assigned_elsewhere),
            nodes=tuple(sorted(in_use[item.resource])),
            rows=(item.queue.id, *(p.id for p in item.providers)),
            evidence=ctx.evidence(item.queue.id, *(p.id for p in item.providers)),
        )
        for item in unexpressed(ctx.present, in_use)
    ]


def cost_coverage(ctx: Context) -> list[Finding]:
    """A cost row deployed that does not account for GPU resources pods here are sized in:
    their GPU cost is charged as whole GPUs or lands in idle cost (the issue's vGPU slice
    billed as a whole GPU)."""
    in_use = resources_in_use(ctx)
    findings = []
    for row in ctx.present:
        if "cost" not in row.functions:
            continue
        patterns = [p for p in row.accepts | row.requires if p.startswith("resource:")]
        missing = sorted(
            r for r in in_use if not any(fnmatchcase(f"resource:{r}", p) for p in patterns)
        )
        if not missing:
            continue
        findings.append(
            Finding(
                WARNING,
                "cost-resource-not-accounted",
                _(
                    "%(row)s does not account for %(missing)s, which pods here request: their "
                    "GPU cost is charged as whole GPUs or left as idle cost",
                    row=row.label,
                    missing=", ".join(missing),
                ),
                nodes=tuple(sorted(set().union(*(in_use[r] for r in missing)))),
                rows=(row.id,),
                evidence=ctx.evidence(row.id),
            )
        )
    return findings
