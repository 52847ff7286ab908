"""The checks of a deployed cluster against the catalog's contracts and an evaluation's decision."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from fnmatch import fnmatchcase
from itertools import combinations
from typing import Any

from catalog.engine.baseline import KUBERNETES_BASELINE
from catalog.engine.cluster.context import Context, listed
from catalog.engine.cluster.decision import drift_findings
from catalog.engine.cluster.detect import (
    Detected,
    chart_name_version,
    detect_rows,
    gpu_label_keys,
    node_pools,
)
from catalog.engine.cluster.dra import builtin_dra_features, dra_feature_findings
from catalog.engine.cluster.report import (
    ERROR,
    INFO,
    SEVERITIES,
    WARNING,
    ClusterReport,
    Decided,
    Finding,
)
from catalog.engine.cluster.resources import cost_coverage, queue_coverage
from catalog.engine.cluster.snapshot import Snapshot
from catalog.engine.rows import Row
from catalog.engine.text import _

# Requirements met on the host, outside Kubernetes (a driver baked into the node image): a
# snapshot cannot see them, so an unmet one is said, not counted as an error.
HOST_LEVEL = ("capability:*-driver", "capability:*container-toolkit*")


def exclusive_conflicts(ctx: Context) -> list[Finding]:
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
                    tokens=listed(tokens),
                    count=len(shared),
                    nodes=listed(shared[:10]) + (" …" if len(shared) > 10 else ""),
                ),
                nodes=tuple(shared),
                objects=(*a.objects, *b.objects),
                rows=(a.row, b.row),
                evidence=ctx.evidence(a.row, b.row),
            )
        )
    return findings


def _met_in_cluster(ctx: Context, pattern: str, found: Detected) -> bool:
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


def unmet_requirements(ctx: Context) -> list[Finding]:
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


def signals_missing(ctx: Context, decision: Decided | None) -> list[Finding]:
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


def idle_releases(ctx: Context) -> list[Finding]:
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
    dra_features: Sequence[Mapping[str, Any]] | None = None,
    evidence: Mapping[str, Sequence[str]] | None = None,
) -> ClusterReport:
    """Resolve the snapshot to catalog rows and check what runs: ownership conflicts per node,
    unmet requirements, queue quota against the GPU resources in use, DRA features against the
    Kubernetes release and, given a decision, drift from it. `evidence` maps row ids to the
    catalog's evidence URLs, quoted with the findings; `dra_features` defaults to
    the catalog's Kubernetes facts (pass () to leave the DRA checks out)."""
    pools = node_pools(snapshot, gpu_label_keys(signatures))
    detected = detect_rows(
        snapshot,
        rows=rows,
        signatures=signatures,
        pools=pools,
        prefer=decision.rows if decision else (),
    )
    ctx = Context(snapshot, rows, signatures, detected, evidence or {})
    findings = [
        *exclusive_conflicts(ctx),
        *unmet_requirements(ctx),
        *queue_coverage(ctx),
        *cost_coverage(ctx),
        *signals_missing(ctx, decision),
        *idle_releases(ctx),
        *dra_feature_findings(
            snapshot, builtin_dra_features() if dra_features is None else dra_features
        ),
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
