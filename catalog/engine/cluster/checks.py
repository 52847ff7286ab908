"""The checks of a deployed cluster against the catalog's contracts and an evaluation's decision."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from fnmatch import fnmatchcase
from itertools import combinations
from typing import Any

from catalog.engine.baseline import KUBERNETES_BASELINE
from catalog.engine.cluster.decision import drift_findings
from catalog.engine.cluster.detect import (
    Detected,
    as_list,
    as_mapping,
    chart_name_version,
    detect_rows,
    gpu_label_keys,
    node_labels,
    node_pools,
    node_resources,
)
from catalog.engine.cluster.dra import dra_feature_findings
from catalog.engine.cluster.report import (
    ERROR,
    INFO,
    SEVERITIES,
    WARNING,
    ClusterReport,
    Decided,
    Finding,
)
from catalog.engine.cluster.snapshot import Snapshot
from catalog.engine.oracle import links_between
from catalog.engine.rows import Row
from catalog.engine.text import _

# Requirements met on the host, outside Kubernetes (a driver baked into the node image): a
# snapshot cannot see them, so an unmet one is said, not counted as an error.
HOST_LEVEL = ("capability:*-driver", "capability:*container-toolkit*")
# Kueue's own guide to HAMi quotas, through resource transformations (total-gpumem, …).
KUEUE_HAMI_GUIDE = (
    "https://github.com/kubernetes-sigs/kueue/blob/v0.19.2/"
    "site/content/en/docs/tasks/run/using_hami.md"
)
# Extended resources that are GPUs or slices of them when a node advertises them.
GPU_RESOURCE_PATTERNS = ("nvidia.com/*", "amd.com/*")


def _names(values: Iterable[str]) -> str:
    return ", ".join(sorted(set(values)))


class _Context:
    """What every check reads: rows by id, what was detected where, the nodes' facts."""

    def __init__(
        self,
        snapshot: Snapshot,
        rows: Sequence[Row],
        signatures: Mapping[str, Mapping[str, Any]],
        detected: list[Detected],
        evidence: Mapping[str, Sequence[str]],
    ):
        self.snapshot = snapshot
        self.by_id = {r.id: r for r in rows}
        self.signatures = signatures
        self.detected = detected
        self.present = [self.by_id[d.row] for d in detected]
        self.nodes = {n.get("metadata", {}).get("name", ""): n for n in snapshot.items("nodes")}
        self.labels = {name: node_labels(node) for name, node in self.nodes.items()}
        self.resources = {name: node_resources(node) for name, node in self.nodes.items()}
        self._evidence = evidence
        # crd:<group>/<version>/<Kind> for every served version of every CRD collected
        self.crd_kinds = {
            f"crd:{spec.get('group')}/{version.get('name')}/{as_mapping(spec.get('names')).get('kind')}"
            for crd in snapshot.items("crds")
            for spec in (as_mapping(crd.get("spec")),)
            for version in as_list(spec.get("versions"))
            if isinstance(version, Mapping)
        }

    def evidence(self, *row_ids: str) -> tuple[str, ...]:
        urls: list[str] = []
        for row_id in row_ids:
            urls.extend(self._evidence.get(row_id, ()))
            urls.extend(self.signatures.get(row_id, {}).get("evidence", ()))
        return tuple(dict.fromkeys(urls))

    def reach(self, found: Detected) -> list[tuple[Detected, Row]]:
        """The other detected rows that run where `found` runs (or anywhere, for a cluster-wide
        row), cluster-wide rows included."""
        mine = set(found.nodes)
        return [
            (d, self.by_id[d.row])
            for d in self.detected
            if d is not found and (d.cluster_wide or found.cluster_wide or mine & set(d.nodes))
        ]


def exclusive_conflicts(ctx: _Context) -> list[Finding]:
    """Two rows holding one ownership token on the same node."""
    findings = []
    for a, b in combinations(ctx.detected, 2):
        tokens = ctx.by_id[a.row].exclusive & ctx.by_id[b.row].exclusive
        shared = sorted(set(a.nodes) & set(b.nodes))
        if not tokens or not shared:
            continue
        findings.append(
            Finding(
                ERROR,
                "exclusive-token-shared",
                _(
                    "%(a)s and %(b)s both hold %(tokens)s on %(count)s node(s) (%(nodes)s): "
                    "both advertise and hand out the same devices, so two pods can be given "
                    "one GPU",
                    a=ctx.by_id[a.row].label,
                    b=ctx.by_id[b.row].label,
                    tokens=_names(tokens),
                    count=len(shared),
                    nodes=_names(shared[:10]) + (" …" if len(shared) > 10 else ""),
                ),
                nodes=tuple(shared),
                objects=(*a.objects, *b.objects),
                rows=(a.row, b.row),
                evidence=ctx.evidence(a.row, b.row),
            )
        )
    return findings


def _met_in_cluster(ctx: _Context, pattern: str, found: Detected) -> bool:
    """A label or resource requirement is met when the row's own nodes carry it; a CRD one when
    the CustomResourceDefinition is installed (whoever installed it)."""
    kind, _sep, name = pattern.partition(":")
    if kind == "crd":
        return any(fnmatchcase(ident, pattern) for ident in ctx.crd_kinds)
    nodes = found.nodes or tuple(ctx.nodes)
    if kind == "label":
        return any(fnmatchcase(k, name) for n in nodes for k in ctx.labels.get(n, {}))
    if kind == "resource":
        return any(fnmatchcase(k, name) for n in nodes for k in ctx.resources.get(n, {}))
    return False


def unmet_requirements(ctx: _Context) -> list[Finding]:
    findings = []
    for found in ctx.detected:
        row = ctx.by_id[found.row]
        reach = ctx.reach(found)
        unmet = [
            pattern
            for pattern in sorted(row.requires)
            if not (
                any(fnmatchcase(i, pattern) for i in KUBERNETES_BASELINE)
                or any(fnmatchcase(i, pattern) for _d, r in reach for i in r.provides)
                or _met_in_cluster(ctx, pattern, found)
            )
        ]
        host = [p for p in unmet if any(fnmatchcase(p, h) for h in HOST_LEVEL)]
        for pattern in (p for p in unmet if p not in host):
            findings.append(
                Finding(
                    ERROR,
                    "requirement-unmet",
                    _(
                        "%(row)s requires %(pattern)s, and nothing deployed where it runs "
                        "provides it",
                        row=row.label,
                        pattern=pattern,
                    ),
                    nodes=found.nodes,
                    objects=found.objects,
                    rows=(found.row,),
                    evidence=ctx.evidence(found.row),
                )
            )
        if host:
            findings.append(
                Finding(
                    INFO,
                    "requirement-not-visible",
                    _(
                        "%(row)s requires %(patterns)s, which nothing deployed provides: right "
                        "only if the node image installs them",
                        row=row.label,
                        patterns=", ".join(host),
                    ),
                    nodes=found.nodes,
                    objects=found.objects,
                    rows=(found.row,),
                    evidence=ctx.evidence(found.row),
                )
            )
    return findings


def _resources_in_use(ctx: _Context) -> dict[str, set[str]]:
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


def _providers(ctx: _Context, resource: str) -> list[Row]:
    return [r for r in ctx.present if f"resource:{resource}" in r.provides]


def _transformed_into(missing: str, covered: set[str], in_use: Mapping[str, set[str]]) -> list[str]:
    """Covered resources that look like a Kueue resource transformation's output for `missing`
    (nvidia.com/gpumem -> nvidia.com/total-gpumem): nothing advertises them, and their name ends
    in the missing resource's name."""
    name = missing.rpartition("/")[2]
    return sorted(
        c for c in covered if c not in in_use and (c.endswith("-" + name) or c.endswith("." + name))
    )


def queue_coverage(ctx: _Context) -> list[Finding]:
    """Kueue ClusterQueues and Volcano Queues against the GPU resources in use."""
    in_use = _resources_in_use(ctx)
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
        names = tuple(f"ClusterQueue {q['metadata']['name']}" for q in queues)
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
                        nodes=_names(nodes[:10]),
                        covered=_names(covered) or "-",
                    ),
                    nodes=tuple(nodes),
                    objects=names,
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
                    objects=names,
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
                        capped=_names(gpu_capped),
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


def _cannot_express(ctx: _Context, in_use: Mapping[str, set[str]]) -> list[Finding]:
    """A quota row present that cannot name a resource in use (its accepts do not match it, or
    only another scheduler can assign it)."""
    findings = []
    for queue in ctx.present:
        if "capability:quota" not in queue.provides:
            continue
        patterns = queue.accepts | queue.requires
        for resource in sorted(in_use):
            ident = f"resource:{resource}"
            providers = [p for p in _providers(ctx, resource) if p.id != queue.id]
            if providers:
                expressible = any(
                    link.interface == ident for p in providers for link in links_between(p, queue)
                )
            else:
                expressible = any(fnmatchcase(ident, p) for p in patterns)
            if expressible:
                continue
            findings.append(
                Finding(
                    ERROR,
                    "queue-cannot-express",
                    _(
                        "%(queue)s cannot put quota on or place %(resource)s%(by)s",
                        queue=queue.label,
                        resource=resource,
                        by=_(
                            " (only the scheduler %(providers)s rely on can assign it)",
                            providers=_names(p.label for p in providers),
                        )
                        if providers
                        else "",
                    ),
                    nodes=tuple(sorted(in_use[resource])),
                    rows=(queue.id, *(p.id for p in providers)),
                    evidence=ctx.evidence(queue.id, *(p.id for p in providers)),
                )
            )
    return findings


def cost_coverage(ctx: _Context) -> list[Finding]:
    """A cost row deployed that does not account for GPU resources pods here are sized in:
    their GPU cost is charged as whole GPUs or lands in idle cost (the issue's vGPU slice
    billed as a whole GPU)."""
    in_use = _resources_in_use(ctx)
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


def signals_missing(ctx: _Context, decision: Decided | None) -> list[Finding]:
    """Signals the decided stack's rows work from that nothing deployed exports: each required
    one, and the accepted ones when none of them is exported (a cost tool that accepts DCGM
    utilisation then bills by requests alone)."""
    if decision is None:
        return []
    exported = {i for r in ctx.present for i in r.signals | r.provides if i.startswith("signal:")}

    def unexported(patterns: Iterable[str]) -> list[str]:
        return sorted(p for p in patterns if not any(fnmatchcase(s, p) for s in exported))

    findings = []
    for row_id in decision.rows:
        row = ctx.by_id.get(row_id)
        if row is None:
            continue
        for pattern in unexported(p for p in row.requires if p.startswith("signal:")):
            findings.append(
                Finding(
                    WARNING,
                    "signal-not-exported",
                    _(
                        "%(row)s, decided, needs %(signal)s, and nothing deployed exports it",
                        row=row.label,
                        signal=pattern,
                    ),
                    rows=(row_id,),
                    evidence=ctx.evidence(row_id),
                )
            )
        accepted = [p for p in row.accepts if p.startswith("signal:")]
        if accepted and len(unexported(accepted)) == len(accepted):
            findings.append(
                Finding(
                    WARNING,
                    "signal-not-exported",
                    _(
                        "%(row)s, decided, works from %(signals)s when present, and nothing "
                        "deployed that the catalog knows exports any of them",
                        row=row.label,
                        signals=", ".join(sorted(accepted)),
                    ),
                    rows=(row_id,),
                    evidence=ctx.evidence(row_id),
                )
            )
    return findings


def idle_releases(ctx: _Context) -> list[Finding]:
    """Helm releases of catalog charts none of whose rows runs: a failed or partial install,
    workloads in namespaces the collector could not list, or a leftover."""
    running = [ctx.signatures.get(d.row, {}) for d in ctx.detected]
    known = [s for s in ctx.signatures.values() if s.get("helm_charts")]
    findings = []
    for release in ctx.snapshot.helm_releases:
        chart, _version = chart_name_version(str(release.get("chart", "")))
        if not any(fnmatchcase(chart, p) for s in known for p in s["helm_charts"]):
            continue
        if any(fnmatchcase(chart, p) for s in running for p in s.get("helm_charts", ())):
            continue
        where = f"{release.get('namespace', '')}/{release.get('name', '')}".lstrip("/")
        findings.append(
            Finding(
                INFO,
                "helm-release-without-workloads",
                _(
                    "Helm release %(release)s of chart %(chart)s is installed, but none of its "
                    "workloads was found in the snapshot",
                    release=where,
                    chart=str(release.get("chart", "")),
                ),
                objects=(f"Helm release {where}",),
            )
        )
    return findings


def check_cluster(
    snapshot: Snapshot,
    *,
    rows: Sequence[Row],
    signatures: Mapping[str, Mapping[str, Any]],
    decision: Decided | None = None,
    dra_features: Sequence[Mapping[str, Any]] = (),
    evidence: Mapping[str, Sequence[str]] | None = None,
) -> ClusterReport:
    """Resolve the snapshot to catalog rows and check what runs: ownership conflicts per node,
    unmet requirements, queue quota against the GPU resources in use, DRA features against the
    Kubernetes release and, given a decision, drift from it. `evidence` maps row ids to the
    catalog's evidence URLs, quoted with the findings."""
    pools = node_pools(snapshot, gpu_label_keys(signatures))
    detected = detect_rows(
        snapshot,
        rows=rows,
        signatures=signatures,
        pools=pools,
        prefer=decision.rows if decision else (),
    )
    ctx = _Context(snapshot, rows, signatures, detected, evidence or {})
    findings = [
        *exclusive_conflicts(ctx),
        *unmet_requirements(ctx),
        *queue_coverage(ctx),
        *cost_coverage(ctx),
        *signals_missing(ctx, decision),
        *idle_releases(ctx),
        *dra_feature_findings(snapshot, dra_features),
    ]
    if decision is not None:
        findings.extend(
            drift_findings(
                decision=decision,
                detected=detected,
                pools=pools,
                by_id=ctx.by_id,
                signatures=signatures,
                evidence=ctx.evidence,
            )
        )
    order = {severity: i for i, severity in enumerate(SEVERITIES)}
    findings.sort(key=lambda f: (order[f.severity], f.code, f.rows, f.nodes))
    return ClusterReport(
        cluster=snapshot.cluster,
        kubernetes_version=snapshot.kubernetes_version,
        detected=detected,
        pools=pools,
        findings=findings,
    )
