"""Review reads for the other rooms: the approvals that count, whether someone reviewed a
revision, and who took part in an evaluation's review."""

from __future__ import annotations

from typing import TYPE_CHECKING

from django.db.models import QuerySet

from evaluations.review.choices import Verdict
from evaluations.review.models import Comment, Review

if TYPE_CHECKING:
    from datetime import datetime

    from evaluations.models import Evaluation


def approvals_of(evaluation: Evaluation, *, since: datetime | None) -> QuerySet[Review]:
    """The approvals of the evaluation's current revision given from `since` on (all, if None),
    not voided and by someone (a deleted account's are left out), oldest first."""
    reviews = Review.objects.filter(
        evaluation=evaluation,
        verdict=Verdict.APPROVE,
        revision=evaluation.revision,
        voided_at__isnull=True,
    ).exclude(reviewer=None)
    if since is not None:
        reviews = reviews.filter(created_at__gte=since)
    return reviews.order_by("created_at", "id")


def reviews_by(*, reviewer, evaluation, revision) -> QuerySet[Review]:
    """The reviewer's reviews of the evaluation at `revision` (either may be an `OuterRef`)."""
    return Review.objects.filter(evaluation=evaluation, reviewer=reviewer, revision=revision)


def participant_ids(evaluation: Evaluation) -> set[int]:
    """Everyone who reviewed or commented on the evaluation (None for a deleted account)."""
    reviewers = Review.objects.filter(evaluation=evaluation).values_list("reviewer_id", flat=True)
    authors = Comment.objects.filter(evaluation=evaluation).values_list("author_id", flat=True)
    return set(reviewers) | set(authors)
