"""Voiding an approval: it stays on record, marked voided with why, and counts no more."""

from __future__ import annotations

from django.utils import timezone

from evaluations.review.models import Review


def approval_void(review_id: int, *, reason: str) -> bool:
    """Void the approval unless it already is; whether this call voided it (a concurrent
    voiding of the same approval makes one of them return False)."""
    updated = Review.objects.filter(pk=review_id, voided_at__isnull=True).update(
        voided_at=timezone.now(), void_reason=reason
    )
    return bool(updated)
