"""Audit reads: an evaluation's log, who edited it, when its review round began, and the entries
after or between revisions (for the edit-conflict check and the diffs)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from django.db.models import QuerySet

from evaluations.audit.models import AuditEntry

if TYPE_CHECKING:
    from evaluations.models import Evaluation

# Audit actions that change what a review looks at.
EDIT_ACTIONS = ("created", "step_saved", "decided")


def audit_for(evaluation: Evaluation, *, limit: int = 100) -> QuerySet[AuditEntry]:
    return evaluation.audit.select_related("actor")[:limit]


def edits_by(*, actor, evaluation) -> QuerySet[AuditEntry]:
    """The actor's edits of the evaluation (`evaluation` may be an `OuterRef`, for `Exists`)."""
    return AuditEntry.objects.filter(evaluation=evaluation, actor=actor, action__in=EDIT_ACTIONS)


def evaluation_editors(evaluation: Evaluation, *, inherited: bool = True) -> set[int]:
    """Everyone who wrote any part of the evaluation: its creator and each editor of a step or the
    decision, and for a clone everyone who had written its source when it was copied (issue 28).
    None of them may approve it (review independence). `inherited=False` leaves the source's
    authors out: who changed this evaluation itself (whom its verdicts are told to)."""
    editors = set(
        AuditEntry.objects.filter(evaluation=evaluation, action__in=EDIT_ACTIONS)
        .exclude(actor=None)
        .values_list("actor_id", flat=True)
    )
    if evaluation.created_by_id:
        editors.add(evaluation.created_by_id)
    if inherited:
        editors |= set(evaluation.source_authors.values_list("pk", flat=True))
    return editors


def review_round_started(evaluation: Evaluation):
    """When the evaluation was last submitted (None before): a review round's approvals and
    review requests count from then on."""
    return (
        AuditEntry.objects.filter(evaluation=evaluation, action="submitted")
        .order_by("-id")
        .values_list("created_at", flat=True)
        .first()
    )


def entries_after(evaluation: Evaluation, revision: int) -> QuerySet[AuditEntry]:
    """What was written to the evaluation after `revision` (the edit-conflict check's question)."""
    return AuditEntry.objects.filter(evaluation=evaluation, revision__gt=revision)


def entries_between(evaluation: Evaluation, old: int, new: int) -> QuerySet[AuditEntry]:
    """The entries that made revisions `old + 1` to `new`, oldest first, with their actors."""
    return (
        AuditEntry.objects.filter(evaluation=evaluation, revision__gt=old, revision__lte=new)
        .select_related("actor")
        .order_by("id")
    )
