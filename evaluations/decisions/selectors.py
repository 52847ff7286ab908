"""Decision reads: an evaluation's decision, and the decisions of a set of teams (the home
page watches the rows they rely on; the search looks through their text)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from django.db.models import QuerySet

from evaluations.decisions.models import Decision

if TYPE_CHECKING:
    from evaluations.models import Evaluation


def decision_of(evaluation: Evaluation) -> Decision | None:
    return Decision.objects.filter(evaluation=evaluation).first()


def decision_names_rows(evaluation: Evaluation) -> bool:
    """Whether the evaluation has a decision that chose at least one row."""
    return Decision.objects.filter(evaluation=evaluation).exclude(rows=[]).exists()


def decisions_of_teams(teams: QuerySet) -> QuerySet[Decision]:
    """The decisions of the teams `teams` selects (a query of team ids)."""
    return Decision.objects.filter(evaluation__team__in=teams)
