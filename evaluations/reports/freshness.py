"""Evidence freshness of a decision: when each decided row was last verified against upstream,
and which rows were verified more than 12 months before the decision (or never)."""

from __future__ import annotations

import calendar
import datetime as dt
from dataclasses import dataclass

from django.utils import timezone

from evaluations import selectors
from evaluations.models import Evaluation

STALE_AFTER_MONTHS = 12


@dataclass(frozen=True, slots=True)
class RowFreshness:
    ref: str
    name: str
    verified_at: dt.date | None
    stale: bool  # verified more than STALE_AFTER_MONTHS before the decision, or never


def months_before(day: dt.date, months: int) -> dt.date:
    """The same day `months` earlier (the month's last day where it is shorter: 29 Feb -> 28)."""
    year, month = divmod(day.year * 12 + day.month - 1 - months, 12)
    last = calendar.monthrange(year, month + 1)[1]
    return day.replace(year=year, month=month + 1, day=min(day.day, last))


def decision_day(evaluation: Evaluation) -> dt.date | None:
    """The day the decision stands on: its approval, else its last save."""
    decision = getattr(evaluation, "decision", None)
    if decision is None:
        return None
    moment = decision.approved_at or decision.decided_at
    return timezone.localdate(moment) if moment else timezone.localdate()


def decision_freshness(evaluation: Evaluation) -> list[RowFreshness]:
    """Each decided row with its verified_at, in the decision's order."""
    day = decision_day(evaluation)
    if day is None:
        return []
    cutoff = months_before(day, STALE_AFTER_MONTHS)
    return [
        RowFreshness(
            ref=row.ref,
            name=row.project.name,
            verified_at=row.verified_at,
            stale=row.verified_at is None or row.verified_at < cutoff,
        )
        for row in selectors.decision_rows(evaluation)
    ]


def stale_evidence(evaluation: Evaluation) -> list[RowFreshness]:
    """The decided rows verified more than 12 months before the decision, or never verified."""
    return [item for item in decision_freshness(evaluation) if item.stale]
