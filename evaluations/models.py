"""Evaluation models: the evaluation and its steps, decision, reviews, audit (teams, their
members and invitations are the teams app's: `evaluations.teams.models`)."""

from __future__ import annotations

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import models
from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext_lazy

from catalog.engine.profile import Profile
from catalog.models import EnforcementPoint, PlacementRow, ResourceUnit


class State(models.TextChoices):
    DRAFT = "draft", _("draft")
    IN_REVIEW = "in_review", _("in review")
    APPROVED = "approved", _("approved")
    CHANGES_REQUESTED = "changes_requested", _("changes requested")
    # An approved evaluation whose stack check a catalog change made worse (issue 20): its
    # editors revise and submit it again, like a change request the catalog made.
    NEEDS_REVIEW = "needs_review", _("needs re-review")
    ARCHIVED = "archived", _("archived")


class Step(models.TextChoices):
    """The four placement steps of METHOD.md, plus the decision (what reviewers comment on)."""

    PROFILE = "profile", _("Workload and SLO")
    UNITS = "units", _("Resource units")
    CANDIDATES = "candidates", _("Candidates and enforcement points")
    BOUNDARIES = "boundaries", _("Boundaries of responsibility")
    DECISION = "decision", _("Decision")


PLACEMENT_STEPS: tuple[str, ...] = (Step.PROFILE, Step.UNITS, Step.CANDIDATES, Step.BOUNDARIES)


class Evaluation(models.Model):
    title = models.CharField(_("title"), max_length=200)
    team = models.ForeignKey(
        "teams.Team", on_delete=models.CASCADE, related_name="evaluations", verbose_name=_("team")
    )
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        related_name="+",
        verbose_name=_("author"),
    )
    state = models.CharField(_("state"), max_length=20, choices=State.choices, default=State.DRAFT)
    # The step-1 profile in the DESIGN.md shape, validated by catalog.engine.profile.Profile.
    profile = models.JSONField(_("workload and SLO profile"), default=dict, blank=True)
    profile_done = models.BooleanField(_("step 1 done"), default=False)
    units_done = models.BooleanField(_("step 2 done"), default=False)
    candidates_done = models.BooleanField(_("step 3 done"), default=False)
    boundaries_done = models.BooleanField(_("step 4 done"), default=False)
    # Bumped by every change of content; a review names the revision it looked at.
    revision = models.PositiveIntegerField(_("revision"), default=1)
    # The latest catalog-drift finding for an approved decision (issue 20): what changed in the
    # catalog under it since approval and whether the stack check got worse; {} when none.
    catalog_drift = models.JSONField(_("catalog changes since approval"), default=dict, blank=True)
    # A clone (issue 28): where it came from, and everyone who had written the source by then
    # (its own source's authors included). They wrote the copied content too, so none of them
    # may approve the clone; kept as a set so it holds when the source is gone.
    cloned_from = models.ForeignKey(
        "self",
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="clones",
        verbose_name=_("cloned from"),
    )
    source_authors = models.ManyToManyField(
        settings.AUTH_USER_MODEL,
        blank=True,
        related_name="+",
        verbose_name=_("authors of the cloned content"),
    )
    created_at = models.DateTimeField(_("created"), auto_now_add=True)
    updated_at = models.DateTimeField(_("updated"), auto_now=True)

    class Meta:
        ordering = ["-updated_at"]
        verbose_name = _("evaluation")
        verbose_name_plural = _("evaluations")
        indexes = [
            # the evaluation list: a user's teams' evaluations, most recently changed first
            models.Index(fields=["team", "-updated_at"], name="evaluation_by_team_idx"),
        ]

    def __str__(self) -> str:
        return self.title

    def clean(self) -> None:
        try:
            Profile.from_dict(self.profile or {})
        except ValueError as exc:
            raise ValidationError({"profile": str(exc)}) from exc

    def step_done(self, step: str) -> bool:
        return getattr(self, f"{step}_done")

    @property
    def steps_done(self) -> int:
        return sum(self.step_done(step) for step in PLACEMENT_STEPS)

    def engine_profile(self) -> Profile:
        return Profile.from_dict(self.profile or {})


class UnitChoice(models.Model):
    """Step 2: a resource unit the team considers, with its note on what the unit implies."""

    evaluation = models.ForeignKey(Evaluation, on_delete=models.CASCADE, related_name="units")
    unit = models.ForeignKey(ResourceUnit, on_delete=models.PROTECT, related_name="+")
    note = models.TextField(_("note"), blank=True)

    class Meta:
        ordering = ["unit__position", "unit__key"]
        constraints = [
            models.UniqueConstraint(fields=["evaluation", "unit"], name="unit_choice_unique"),
        ]

    def __str__(self) -> str:
        return str(self.unit)


class Candidate(models.Model):
    """Steps 3 and 4: a catalog placement row the team considers, as the team confirms it."""

    evaluation = models.ForeignKey(Evaluation, on_delete=models.CASCADE, related_name="candidates")
    row = models.ForeignKey(PlacementRow, on_delete=models.CASCADE, related_name="+")
    enforcement_points = models.ManyToManyField(EnforcementPoint, related_name="+", blank=True)
    points_confirmed = models.BooleanField(_("enforcement points confirmed"), default=False)
    # Candidates with the same non-empty group are put up as alternatives to each other: that is
    # where mixing layers is a misjudgement.
    alternative_group = models.CharField(_("alternatives group"), max_length=40, blank=True)
    # Empty means "as the catalog says"; the catalog text is the pre-filled value.
    promise = models.TextField(_("responsible for"), blank=True)
    non_promise = models.TextField(_("not responsible for"), blank=True)
    position = models.PositiveSmallIntegerField(default=0)

    class Meta:
        ordering = ["position", "id"]
        constraints = [
            models.UniqueConstraint(fields=["evaluation", "row"], name="candidate_unique_row"),
        ]

    def __str__(self) -> str:
        return str(self.row)

    @property
    def boundary_promise(self) -> str:
        return self.promise or self.row.promise

    @property
    def boundary_non_promise(self) -> str:
        return self.non_promise or self.row.non_promise


class Decision(models.Model):
    """The chosen stack (row ids, optionally split into node pools) and why."""

    evaluation = models.OneToOneField(Evaluation, on_delete=models.CASCADE, related_name="decision")
    rows = models.JSONField(_("stack"), default=list)  # ["project/key", ...]
    pools = models.JSONField(_("node pools"), default=dict, blank=True)  # {name: [row ids]}
    # {pool name: "within_tenant" | "none" | "across_tenants"}: what the team says of how tenants
    # share each pool; a pool not named serves every tenant (catalog.engine.fit.TENANT_SHARING).
    pool_tenant_sharing = models.JSONField(_("tenant sharing per pool"), default=dict, blank=True)
    # {pool name: node group name of step 1}: where each pool runs, in a cluster of several node
    # groups (profile v2); a pool not named is placed by the configuration (configgen).
    pool_node_groups = models.JSONField(_("node group per pool"), default=dict, blank=True)
    rationale = models.TextField(_("rationale"), blank=True)
    risks = models.TextField(_("risks and failure modes to watch"), blank=True)
    acceptance_checks = models.TextField(_("acceptance checks"), blank=True)
    decided_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+"
    )
    decided_at = models.DateTimeField(_("decided"), auto_now=True)
    # Pinned at approval: the catalog revision and each decided row as it stood (versions,
    # verified date, contracts), and the stack check's findings then; catalog drift compares
    # against these.
    approved_at = models.DateTimeField(_("approved"), null=True, blank=True)
    approved_catalog_revision = models.PositiveIntegerField(
        _("catalog revision at approval"), null=True, blank=True
    )
    approved_rows = models.JSONField(_("rows as approved"), default=dict, blank=True)
    approved_findings = models.JSONField(_("stack check at approval"), default=list, blank=True)

    class Meta:
        verbose_name = _("decision")
        verbose_name_plural = _("decisions")

    def __str__(self) -> str:
        return ", ".join(self.rows)


class Verdict(models.TextChoices):
    APPROVE = "approve", _("approve")
    REQUEST_CHANGES = "request_changes", _("request changes")


class Review(models.Model):
    evaluation = models.ForeignKey(Evaluation, on_delete=models.CASCADE, related_name="reviews")
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
        ordering = ["-created_at", "-id"]
        verbose_name = _("review")
        verbose_name_plural = _("reviews")

    def __str__(self) -> str:
        return f"{self.get_verdict_display()} by {self.reviewer}"


class AuditEntry(models.Model):
    """Who changed what, and when: written by every evaluation service, never edited."""

    evaluation = models.ForeignKey(Evaluation, on_delete=models.CASCADE, related_name="audit")
    actor = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        related_name="+",
        verbose_name=_("who"),
    )
    created_at = models.DateTimeField(_("when"), auto_now_add=True)
    action = models.CharField(_("action"), max_length=40)
    step = models.CharField(_("step"), max_length=20, blank=True)
    changes = models.JSONField(_("what changed"), default=dict, blank=True)
    state_from = models.CharField(max_length=20, blank=True)
    state_to = models.CharField(max_length=20, blank=True)
    revision = models.PositiveIntegerField(_("revision"))

    class Meta:
        ordering = ["-id"]
        verbose_name = _("audit entry")
        verbose_name_plural = _("audit entries")
        indexes = [
            # the evaluation page: its audit log, newest first
            models.Index(fields=["evaluation", "-id"], name="audit_by_evaluation_idx"),
        ]

    def __str__(self) -> str:
        return f"{self.action} {self.step}".strip()


class Comment(models.Model):
    """A review comment anchored to one step or the decision, shown there until resolved."""

    evaluation = models.ForeignKey(Evaluation, on_delete=models.CASCADE, related_name="comments")
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

    evaluation = models.ForeignKey(Evaluation, on_delete=models.CASCADE, related_name="revisions")
    revision = models.PositiveIntegerField(_("revision"))
    content = models.JSONField(_("content"), default=dict)
    name = models.CharField(_("named"), max_length=20, choices=Name.choices, blank=True)
    actor = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+"
    )
    created_at = models.DateTimeField(_("when"), auto_now_add=True)

    class Meta:
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
