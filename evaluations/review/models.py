"""The review app's models: reviews and their verdicts, comments and their overrides, and the
stored revisions of an evaluation.

They were the evaluations app's until issue 44 and keep their tables (`db_table`); the move was
a state-only migration (`evaluations.review` 0001, `evaluations` 0023)."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext_lazy

from evaluations.models import Step
from evaluations.review.choices import Verdict


class Review(models.Model):
    evaluation = models.ForeignKey(
        "evaluations.Evaluation", on_delete=models.CASCADE, related_name="reviews"
    )
    reviewer = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+"
    )
    verdict = models.CharField(_("verdict"), max_length=20, choices=Verdict.choices)
    comment = models.TextField(_("comment"), blank=True)
    step_comments = models.JSONField(_("comments per step"), default=dict, blank=True)
    revision = models.PositiveIntegerField(_("revision reviewed"))
    created_at = models.DateTimeField(_("when"), auto_now_add=True)
    # An approval stops counting when its reviewer leaves the team or loses the reviewer role
    # before the evaluation is approved (evaluations.approvals.services.approvals_void_for_member);
    # it stays voided if they come back: they approve again.
    voided_at = models.DateTimeField(_("no longer counts since"), null=True, blank=True)
    void_reason = models.CharField(_("why it no longer counts"), max_length=80, blank=True)

    class Meta:
        db_table = "evaluations_review"  # the table it had in the evaluations app
        ordering = ["-created_at", "-id"]
        verbose_name = _("review")
        verbose_name_plural = _("reviews")

    def __str__(self) -> str:
        return f"{self.get_verdict_display()} by {self.reviewer}"


class Comment(models.Model):
    """A review comment anchored to one step or the decision, shown there until resolved."""

    evaluation = models.ForeignKey(
        "evaluations.Evaluation", on_delete=models.CASCADE, related_name="comments"
    )
    author = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        related_name="+",
        verbose_name=_("author"),
    )
    anchor = models.CharField(_("about"), max_length=20, choices=Step.choices)
    body = models.TextField(_("comment"))
    revision = models.PositiveIntegerField(_("revision commented on"))
    created_at = models.DateTimeField(_("when"), auto_now_add=True)
    resolved_at = models.DateTimeField(_("resolved"), null=True, blank=True)
    resolved_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )

    class Meta:
        db_table = "evaluations_comment"  # the table it had in the evaluations app
        ordering = ["created_at", "id"]
        verbose_name = _("comment")
        verbose_name_plural = _("comments")
        indexes = [
            models.Index(fields=["evaluation", "anchor"], name="comment_by_anchor_idx"),
        ]

    def __str__(self) -> str:
        return f"{self.get_anchor_display()}: {self.body[:40]}"


class CommentOverride(models.Model):
    """An approver chose to approve although this comment was still open: who, when, which
    comment, at which revision (an open comment blocks approval until resolved or overridden)."""

    comment = models.ForeignKey(Comment, on_delete=models.CASCADE, related_name="overrides")
    approver = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+"
    )
    revision = models.PositiveIntegerField(_("revision approved"))
    created_at = models.DateTimeField(_("when"), auto_now_add=True)

    class Meta:
        db_table = "evaluations_commentoverride"  # the table it had in the evaluations app
        ordering = ["created_at", "id"]
        verbose_name = _("comment override")
        verbose_name_plural = _("comment overrides")

    def __str__(self) -> str:
        return f"{self.approver} overrode comment {self.comment_id}"


class EvaluationRevision(models.Model):
    """What an evaluation said at one revision (profile, units, candidates, boundaries,
    decision, stack-check findings), written with every revision: diffs compare two of them.

    One editor's saves within a minute are one recorded revision (autosave writes many); a
    submission and a reviewer's verdict name the revision they saw, which then stays as it is."""

    class Name(models.TextChoices):
        SUBMITTED = "submitted", pgettext_lazy("revision", "submitted")
        APPROVED = "approved", pgettext_lazy("revision", "approved")
        CHANGES_REQUESTED = "changes_requested", pgettext_lazy("revision", "changes requested")

    evaluation = models.ForeignKey(
        "evaluations.Evaluation", on_delete=models.CASCADE, related_name="revisions"
    )
    revision = models.PositiveIntegerField(_("revision"))
    content = models.JSONField(_("content"), default=dict)
    name = models.CharField(_("named"), max_length=20, choices=Name.choices, blank=True)
    actor = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+"
    )
    created_at = models.DateTimeField(_("when"), auto_now_add=True)

    class Meta:
        db_table = "evaluations_evaluationrevision"  # the table it had in the evaluations app
        ordering = ["evaluation", "revision"]
        verbose_name = _("evaluation revision")
        verbose_name_plural = _("evaluation revisions")
        constraints = [
            models.UniqueConstraint(
                fields=["evaluation", "revision"], name="evaluation_revision_unique"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.evaluation} @ {self.revision}"
