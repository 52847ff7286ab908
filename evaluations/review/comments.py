"""Review comments anchored to a step or the decision: adding, resolving, and what a page shows.

Editors and reviewers of the team comment; the comment's author, editors and reviewers resolve.
A comment names the revision it was made on, so a later reader sees whether it predates a fix.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from typing import Any

from django.db import transaction
from django.db.models import Count
from django.http import Http404
from django.utils import timezone
from django.utils.text import Truncator
from django.utils.translation import gettext as _

from evaluations import selectors
from evaluations.errors import InvalidInput, InvalidTransition, NotAllowed
from evaluations.models import PLACEMENT_STEPS, Evaluation, State, Step
from evaluations.notifications.choices import Event
from evaluations.notifications.services import anchor_path, evaluation_announce
from evaluations.review.models import Comment, CommentOverride
from evaluations.teams.choices import Role

MAX_BODY = 10000


def _check_open(evaluation: Evaluation) -> None:
    if evaluation.state == State.ARCHIVED:
        raise InvalidTransition(
            _("This evaluation is archived: its comments can no longer change.")
        )


def _check_anchor(anchor: str) -> None:
    if anchor not in Step.values:
        message = _("Unknown step {step}; steps: {steps}").format(
            step=anchor, steps=", ".join(Step.values)
        )
        raise InvalidInput(message, errors={"anchor": [message]})


@transaction.atomic
def comment_add(*, evaluation: Evaluation, actor, anchor: str, body: str) -> Comment:
    """Comment on one step or the decision; the evaluation's editors or reviewers are told."""
    role = selectors.user_role_in(evaluation, actor)
    if not selectors.role_allows(role, Role.EDITOR):
        raise NotAllowed(_("Commenting needs the editor or reviewer role in the team."))
    _check_anchor(anchor)
    _check_open(evaluation)
    body = (body or "").strip()
    if not body:
        message = _("Write the comment first.")
        raise InvalidInput(message, errors={"body": [message]})
    if len(body) > MAX_BODY:
        message = _("A comment has at most {count} characters.").format(count=MAX_BODY)
        raise InvalidInput(message, errors={"body": [message]})
    comment = Comment.objects.create(
        evaluation=evaluation,
        author=actor,
        anchor=anchor,
        body=body,
        revision=evaluation.revision,
    )
    evaluation_announce(evaluation=evaluation, actor=actor, event=Event.COMMENTED, comment=comment)
    return comment


def review_comments_add(
    *, evaluation: Evaluation, actor, step_comments: dict[str, str]
) -> list[Comment]:
    """A review's comments per step, each anchored where it belongs (the review's own
    notification tells people, so these announce nothing more)."""
    return Comment.objects.bulk_create(
        Comment(
            evaluation=evaluation,
            author=actor,
            anchor=anchor,
            body=text[:MAX_BODY],
            revision=evaluation.revision,
        )
        for anchor, text in step_comments.items()
        if anchor in Step.values and text.strip()
    )


def comment_can_resolve(comment: Comment, *, user, role: str | None) -> bool:
    return comment.author_id == user.pk or selectors.role_allows(role, Role.EDITOR)


@transaction.atomic
def comment_resolve(*, comment: Comment, actor) -> Comment:
    """Mark a comment resolved (resolving it again changes nothing)."""
    evaluation = comment.evaluation
    role = selectors.user_role_in(evaluation, actor)
    if not comment_can_resolve(comment, user=actor, role=role):
        raise NotAllowed(
            _("Only the comment's author, the team's editors or its reviewers can resolve it.")
        )
    _check_open(evaluation)
    Comment.objects.filter(pk=comment.pk, resolved_at__isnull=True).update(
        resolved_at=timezone.now(), resolved_by=actor
    )
    comment.refresh_from_db()
    return comment


def comment_get(*, evaluation: Evaluation, pk: int) -> Comment:
    """A comment of this evaluation (already fetched through the access helper), else 404."""
    comment = Comment.objects.filter(pk=pk, evaluation=evaluation).first()
    if comment is None:
        raise Http404("No such comment")
    comment.evaluation = evaluation
    return comment


def stage_anchor(stage: str) -> str:
    """The comment anchor a page of the evaluation shows ('' for pages without comments)."""
    if stage.startswith("step-") and stage[5:].isdigit():
        number = int(stage[5:])
        return PLACEMENT_STEPS[number - 1] if 1 <= number <= len(PLACEMENT_STEPS) else ""
    return Step.DECISION if stage == "decision" else ""


def comments_panel(
    *, evaluation: Evaluation, user, role: str | None, stage: str
) -> dict[str, Any] | None:
    """The comments of a step or decision page: open ones first, then the resolved; who may add
    or resolve. None for pages that have no anchor."""
    anchor = stage_anchor(stage)
    if not anchor:
        return None
    comments = list(
        evaluation.comments.filter(anchor=anchor).select_related("author", "resolved_by")
    )
    writable = evaluation.state != State.ARCHIVED
    for comment in comments:
        comment.can_resolve = writable and comment_can_resolve(comment, user=user, role=role)
    return {
        "anchor": anchor,
        "label": Step(anchor).label,
        "open": [comment for comment in comments if comment.resolved_at is None],
        "resolved": [comment for comment in comments if comment.resolved_at is not None],
        "can_comment": writable and selectors.role_allows(role, Role.EDITOR),
    }


def open_comments_by_anchor(
    evaluation: Evaluation, open_comments: list[Comment] | None = None
) -> list[dict[str, Any]]:
    """Open comments counted per step (in step order), with the page each is shown on; counted
    from `open_comments` (comments_open's list) when the caller has it."""
    if open_comments is not None:
        counts = Counter(comment.anchor for comment in open_comments)
    else:
        counts = dict(
            evaluation.comments.filter(resolved_at__isnull=True)
            .order_by()
            .values("anchor")
            .annotate(count=Count("id"))
            .values_list("anchor", "count")
        )
    return [
        {
            "anchor": anchor,
            "label": label,
            "count": counts[anchor],
            "url": anchor_path(evaluation, anchor),
        }
        for anchor, label in Step.choices
        if counts.get(anchor)
    ]


def comments_open(evaluation: Evaluation) -> list[Comment]:
    """The evaluation's unresolved comments in step order, then oldest first."""
    order = {anchor: index for index, anchor in enumerate(Step.values)}
    found = list(evaluation.comments.filter(resolved_at__isnull=True).select_related("author"))
    for comment in found:
        comment.anchor_url = anchor_path(evaluation, comment.anchor)
    return sorted(found, key=lambda comment: (order.get(comment.anchor, len(order)), comment.pk))


def open_comments_override(
    *, evaluation: Evaluation, actor, overridden: Iterable[int]
) -> list[CommentOverride]:
    """Before an approval: every open comment must be resolved or named in `overridden` by the
    approver; the overrides are recorded (who, when, which comment, which revision). Refuses,
    listing the comments left, when one is neither."""
    wanted = {int(pk) for pk in overridden}
    still_open = comments_open(evaluation)
    left = [comment for comment in still_open if comment.pk not in wanted]
    if left:
        listed = "; ".join(
            f"{Step(comment.anchor).label}: {Truncator(comment.body).chars(80)}" for comment in left
        )
        message = _(
            "Resolve or override each open comment before approving ({count} open): {listed}"
        ).format(count=len(left), listed=listed)
        raise InvalidInput(message, errors={"override_comments": [message]})
    return CommentOverride.objects.bulk_create(
        CommentOverride(comment=comment, approver=actor, revision=evaluation.revision)
        for comment in still_open
    )
