"""Drift: what an evaluation decided against what the cluster runs, as a whole and per pool."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping

from catalog.engine.cluster.detect import POOL_LABELS, WORKLOAD_KEYS, Detected, NodePool
from catalog.engine.cluster.report import ERROR, INFO, WARNING, Decided, Finding
from catalog.engine.rows import Row
from catalog.engine.text import _


def _ids(found: Detected) -> set[str]:
    return {found.row, *found.alternatives}


def _detectable(signatures: Mapping[str, Mapping], row_id: str) -> bool:
    return any(signatures.get(row_id, {}).get(k) for k in WORKLOAD_KEYS)


def drift_findings(
    *,
    decision: Decided,
    detected: list[Detected],
    pools: list[NodePool],
    by_id: Mapping[str, Row],
    signatures: Mapping[str, Mapping],
    evidence,
) -> list[Finding]:
    """Rows decided but absent, present but not decided, and per-pool differences."""
    findings = []
    present = set().union(*(_ids(d) for d in detected)) if detected else set()
    decided = set(decision.rows) | {r for ids in decision.pools.values() for r in ids}

    def label(row_id: str) -> str:
        return by_id[row_id].label if row_id in by_id else row_id

    for row_id in sorted(decided - present):
        if _detectable(signatures, row_id):
            findings.append(
                Finding(
                    ERROR,
                    "decided-row-absent",
                    _("%(row)s was decided, but the cluster does not run it", row=label(row_id)),
                    rows=(row_id,),
                    evidence=evidence(row_id),
                )
            )
        else:
            findings.append(
                Finding(
                    INFO,
                    "decided-row-undetectable",
                    _(
                        "%(row)s was decided; the catalog has no signature to find it by, so "
                        "whether it runs is not known",
                        row=label(row_id),
                    ),
                    rows=(row_id,),
                )
            )
    for found in detected:
        if _ids(found) & decided:
            continue
        findings.append(
            Finding(
                WARNING,
                "row-not-decided",
                _(
                    "%(row)s runs in the cluster but is not part of the decision",
                    row=label(found.row),
                ),
                nodes=found.nodes,
                objects=found.objects,
                rows=(found.row,),
                evidence=evidence(found.row),
            )
        )
    if decision.pools:
        findings.extend(_pool_drift(decision, detected, pools, label, present))
    return findings


def pool_slug(name: str) -> str:
    """A decided pool's name as a label value (DNS-1123 label, what the generated configuration
    labels nodes with): "interactive development" → "interactive-development"."""
    slug = re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")
    return slug[:63].rstrip("-") or "pool"


def _named(pool: NodePool, name: str) -> bool:
    values = {name, pool_slug(name)}
    return pool.name in values or any(pool.labels.get(key) in values for key in POOL_LABELS)


def _running(pool: NodePool, detected: list[Detected]) -> list[Detected]:
    return [d for d in detected if pool.name in d.pools]


def _pool_drift(decision, detected, pools, label, present) -> list[Finding]:
    """Decided pools matched to node pools (by name or pool label, else by the rows they run),
    then the rows each lacks or runs besides."""
    in_a_pool = {r for ids in decision.pools.values() for r in ids}
    decided = set(decision.rows) | in_a_pool
    cluster_wide = [r for r in decision.rows if r not in in_a_pool]
    unmatched = [p for p in pools if _running(p, detected)]
    findings = []
    for name, ids in sorted(decision.pools.items()):
        meant = set(ids)
        # Every node pool carrying the decided pool's name: nodes of one decided pool that differ
        # in their GPU labels (one MIG geometry per node) form several node pools.
        targets = [p for p in unmatched if _named(p, name)]
        if not targets:

            def overlap(pool: NodePool, meant: set[str] = meant) -> int:
                return len(set().union(*(_ids(d) for d in _running(pool, detected))) & meant)

            best = max(unmatched, key=overlap, default=None)
            targets = [best] if best is not None and overlap(best) else []
        if not targets:
            findings.append(
                Finding(
                    WARNING,
                    "pool-not-found",
                    _(
                        "decided pool %(pool)s (%(rows)s): no node pool runs any of its rows",
                        pool=name,
                        rows=", ".join(label(r) for r in sorted(meant)),
                    ),
                    rows=tuple(sorted(meant)),
                )
            )
            continue
        for target in targets:
            unmatched.remove(target)
            findings.extend(
                _target_drift(name, meant, target, detected, cluster_wide, decided, label, present)
            )
    return findings


def _target_drift(
    name: str,
    meant: set[str],
    target: NodePool,
    detected: list[Detected],
    cluster_wide: list[str],
    decided: set[str],
    label: Callable[[str], str],
    present: set[str],
) -> list[Finding]:
    """The decided rows one node pool of a decided pool lacks, and the decided rows it runs that
    were decided for other pools."""
    findings = []
    running = _running(target, detected)
    # A cluster-wide row (Deployments, webhooks) serves every pool it was decided for.
    serving = running + [d for d in detected if d.cluster_wide]
    here = set().union(*(_ids(d) for d in serving)) if serving else set()
    for row_id in sorted(meant - here):
        if row_id not in present:
            continue  # absent from the whole cluster: said once above
        findings.append(
            Finding(
                WARNING,
                "pool-row-missing",
                _(
                    "decided pool %(pool)s: %(row)s is meant to run on node pool "
                    "%(nodes)s, but runs only elsewhere",
                    pool=name,
                    row=label(row_id),
                    nodes=target.name,
                ),
                nodes=target.nodes,
                rows=(row_id,),
            )
        )
    allowed = meant | set(cluster_wide)
    for found in running:
        # A row decided for no pool at all is said once, as row-not-decided.
        if _ids(found) & allowed or not _ids(found) & decided:
            continue
        findings.append(
            Finding(
                WARNING,
                "pool-row-unexpected",
                _(
                    "decided pool %(pool)s: node pool %(nodes)s also runs %(row)s, which was "
                    "not decided for it",
                    pool=name,
                    nodes=target.name,
                    row=label(found.row),
                ),
                nodes=tuple(sorted(set(found.nodes) & set(target.nodes))),
                objects=found.objects,
                rows=(found.row,),
            )
        )
    return findings
