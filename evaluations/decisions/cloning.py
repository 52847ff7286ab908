"""Cloning an evaluation: a new draft that starts from another's placement work.

The copy takes the four placement steps (profile, units, candidates with their enforcement
points, alternative groups and boundaries) and none of the judgement on them: no decision, no
reviews, no comments, no audit history. It starts at revision 1 with one audit entry naming
where it came from. Whoever had written the source (its own source's authors included) is
remembered on the copy as one of its authors: they may not approve it (review independence).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from django.db import transaction
from django.utils.translation import gettext as _

from evaluations.audit.selectors import evaluation_editors
from evaluations.audit.services import audit_write
from evaluations.models import Candidate, Evaluation, UnitChoice
from evaluations.review.editing import role_require
from evaluations.review.revisions import revision_record
from evaluations.teams.choices import Role

if TYPE_CHECKING:
    from evaluations.teams.models import Team

TITLE_MAX = 200


@transaction.atomic
def evaluation_clone(*, evaluation: Evaluation, actor, team: Team | None = None) -> Evaluation:
    """Copy `evaluation` into `team` (default: its own) as a new draft by `actor`.

    The actor must be able to read the source (a member of its team) and edit in the target.
    """
    team = team or evaluation.team
    role_require(evaluation=evaluation, team=evaluation.team, actor=actor, role=Role.VIEWER)
    role_require(evaluation=None, team=team, actor=actor, role=Role.EDITOR)
    title = _("Copy of %(title)s") % {"title": evaluation.title}
    copy = Evaluation.objects.create(
        title=title[:TITLE_MAX],
        team=team,
        created_by=actor,
        profile=dict(evaluation.profile or {}),
        profile_done=evaluation.profile_done,
        units_done=evaluation.units_done,
        candidates_done=evaluation.candidates_done,
        boundaries_done=evaluation.boundaries_done,
        cloned_from=evaluation,
    )
    copy.source_authors.set(evaluation_editors(evaluation))
    UnitChoice.objects.bulk_create(
        UnitChoice(evaluation=copy, unit_id=choice.unit_id, note=choice.note)
        for choice in evaluation.units.all()
    )
    sources = list(evaluation.candidates.prefetch_related("enforcement_points"))
    copies = Candidate.objects.bulk_create(
        Candidate(
            evaluation=copy,
            row_id=source.row_id,
            points_confirmed=source.points_confirmed,
            alternative_group=source.alternative_group,
            promise=source.promise,
            non_promise=source.non_promise,
            position=source.position,
        )
        for source in sources
    )
    through = Candidate.enforcement_points.through
    through.objects.bulk_create(
        through(candidate_id=new.pk, enforcementpoint_id=point.pk)
        for source, new in zip(sources, copies, strict=True)
        for point in source.enforcement_points.all()
    )
    audit_write(
        copy,
        actor,
        "cloned",
        changes={
            "title": {"old": None, "new": copy.title},
            "cloned_from": {
                "id": evaluation.pk,
                "title": evaluation.title,
                "team": evaluation.team.name,
                "revision": evaluation.revision,
            },
        },
    )
    revision_record(evaluation=copy, actor=actor)
    return copy
