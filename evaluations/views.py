"""Evaluation pages: fetch through the access helper, call one service, render or redirect."""

from __future__ import annotations

from typing import Any

from django.contrib.auth.decorators import login_required
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _

from catalog.engine.profile import PROFILE_FIELDS
from evaluations import selectors, services
from evaluations.decisions.drift import drift_view
from evaluations.forms import EvaluationCreateForm
from evaluations.models import ROLE_RANK, Role, State, Step
from evaluations.pages import (
    evaluation_for,
    maps_domain_errors,
    page_context,
)
from evaluations.review import comments
from evaluations.review.diffs.words import since_approval
from evaluations.review.forms import ReviewForm
from evaluations.review.services import (
    submission_missing,
)
from evaluations.steps.forms import PRIORITY_LABELS, ProfileForm, time_windows_in_words
from evaluations.steps.guidance import guidance

# ---------------------------------------------------------------------------------------------
# List, create, overview


@login_required
def evaluation_list_view(request):
    state = request.GET.get("state", "")
    if state not in State.values:
        state = ""
    evaluations = list(selectors.evaluations_for_user(user=request.user, state=state)[:200])
    teams = selectors.teams_for_user(user=request.user, min_role=Role.EDITOR)
    return render(
        request,
        "evaluations/list.html",
        {
            "evaluations": evaluations,
            "state": state,
            "states": State.choices,
            "create_form": EvaluationCreateForm(teams=teams) if teams else None,
            "member_of_any": bool(teams) or bool(evaluations),
        },
    )


@login_required
@maps_domain_errors
def evaluation_create_view(request):
    teams = selectors.teams_for_user(user=request.user, min_role=Role.EDITOR)
    form = EvaluationCreateForm(request.POST or None, teams=teams)
    if request.method == "POST" and form.is_valid():
        evaluation = services.evaluation_create(
            actor=request.user, team=form.cleaned_data["team"], title=form.cleaned_data["title"]
        )
        return redirect("evaluations:step", pk=evaluation.pk, number=1)
    status = 400 if request.method == "POST" else 200
    return render(request, "evaluations/create.html", {"form": form, "teams": teams}, status=status)


@login_required
def evaluation_detail_view(request, pk: int):
    evaluation = evaluation_for(request, pk)
    role = selectors.user_role_in(evaluation, request.user)
    is_author = request.user.pk in selectors.evaluation_editors(evaluation)
    can_review = (
        selectors.role_allows(role, Role.REVIEWER)
        and not is_author
        and evaluation.state == State.IN_REVIEW
    )
    # Editors hand the work in; a reviewer does so only for an evaluation they helped write
    # (after requesting changes, the revision is the authors' to submit, not the reviewer's).
    can_submit = (
        selectors.role_allows(role, Role.EDITOR)
        and (is_author or not selectors.role_allows(role, Role.REVIEWER))
        and evaluation.state in (State.DRAFT, State.CHANGES_REQUESTED, State.NEEDS_REVIEW)
    )
    return render(
        request,
        "evaluations/detail.html",
        page_context(
            request,
            evaluation,
            "review",
            missing=submission_missing(evaluation),
            can_submit=can_submit,
            can_review=can_review,
            open_comments=comments.open_comments_by_anchor(evaluation),
            review_blocked_as_author=is_author
            and selectors.role_allows(role, Role.REVIEWER)
            and evaluation.state == State.IN_REVIEW,
            can_archive=ROLE_RANK.get(role, -1) >= ROLE_RANK[Role.ADMIN]
            and evaluation.state not in (State.IN_REVIEW, State.ARCHIVED),
            review_form=ReviewForm() if can_review else None,
            since_approval=since_approval(evaluation) if can_review else None,
            reviews=selectors.reviews_for(evaluation),
            clone_teams=selectors.teams_for_user(user=request.user, min_role=Role.EDITOR),
            audit=selectors.audit_for(evaluation),
            candidates=selectors.candidates_of(evaluation),
            decision_rows=selectors.decision_rows(evaluation),
            step_labels=dict(Step.choices),
            profile_summary=_profile_summary(evaluation.profile or {}),
            drift=drift_view(evaluation),
        ),
    )


def _profile_summary(profile: dict[str, Any]) -> list[tuple[str, str]]:
    labels = {name: field.label for name, field in ProfileForm.base_fields.items()}
    labels["priorities"] = _("Priorities")
    labels["time_windows"] = _("When each workload runs")
    labels["gpu_memory_gb"] = _("Memory per GPU")  # the answer says GB
    # Answers are shown by their labels ("online inference"), not their stored keys.
    words = {
        name: {key: label for key, label in getattr(field, "choices", ()) if key}
        for name, field in ProfileForm.base_fields.items()
    }
    words["priorities"] = PRIORITY_LABELS
    summary = []
    for key in PROFILE_FIELDS:
        value = profile.get(key)
        if value in (None, "", [], {}):
            continue
        table = words.get(key, {})
        if key == "time_windows":
            shown = time_windows_in_words(value)
        elif key == "gpu_memory_gb":
            shown = _("{count} GB").format(count=value)
        elif key == "component_versions":
            shown = ", ".join(f"{slug} {version}" for slug, version in value.items())
        elif isinstance(value, list):
            shown = ", ".join(str(table.get(item, item)) for item in value)
        elif isinstance(value, float):
            shown = f"{value:g}"
        else:
            shown = str(table.get(value, value))
        summary.append((labels.get(key, key), shown))
    return summary


# ---------------------------------------------------------------------------------------------
# Comparison, recommendations, decision


@login_required
def evaluation_comparison_view(request, pk: int):
    evaluation = evaluation_for(request, pk)
    comparison = selectors.comparison_for(evaluation)
    candidates = comparison.candidates
    return render(
        request,
        "evaluations/comparison.html",
        page_context(
            request,
            evaluation,
            "comparison",
            comparison=comparison,
            facts=comparison.facts,
            candidates=candidates,
            project_slugs=sorted({candidate.row.project.slug for candidate in candidates}),
            guide={"step": guidance("comparison"), "group": guidance("alternative_group")},
        ),
    )


@login_required
def evaluation_recommendations_view(request, pk: int):
    evaluation = evaluation_for(request, pk)
    try:
        recommendations = selectors.recommendations_for(evaluation=evaluation)
        profile_error = ""
    except ValueError as exc:
        recommendations, profile_error = [], str(exc)
    return render(
        request,
        "evaluations/recommendations.html",
        page_context(
            request,
            evaluation,
            "recommendations",
            recommendations=recommendations,
            # Set when the search budget ran out: the stacks are the best found so far.
            search_note=getattr(recommendations, "note", None),
            profile_error=profile_error,
            guide={"step": guidance("recommendations")},
        ),
    )


# ---------------------------------------------------------------------------------------------
# Review comments


# ---------------------------------------------------------------------------------------------
# Clone


# ---------------------------------------------------------------------------------------------
# Revisions compared
