"""A team's approval policy and its rules; a request for one person's review."""

from __future__ import annotations

from django.conf import settings
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.utils.translation import gettext_lazy as _


class ApprovalPolicy(models.Model):
    """How many distinct approvals of the same revision an evaluation of the team needs; a team
    without one needs a single approval (EcoMap's behaviour before policies)."""

    team = models.OneToOneField(
        "teams.Team", on_delete=models.CASCADE, related_name="approval_policy"
    )
    required_approvals = models.PositiveSmallIntegerField(
        _("approvals required"),
        default=1,
        validators=[MinValueValidator(1), MaxValueValidator(10)],
    )
    updated_at = models.DateTimeField(_("updated"), auto_now=True)

    class Meta:
        db_table = "evaluations_approvalpolicy"  # the table it had in the evaluations app
        verbose_name = _("approval policy")
        verbose_name_plural = _("approval policies")

    def __str__(self) -> str:
        return f"{self.team}: {self.required_approvals} approval(s)"


class ApprovalRule(models.Model):
    """ "At least N approvals from these people or from this role" (e.g. one from security)."""

    policy = models.ForeignKey(ApprovalPolicy, on_delete=models.CASCADE, related_name="rules")
    name = models.CharField(_("name"), max_length=60)
    min_approvals = models.PositiveSmallIntegerField(
        _("approvals needed"), default=1, validators=[MinValueValidator(1), MaxValueValidator(10)]
    )
    # Either or both: named reviewers, and/or a team role (that role or stronger qualifies).
    role = models.CharField(_("or anyone with the role"), max_length=10, blank=True)
    members = models.ManyToManyField(
        settings.AUTH_USER_MODEL, blank=True, related_name="+", verbose_name=_("named reviewers")
    )

    class Meta:
        db_table = "evaluations_approvalrule"  # the table it had in the evaluations app
        ordering = ["policy", "id"]
        verbose_name = _("approval rule")
        verbose_name_plural = _("approval rules")

    def __str__(self) -> str:
        return f"{self.name}: {self.min_approvals}"


class ReviewRequest(models.Model):
    """Someone asked one person to review an evaluation (at a revision); they got an inbox item
    and an e-mail."""

    evaluation = models.ForeignKey(
        "evaluations.Evaluation", on_delete=models.CASCADE, related_name="review_requests"
    )
    reviewer = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="review_requests"
    )
    requested_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+"
    )
    revision = models.PositiveIntegerField(_("revision"))
    created_at = models.DateTimeField(_("requested"), auto_now_add=True)

    class Meta:
        db_table = "evaluations_reviewrequest"  # the table it had in the evaluations app
        ordering = ["-created_at", "-id"]
        verbose_name = _("review request")
        verbose_name_plural = _("review requests")
        indexes = [
            # the review panel: an evaluation's requests, newest first
            models.Index(fields=["evaluation", "-created_at"], name="review_request_by_eval_idx"),
        ]

    def __str__(self) -> str:
        return f"{self.reviewer} asked to review {self.evaluation}"
