"""How every evaluation write is made: the role check, the row lock, the audit entry, and the
state change an edit causes (an edit after approval or a change request reopens the draft)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from django.utils.translation import gettext as _

from evaluations.audit.selectors import entries_after
from evaluations.audit.services import audit_write
from evaluations.errors import EditConflict, InvalidInput, InvalidTransition, NotAllowed
from evaluations.models import Evaluation, State, Step
from evaluations.review.revisions import revision_record
from evaluations.review.workflow import EvaluationWorkflow
from evaluations.selectors import role_allows
from evaluations.teams.choices import Role
from evaluations.teams.selectors import role_of

if TYPE_CHECKING:
    from evaluations.teams.models import Team


def role_require(*, evaluation: Evaluation | None, team: Team, actor, role: str) -> str:
    """The actor's role in the team; NotAllowed when weaker than `role`."""
    current = role_of(team_id=team.pk, user=actor)
    if not role_allows(current, role):
        messages = {
            Role.EDITOR: _("Changing an evaluation needs the editor role in its team."),
            Role.REVIEWER: _("Only the team's reviewers (role reviewer or admin) can review."),
            Role.ADMIN: _("Only a team admin can do this."),
        }
        raise NotAllowed(messages.get(role, _("Your role in this team does not allow this.")))
    return current


def evaluation_lock(evaluation: Evaluation) -> Evaluation:
    """Re-read the evaluation under a row lock so two saves never interleave."""
    fresh = Evaluation.objects.select_for_update().get(pk=evaluation.pk)
    for name in ("user_role",):
        if hasattr(evaluation, name):
            setattr(fresh, name, getattr(evaluation, name))
    return fresh


def edit_begin(evaluation: Evaluation) -> tuple[str, str] | None:
    """Refuse edits in review or archived; an edit after approval or a change request reopens."""
    if evaluation.state in (State.IN_REVIEW, State.ARCHIVED):
        raise InvalidTransition(
            _("This evaluation is {state}: it cannot be edited now.").format(
                state=State(evaluation.state).label
            )
        )
    if evaluation.state in (State.APPROVED, State.CHANGES_REQUESTED, State.NEEDS_REVIEW):
        return EvaluationWorkflow(evaluation).reopen()
    return None


def edit_commit(
    evaluation: Evaluation, actor, *, step: str, changes: dict[str, Any], fields: list[str]
) -> Evaluation:
    transition = edit_begin(evaluation)
    evaluation.revision += 1
    evaluation.save(update_fields=[*fields, "state", "revision", "updated_at"])
    action = "step_saved" if step != Step.DECISION else "decided"
    if transition and transition[0] == State.APPROVED:
        # An approval covers the revision it saw; a later change needs approval again.
        changes = {**changes, "approval": _("withdrawn: the approved evaluation was edited")}
    audit_write(evaluation, actor, action, step=step, changes=changes, transition=transition)
    # What the evaluation says at this revision, kept for diffs between any two revisions.
    revision_record(evaluation=evaluation, actor=actor)
    return evaluation


# Revisions are PostgreSQL integers (PositiveIntegerField): 0 to 2**31 - 1.
REVISION_MAX = 2**31 - 1


def revision_problem() -> str:
    return _(
        "The revision this edit was made on must be a whole number from 0 to %(max)d: reload "
        "the page and save again."
    ) % {"max": REVISION_MAX}


def revision_check(evaluation: Evaluation, revision: int | None, actor) -> None:
    """Refuse an edit not made on the current revision (call under the row lock): two editors
    saving at once never overwrite each other silently. `None` means the caller did not say
    (the API refuses that with 428 before). A revision ahead of the current one was never
    read, so it is a conflict too; one that is not a stored integer is InvalidInput. Older
    revisions whose newer ones are all the same person's own saves (an autosave overtaken by a
    button press) are no conflict: their latest input is what they want kept."""
    if revision is None:
        return
    if isinstance(revision, bool) or not isinstance(revision, int):
        raise InvalidInput(revision_problem(), errors={"revision": [revision_problem()]})
    if not 0 <= revision <= REVISION_MAX:
        raise InvalidInput(revision_problem(), errors={"revision": [revision_problem()]})
    if revision == evaluation.revision:
        return
    if revision > evaluation.revision:
        raise EditConflict(
            _(
                "This evaluation is at revision {current}, not {yours}: reload it, look at what "
                "it says now, then save again."
            ).format(current=evaluation.revision, yours=revision),
            current_revision=evaluation.revision,
        )
    since = entries_after(evaluation, revision)
    if not since.exclude(actor=actor).exists():
        return
    last = since.exclude(actor=actor).select_related("actor").order_by("-id").first()
    who = last.actor.get_username() if last and last.actor else _("another editor")
    raise EditConflict(
        _(
            "{who} saved this evaluation (revision {current}) after you loaded revision "
            "{yours}, changing {what}: your input is not saved yet. Look at their change, then "
            "save again."
        ).format(who=who, current=evaluation.revision, yours=revision, what=_changed(since, actor)),
        current_revision=evaluation.revision,
    )


def _changed(entries, actor) -> str:
    """What the other editors changed, as `field → new value` (a few, the rest counted)."""
    parts = []
    for entry in entries.exclude(actor=actor).order_by("id"):
        for field, change in (entry.changes or {}).items():
            new = change.get("new") if isinstance(change, dict) else change
            parts.append(f"{field} → {str(new)[:40]}")
    shown = parts[:3] + ([_("{count} more").format(count=len(parts) - 3)] if len(parts) > 3 else [])
    return ", ".join(shown) or _("the evaluation")
