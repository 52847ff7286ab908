"""The review's writes: submitting a finished draft, a reviewer's verdict with comments per step
(an approval pins the decision), archiving."""

from __future__ import annotations

from django.db import transaction
from django.utils.translation import gettext as _

from evaluations.approvals.services import approval_status
from evaluations.audit.selectors import evaluation_editors
from evaluations.audit.services import audit_write
from evaluations.decisions.drift import decision_pin
from evaluations.decisions.selectors import decision_names_rows
from evaluations.errors import InvalidInput, NotAllowed
from evaluations.models import PLACEMENT_STEPS, Evaluation, State, Step
from evaluations.notifications.choices import Event
from evaluations.notifications.services import evaluation_announce
from evaluations.review.choices import Verdict
from evaluations.review.comments import open_comments_override, review_comments_add
from evaluations.review.editing import evaluation_lock, role_require
from evaluations.review.models import EvaluationRevision
from evaluations.review.revisions import revision_name
from evaluations.review.workflow import EvaluationWorkflow
from evaluations.teams.choices import Role
from evaluations.teams.selectors import membership_lock


def submission_missing(evaluation: Evaluation) -> list[str]:
    """What must be done before the evaluation can go to review, as step labels."""
    missing = [str(Step(step).label) for step in PLACEMENT_STEPS if not evaluation.step_done(step)]
    if Evaluation.decision.is_cached(evaluation):  # read with the evaluation (page reads)
        decision = getattr(evaluation, "decision", None)
        decided = bool(decision is not None and decision.rows)
    else:
        decided = decision_names_rows(evaluation)
    if not decided:
        missing.append(str(Step.DECISION.label))
    return missing


@transaction.atomic
def evaluation_submit(*, evaluation: Evaluation, actor) -> Evaluation:
    role_require(evaluation=evaluation, team=evaluation.team, actor=actor, role=Role.EDITOR)
    evaluation = evaluation_lock(evaluation)
    missing = submission_missing(evaluation)
    if missing:
        raise InvalidInput(
            _("Finish these before submitting for review: {missing}.").format(
                missing=", ".join(missing)
            ),
            errors={"steps": missing},
        )
    transition = EvaluationWorkflow(evaluation).submit()
    evaluation.save(update_fields=["state", "updated_at"])
    audit_write(evaluation, actor, "submitted", transition=transition)
    revision_name(evaluation=evaluation, name=EvaluationRevision.Name.SUBMITTED, actor=actor)
    evaluation_announce(evaluation=evaluation, actor=actor, event=Event.SUBMITTED)
    return evaluation


@transaction.atomic
def evaluation_review(
    *,
    evaluation: Evaluation,
    actor,
    verdict: str,
    comment: str = "",
    step_comments: dict[str, str] | None = None,
    override_comments: list[int] | None = None,
) -> Evaluation:
    """A reviewer approves or requests changes, with comments per step. An approval needs every
    open comment resolved or named in `override_comments` (the overrides are recorded)."""
    role_require(evaluation=evaluation, team=evaluation.team, actor=actor, role=Role.REVIEWER)
    # The reviewer's membership row first, then the evaluation's (the order a removal takes
    # them in): a removal or demotion made meanwhile waits for this approval and then voids it,
    # or is seen here and the approval is refused.
    membership_lock(team_id=evaluation.team_id, user=actor)
    role_require(evaluation=evaluation, team=evaluation.team, actor=actor, role=Role.REVIEWER)
    evaluation = evaluation_lock(evaluation)
    if evaluation.created_by_id == actor.pk:
        raise NotAllowed(_("An author cannot review their own evaluation."))
    if verdict == Verdict.APPROVE and actor.pk in evaluation_editors(evaluation):
        raise NotAllowed(
            _("You edited this evaluation, so you cannot approve it: ask a reviewer who did not.")
        )
    step_comments = {
        step: text.strip()
        for step, text in (step_comments or {}).items()
        if step in Step.values and text and text.strip()
    }
    comment = comment.strip()
    workflow = EvaluationWorkflow(evaluation)
    if verdict == Verdict.APPROVE:
        return _approve(evaluation, actor, comment, step_comments, override_comments or [])
    if verdict == Verdict.REQUEST_CHANGES:
        # A comment the reviewer left on a step page and nobody has resolved says it too.
        left_open = evaluation.comments.filter(author=actor, resolved_at__isnull=True).exists()
        if not comment and not step_comments and not left_open:
            message = _(
                "Say what should change: a comment, a comment on a step, or an open comment "
                "left on one of the pages."
            )
            raise InvalidInput(message, errors={"comment": [message]})
        transition = workflow.request_changes()
    else:
        message = _("Unknown verdict; allowed: {allowed}").format(allowed=", ".join(Verdict.values))
        raise InvalidInput(message, errors={"verdict": [message]})
    evaluation.save(update_fields=["state", "updated_at"])
    _review_record(evaluation, actor, verdict, comment, step_comments)
    revision_name(evaluation=evaluation, name="changes_requested", actor=actor)
    changes = {"comment": comment, **({"step_comments": step_comments} if step_comments else {})}
    audit_write(evaluation, actor, "changes_requested", changes=changes, transition=transition)
    review_comments_add(evaluation=evaluation, actor=actor, step_comments=step_comments)
    evaluation_announce(evaluation=evaluation, actor=actor, event=Event.CHANGES_REQUESTED)
    return evaluation


def _review_record(evaluation, actor, verdict, comment, step_comments) -> None:
    evaluation.reviews.create(
        reviewer=actor,
        verdict=verdict,
        comment=comment,
        step_comments=step_comments,
        revision=evaluation.revision,
    )


def _approve(
    evaluation: Evaluation, actor, comment: str, step_comments: dict, override_comments: list[int]
) -> Evaluation:
    """Record the approval of the current revision; the evaluation is approved once the
    approvals of this revision meet the team's policy (one approval without a policy). The
    audit names the approver and the revision either way."""
    if evaluation.state != State.IN_REVIEW:
        EvaluationWorkflow(evaluation).approve()  # refuses with the state's reason
    if actor.get_username() in approval_status(evaluation).approvers:
        raise InvalidInput(
            _("You already approved revision %(revision)s.") % {"revision": evaluation.revision}
        )
    overrides = open_comments_override(
        evaluation=evaluation, actor=actor, overridden=override_comments
    )
    _review_record(evaluation, actor, Verdict.APPROVE, comment, step_comments)
    status = approval_status(evaluation)
    changes = {
        "comment": comment,
        **({"step_comments": step_comments} if step_comments else {}),
        **({"overridden_comments": [o.comment_id for o in overrides]} if overrides else {}),
        "approvals": f"{len(status.approvers)}/{status.required}",
    }
    if status.met:
        transition = EvaluationWorkflow(evaluation).approve()
        evaluation.save(update_fields=["state", "updated_at"])
        revision_name(evaluation=evaluation, name="approved", actor=actor)
        audit_write(evaluation, actor, "approved", changes=changes, transition=transition)
        decision_pin(evaluation=evaluation)
    else:
        evaluation.save(update_fields=["updated_at"])
        audit_write(evaluation, actor, "approval_recorded", changes=changes)
    review_comments_add(evaluation=evaluation, actor=actor, step_comments=step_comments)
    # Each approval is told: the last one as the evaluation's approval, the others as one of
    # several (so the author and the other reviewers see progress, not silence).
    event = Event.APPROVED if status.met else Event.APPROVAL_RECORDED
    evaluation_announce(evaluation=evaluation, actor=actor, event=event)
    return evaluation


@transaction.atomic
def evaluation_archive(*, evaluation: Evaluation, actor) -> Evaluation:
    role_require(evaluation=evaluation, team=evaluation.team, actor=actor, role=Role.ADMIN)
    evaluation = evaluation_lock(evaluation)
    transition = EvaluationWorkflow(evaluation).archive()
    evaluation.save(update_fields=["state", "updated_at"])
    audit_write(evaluation, actor, "archived", transition=transition)
    return evaluation
