"""The review state machine: draft → in_review → approved | changes_requested → archived."""

from __future__ import annotations

from django.utils.translation import gettext as _

from evaluations.errors import InvalidTransition
from evaluations.models import Evaluation, State


class EvaluationWorkflow:
    """One method per transition; each checks the current state and sets the next one.

    The caller (a service) saves, checks roles and writes the audit entry.
    """

    def __init__(self, evaluation: Evaluation) -> None:
        self.evaluation = evaluation

    def _move(self, allowed: tuple[str, ...], target: str, refusal: str) -> tuple[str, str]:
        current = self.evaluation.state
        if current not in allowed:
            raise InvalidTransition(refusal.format(state=State(current).label))
        self.evaluation.state = target
        return current, target

    @property
    def editable(self) -> bool:
        return self.evaluation.state in (State.DRAFT, State.CHANGES_REQUESTED, State.APPROVED)

    def submit(self) -> tuple[str, str]:
        """Hand a draft to the team's reviewers."""
        return self._move(
            (State.DRAFT, State.CHANGES_REQUESTED),
            State.IN_REVIEW,
            _("Only a draft can be submitted for review; this evaluation is {state}."),
        )

    def approve(self) -> tuple[str, str]:
        """A reviewer signs the evaluation off."""
        return self._move(
            (State.IN_REVIEW,),
            State.APPROVED,
            _("Only an evaluation in review can be approved; this one is {state}."),
        )

    def request_changes(self) -> tuple[str, str]:
        """A reviewer sends the evaluation back to its authors."""
        return self._move(
            (State.IN_REVIEW,),
            State.CHANGES_REQUESTED,
            _("Changes can be requested only on an evaluation in review; this one is {state}."),
        )

    def reopen(self) -> tuple[str, str]:
        """An edit turns a changes-requested or approved evaluation back into a draft."""
        return self._move(
            (State.CHANGES_REQUESTED, State.APPROVED),
            State.DRAFT,
            _(
                "Only an approved or changes-requested evaluation can be reopened; "
                "this one is {state}."
            ),
        )

    def archive(self) -> tuple[str, str]:
        """Put the evaluation away; it stays readable and can no longer change."""
        return self._move(
            (State.DRAFT, State.APPROVED, State.CHANGES_REQUESTED),
            State.ARCHIVED,
            _(
                "An evaluation in review or already archived cannot be archived; "
                "this one is {state}."
            ),
        )
