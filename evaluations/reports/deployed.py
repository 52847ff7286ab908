"""The report's "deployed state" chapter: the snapshot attached to the evaluation, checked
against its decision (evaluations.clusters), in the shape the report template reads."""

from __future__ import annotations

from typing import Any

from evaluations.clusters.presentation import report_context, severity_counts
from evaluations.clusters.selectors import attached_snapshot, decided_of, snapshot_report
from evaluations.models import Evaluation


def deployed_state(evaluation: Evaluation) -> dict[str, Any]:
    """`{"deployed": …}` for the report context; None when no snapshot is attached."""
    snapshot = attached_snapshot(evaluation)
    if snapshot is None:
        return {"deployed": None}
    decided = decided_of(evaluation)
    report = snapshot_report(snapshot, evaluation=evaluation)
    return {
        "deployed": {
            "snapshot": snapshot,
            "counts": severity_counts(report.findings),
            # No map here: the report's map chapter already draws the decided stack.
            **report_context(report, decided=decided, with_map=False),
        }
    }
