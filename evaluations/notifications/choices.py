"""The notifications vocabulary: the events people are told about, which other rooms name
without the notifications models."""

from __future__ import annotations

from django.db import models
from django.utils.translation import gettext_lazy as _


class Event(models.TextChoices):
    """Review events people are told about (in the app, by e-mail, by the team's webhook)."""

    SUBMITTED = "submitted", _("submitted for review")
    APPROVED = "approved", _("approved")
    CHANGES_REQUESTED = "changes_requested", _("changes requested")
    COMMENTED = "commented", _("commented")
    CATALOG_DRIFT = "catalog_drift", _("catalog changed under the decision")
    REVIEW_REQUESTED = "review_requested", _("review requested")
    # One approval of several the team's policy needs (the evaluation stays in review).
    APPROVAL_RECORDED = "approval_recorded", _("approved (more approvals needed)")
    # Not a review event: the "send a test event" button of the team's webhook log.
    TEST = "test", _("test event")
