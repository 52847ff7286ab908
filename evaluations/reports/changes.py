"""The report's "changes since the last approval" appendix: for a re-review (an evaluation
approved before and changed since), the diff from the approved revision to the current one."""

from __future__ import annotations

from typing import Any

from evaluations.models import Evaluation
from evaluations.review.diffs.selectors import DiffRefused, evaluation_diff, last_approved_revision
from evaluations.review.diffs.words import diff_in_words


def changes_since_approval(evaluation: Evaluation) -> dict[str, Any]:
    """`{"changes": …}` for the report context; None unless approved before and changed since."""
    approved = last_approved_revision(evaluation)
    if approved is None or approved >= evaluation.revision:
        return {"changes": None}
    try:
        compared = evaluation_diff(evaluation=evaluation, old=approved, new=evaluation.revision)
    except DiffRefused as exc:  # the approved revision predates recorded contents
        return {
            "changes": {"approved": approved, "current": evaluation.revision, "error": str(exc)}
        }
    return {
        "changes": {
            "approved": approved,
            "current": evaluation.revision,
            "error": "",
            **diff_in_words(compared.diff, compared.labels),
        }
    }
