"""The teams app's models: teams, their members with a role each, and invitations.

They were the evaluations app's until issue 44 and keep its tables (`db_table`); the move was a
state-only migration (`evaluations.teams` 0001, `evaluations` 0020)."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _

from evaluations.teams.choices import ROLE_RANK, Role


class Team(models.Model):
    name = models.CharField(_("name"), max_length=120)
    slug = models.SlugField(_("slug"), max_length=80, unique=True)
    created_at = models.DateTimeField(_("created"), auto_now_add=True)
    members = models.ManyToManyField(
        settings.AUTH_USER_MODEL, through="Membership", related_name="teams"
    )
    # Optional outgoing webhook for review events: JSON signed with HMAC-SHA256 of the secret.
    webhook_url = models.URLField(_("webhook URL"), max_length=500, blank=True)
    webhook_secret = models.CharField(_("webhook secret"), max_length=128, blank=True)
    # What the POST body looks like (evaluations.notifications.formats): EcoMap's signed JSON,
    # a Slack-compatible incoming webhook, or a Feishu/Lark custom bot.
    webhook_format = models.CharField(
        _("webhook format"),
        max_length=10,
        default="generic",
        blank=True,
        choices=[
            ("generic", _("EcoMap JSON")),
            ("slack", _("Slack-compatible")),
            ("feishu", _("Feishu / Lark")),
        ],
    )

    class Meta:
        db_table = "evaluations_team"  # the table it had in the evaluations app
        ordering = ["name"]
        verbose_name = _("team")
        verbose_name_plural = _("teams")

    def __str__(self) -> str:
        return self.name


class Membership(models.Model):
    team = models.ForeignKey(Team, on_delete=models.CASCADE, related_name="memberships")
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="memberships"
    )
    role = models.CharField(_("role"), max_length=10, choices=Role.choices, default=Role.VIEWER)

    class Meta:
        db_table = "evaluations_membership"  # the table it had in the evaluations app
        ordering = ["team__name", "user__username"]
        verbose_name = _("membership")
        verbose_name_plural = _("memberships")
        constraints = [
            models.UniqueConstraint(fields=["team", "user"], name="membership_unique_user"),
        ]
        indexes = [
            # every page and endpoint asks "which teams is this user in, with which role"
            models.Index(fields=["user", "team"], name="membership_by_user_idx"),
        ]

    def __str__(self) -> str:
        return f"{self.user} in {self.team} ({self.role})"

    def can(self, role: str) -> bool:
        """The member's role is `role` or stronger."""
        return ROLE_RANK[self.role] >= ROLE_RANK[role]


class Invitation(models.Model):
    """A team admin's invitation of someone by e-mail; the link carries a key stored only hashed.

    Accepting it (signing in, or setting a password for a new account) makes the membership.
    """

    team = models.ForeignKey(Team, on_delete=models.CASCADE, related_name="invitations")
    email = models.EmailField(_("e-mail"))
    role = models.CharField(_("role"), max_length=10, choices=Role.choices, default=Role.VIEWER)
    key_hash = models.CharField(max_length=64, unique=True, editable=False)
    invited_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+"
    )
    created_at = models.DateTimeField(_("sent"), auto_now_add=True)
    expires_at = models.DateTimeField(_("expires"))
    accepted_at = models.DateTimeField(_("accepted"), null=True, blank=True)
    accepted_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    revoked_at = models.DateTimeField(_("withdrawn"), null=True, blank=True)

    class Meta:
        db_table = "evaluations_invitation"  # the table it had in the evaluations app
        ordering = ["-created_at", "-id"]
        verbose_name = _("invitation")
        verbose_name_plural = _("invitations")
        indexes = [models.Index(fields=["team", "-created_at"], name="invitation_by_team_idx")]

    def __str__(self) -> str:
        return f"{self.email} to {self.team} ({self.role})"
