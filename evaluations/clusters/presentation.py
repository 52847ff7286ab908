"""A cluster check as the pages show it: findings by severity, detected rows with their catalog
names, node pools, and (with a decision) what was decided against what is deployed."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from django.utils.translation import gettext_lazy as _

from catalog.engine.cluster import ClusterReport, Decided, Finding
from catalog.models import PlacementRow
from evaluations.clusters.deployed_map import deployed_figure, row_states
from evaluations.configgen.config_drift import NOT_COLLECTED_TEXT

SEVERITIES = (
    ("error", _("Errors")),
    ("warning", _("Warnings")),
    ("info", _("Notes")),
)


# Evidence links shown per finding before the rest fold away (a pair of rows can cite dozens).
EVIDENCE_SHOWN = 4


@dataclass
class FindingView:
    """A finding with its rows named from the catalog and its evidence folded after a few."""

    finding: Finding
    rows: list[tuple[str, PlacementRow | None]]
    evidence: list[str]
    more_evidence: list[str]

    def __getattr__(self, name: str) -> Any:  # severity, code, message, nodes, objects
        return getattr(self.finding, name)


@dataclass
class PoolDifference:
    """One decided pool: the rows decided there, and which of them run somewhere in the cluster."""

    name: str
    decided: list[Any] = field(default_factory=list)
    missing: list[Any] = field(default_factory=list)


def catalog_rows(ids: Iterable[str]) -> dict[str, PlacementRow]:
    """Catalog rows by id (`project/key`) with what a page names them by, in one query."""
    ids = set(ids)
    by_slug: dict[str, set[str]] = {}
    for row_id in ids:
        slug, _sep, key = row_id.partition("/")
        by_slug.setdefault(slug, set()).add(key)
    rows = PlacementRow.objects.filter(project__slug__in=by_slug).select_related("project", "layer")
    return {row.ref: row for row in rows if row.ref in ids}


def findings_by_severity(
    findings: Iterable[Finding], names: dict[str, PlacementRow] | None = None
) -> list[tuple[str, Any, list[FindingView]]]:
    names = names or {}
    grouped: dict[str, list[FindingView]] = {key: [] for key, _label in SEVERITIES}
    for finding in findings:
        evidence = list(dict.fromkeys(finding.evidence))
        grouped.setdefault(finding.severity, []).append(
            FindingView(
                finding=finding,
                rows=[(ref, names.get(ref)) for ref in finding.rows],
                evidence=evidence[:EVIDENCE_SHOWN],
                more_evidence=evidence[EVIDENCE_SHOWN:],
            )
        )
    return [(key, label, grouped[key]) for key, label in SEVERITIES if grouped[key]]


def report_context(
    report: ClusterReport, *, decided: Decided | None = None, with_map: bool = True
) -> dict[str, Any]:
    """What the cluster and compare pages (and the report chapter) show of one check."""
    deployed_ids = [item.row for item in report.detected]
    decided_ids = list(decided.rows) if decided is not None else []
    finding_ids = [ref for finding in report.findings for ref in finding.rows]
    names = catalog_rows([*deployed_ids, *decided_ids, *finding_ids])
    detected = [{"item": item, "row": names.get(item.row)} for item in report.detected]
    context: dict[str, Any] = {
        "report": report,
        "severity_groups": findings_by_severity(report.findings, names),
        "finding_count": len(report.findings),
        "error_count": sum(1 for f in report.findings if f.severity == "error"),
        "detected": detected,
        "pools": report.pools,
    }
    if decided is not None:
        deployed = set(deployed_ids)
        context["comparison"] = {
            "absent": [(ref, names.get(ref)) for ref in decided_ids if ref not in deployed],
            "undecided": [d for d in detected if d["item"].row not in set(decided_ids)],
            "both": [d for d in detected if d["item"].row in set(decided_ids)],
            "pools": [
                PoolDifference(
                    name=pool,
                    decided=[(ref, names.get(ref)) for ref in refs],
                    missing=[(ref, names.get(ref)) for ref in refs if ref not in deployed],
                )
                for pool, refs in decided.pools.items()
            ],
        }
    if with_map:
        states = row_states(deployed_ids, decided_ids if decided is not None else None)
        context["map_figure"] = deployed_figure(states)
    return context


def severity_counts(findings: Iterable[Any]) -> dict[str, int]:
    """Findings per severity, from Finding objects or the stored summary's dicts."""
    counts = {key: 0 for key, _label in SEVERITIES}
    for finding in findings:
        severity = finding.get("severity") if isinstance(finding, dict) else finding.severity
        counts[severity] = counts.get(severity, 0) + 1
    return counts


def with_summary_counts(snapshots: Iterable[Any]) -> list[Any]:
    """Snapshots with `counts` and `detected_count` read from the summary stored at upload."""
    snapshots = list(snapshots)
    for snapshot in snapshots:
        summary = snapshot.summary or {}
        snapshot.counts = summary.get("counts") or severity_counts(summary.get("findings", []))
        snapshot.detected_count = len(summary.get("detected", []))
    return snapshots


def config_drift_context(drift: Any) -> dict[str, Any]:
    """The differences from the generated configuration grouped by generated file, in the
    files' order, with the count that is not a mere note; or why there is no configuration."""
    if drift is None:
        return {}
    groups: dict[str, list[Any]] = {}
    for item in drift.items:
        groups.setdefault(item.path, []).append(item)
    # Files not compared are named together, after the files that were, by why they were not.
    not_compared = [p for p, items in groups.items() if not any(i.compared for i in items)]
    not_collected = [p for p in not_compared if groups[p][0].message.template == NOT_COLLECTED_TEXT]
    return {
        "config_drift": {
            "unavailable": drift.unavailable,
            "files": [(p, items) for p, items in groups.items() if p not in not_compared],
            "not_collected": not_collected,
            "not_yet": [p for p in not_compared if p not in not_collected],
            "count": sum(1 for item in drift.items if item.severity != "info"),
        }
    }
