"""The review state machine: draft → in_review → approved | changes_requested → archived; an
approved evaluation whose stack check a catalog change made worse is needs_review (like a change
request the catalog made: its editors revise it or submit it again)."""

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
        return self.evaluation.state in (
            State.DRAFT,
            State.CHANGES_REQUESTED,
            State.APPROVED,
            State.NEEDS_REVIEW,
        )

    def submit(self) -> tuple[str, str]:
        """Hand a draft to the team's reviewers."""
        return self._move(
            (State.DRAFT, State.CHANGES_REQUESTED, State.NEEDS_REVIEW),
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
        """An edit turns a changes-requested, approved or needs-review evaluation into a draft."""
        return self._move(
            (State.CHANGES_REQUESTED, State.APPROVED, State.NEEDS_REVIEW),
            State.DRAFT,
            _(
                "Only an approved or changes-requested evaluation can be reopened; "
                "this one is {state}."
            ),
        )

    def archive(self) -> tuple[str, str]:
        """Put the evaluation away; it stays readable and can no longer change."""
        return self._move(
            (State.DRAFT, State.APPROVED, State.CHANGES_REQUESTED, State.NEEDS_REVIEW),
            State.ARCHIVED,
            _(
                "An evaluation in review or already archived cannot be archived; "
                "this one is {state}."
            ),
        )

    def flag_for_review(self) -> tuple[str, str]:
        """The catalog moved under an approved decision and its stack check got worse."""
        return self._move(
            (State.APPROVED,),
            State.NEEDS_REVIEW,
            _("Only an approved evaluation can be flagged for re-review; this one is {state}."),
        )
