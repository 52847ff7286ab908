"""The evaluations app's models: the evaluation and its steps (the unit choices and the
candidates). Every other table of an evaluation belongs to the room that writes it, each an app of
its own since issue 44 (`evaluations.<room>.models`: teams, notifications, review, decisions,
audit, approvals, reports, sharing, simulations, clusters)."""

from __future__ import annotations

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import models
from django.utils.translation import gettext_lazy as _

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
