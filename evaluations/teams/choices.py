"""The teams vocabulary: the roles a member can have, which other rooms name without the
teams models."""

from __future__ import annotations

from django.db import models
from django.utils.translation import gettext_lazy as _


class Role(models.TextChoices):
    """Team roles, weakest first: each role can do everything the ones before it can."""

    VIEWER = "viewer", _("viewer")
    EDITOR = "editor", _("editor")
    REVIEWER = "reviewer", _("reviewer")
    ADMIN = "admin", _("admin")


ROLE_RANK = {role: rank for rank, role in enumerate(Role.values)}
