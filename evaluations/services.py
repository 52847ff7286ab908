"""Evaluation writes that belong to no single room: creating an evaluation and the edit check
every page asks before it shows a form. The rooms hold the rest (`steps.services`,
`decisions.services`, `review.services`); each service is atomic, checks the actor's role in the
evaluation's team, moves the state machine when the change calls for it and writes one audit
entry saying who changed what.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from django.db import transaction
from django.utils.translation import gettext as _

from evaluations.audit.services import audit_write
from evaluations.errors import InvalidInput
from evaluations.models import Evaluation, State, Step
from evaluations.review.editing import edit_begin, role_require
from evaluations.review.revisions import revision_record
from evaluations.steps.services import evaluation_step_save
from evaluations.teams.choices import Role

if TYPE_CHECKING:
    from evaluations.teams.models import Team


def evaluation_check_editable(*, evaluation: Evaluation, actor) -> None:
    """Raise what an edit by `actor` would raise, before any input is validated."""
    role_require(evaluation=evaluation, team=evaluation.team, actor=actor, role=Role.EDITOR)
    if evaluation.state in (State.IN_REVIEW, State.ARCHIVED):
        edit_begin(evaluation)


@transaction.atomic
def evaluation_create(
    *, actor, team: Team, title: str, profile: dict[str, Any] | None = None
) -> Evaluation:
    role_require(evaluation=None, team=team, actor=actor, role=Role.EDITOR)
    title = (title or "").strip()
    if not title:
        raise InvalidInput(_("An evaluation needs a title."), errors={"title": [_("Required.")]})
    evaluation = Evaluation.objects.create(team=team, title=title[:200], created_by=actor)
    audit_write(
        evaluation, actor, "created", changes={"title": {"old": None, "new": evaluation.title}}
    )
    revision_record(evaluation=evaluation, actor=actor)
    if profile:
        evaluation_step_save(evaluation=evaluation, actor=actor, step=Step.PROFILE, data=profile)
        evaluation.refresh_from_db()
    return evaluation
