"""The review vocabulary: a reviewer's verdict, which other rooms name without the review
models."""

from __future__ import annotations

from django.db import models
from django.utils.translation import gettext_lazy as _


class Verdict(models.TextChoices):
    APPROVE = "approve", _("approve")
    REQUEST_CHANGES = "request_changes", _("request changes")
