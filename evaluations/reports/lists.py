"""The report's folded lists: free-text items (risks, acceptance checks) and the audit log with
repeats collapsed into runs, in the reader's language."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from django.utils import timezone

from evaluations.audit.labels import audit_action_label
from evaluations.models import State, Step

# A bullet or a number the author typed before an item: "- ", "* ", "• ", "1. ", "2) ", "☐ ".
TYPED_MARKER = re.compile(r"^(?:[-*•☐]|\d{1,3}[.)])\s+")


def text_items(text: str) -> list[str]:
    """A free-text list (one item a line, as the decision form asks) as list items: blank lines
    dropped, and a bullet or number the author typed not doubled by the list's own."""
    items = []
    for line in (text or "").splitlines():
        line = TYPED_MARKER.sub("", line.strip()).strip()
        if line:
            items.append(line)
    return items


def _when(first, last) -> str:
    """A run's time range: "2026-12-01 14:02–14:06", the date said once when it is the same."""
    start, end = (timezone.localtime(moment) for moment in (first, last))
    if start.replace(second=0, microsecond=0) == end.replace(second=0, microsecond=0):
        return f"{end:%Y-%m-%d %H:%M}"
    if start.date() == end.date():
        return f"{start:%Y-%m-%d %H:%M}–{end:%H:%M}"
    return f"{start:%Y-%m-%d %H:%M} – {end:%Y-%m-%d %H:%M}"


def audit_runs(audit: Sequence) -> list[dict[str, Any]]:
    """The audit log with repeats folded: ten saves of one step in a row are one line, with
    how many and over what time (the log is newest first); actions, steps and states named in
    the reader's language."""
    runs: list[dict[str, Any]] = []
    for entry in audit:
        who = entry.actor.get_username() if entry.actor else ""
        key = (who, entry.action, entry.step, entry.state_from, entry.state_to)
        if runs and runs[-1]["key"] == key:
            runs[-1]["count"] += 1
            runs[-1]["first"] = entry
            continue
        runs.append({"key": key, "who": who, "entry": entry, "first": entry, "count": 1})
    steps = dict(Step.choices)
    states = dict(State.choices)
    for run in runs:
        entry, first = run["entry"], run["first"]
        run["action"] = audit_action_label(entry.action)
        run["step"] = str(steps.get(entry.step, entry.step)) if entry.step else ""
        run["states"] = (
            (str(states.get(entry.state_from, entry.state_from)),
             str(states.get(entry.state_to, entry.state_to)))
            if entry.state_from or entry.state_to
            else None
        )  # fmt: skip
        run["when"] = _when(first.created_at, entry.created_at)
        run["revisions"] = (
            f"{first.revision}–{entry.revision}"
            if first.revision != entry.revision
            else str(entry.revision)
        )
    return runs
