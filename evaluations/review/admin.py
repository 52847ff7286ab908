"""Review admin: an evaluation's reviews, shown read-only on its admin page."""

from __future__ import annotations

from ecomap.admin_inlines import ReadOnlyInline
from evaluations.review.models import Review


class ReviewInline(ReadOnlyInline):
    model = Review
    fields = (
        "created_at", "reviewer", "verdict", "comment", "step_comments", "revision",
        "voided_at", "void_reason",
    )  # fmt: skip
    readonly_fields = fields
