"""Evaluation pages: fetch through the access helper, call one service, render or redirect."""

from __future__ import annotations

from dataclasses import is_dataclass, replace
from typing import Any

from django.contrib.auth.decorators import login_required
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext

from catalog.engine.map_focus import map_focus_query
from catalog.engine.profile import PROFILE_FIELDS
from catalog.engine.text import Text, joined
from catalog.selectors import catalog_revision
from ecomap.fragments import cached_fragment, fragment_key, render_fragment
from evaluations import selectors, services
from evaluations.approvals.services import (
    approval_status,
    possible_reviewers,
    review_requests_for,
    status_in_words,
)
from evaluations.audit.selectors import audit_for, evaluation_editors
from evaluations.decisions.drift import drift_view
from evaluations.engine.recommend import POOL_LABELS
from evaluations.forms import EvaluationCreateForm
from evaluations.models import State, Step
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
from evaluations.simulations.selectors import (
    capacity_by_row,
    capacity_of_rows,
    capacity_panel,
    capacity_version,
)
from evaluations.steps.fleet_forms import FLEET_FIELDS
from evaluations.steps.fleet_words import (
    FLEET_LABELS,
    fleet_in_words,
    time_windows_in_words,
    workload_isolation_in_words,
)
from evaluations.steps.forms import (
    PRIORITY_LABELS,
    ProfileForm,
)
from evaluations.steps.guidance import guidance
from evaluations.steps.mix_forms import workload_mix_in_words
from evaluations.teams.choices import ROLE_RANK, Role
from evaluations.teams.selectors import teams_for_user

# ---------------------------------------------------------------------------------------------
# List, create, overview


@login_required
def evaluation_list_view(request):
    state = request.GET.get("state", "")
    if state not in State.values:
        state = ""
    evaluations = list(selectors.evaluations_for_user(user=request.user, state=state)[:200])
    teams = teams_for_user(user=request.user, min_role=Role.EDITOR)
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
    teams = teams_for_user(user=request.user, min_role=Role.EDITOR)
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
    is_author = request.user.pk in evaluation_editors(evaluation)
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
    # The summary names each candidate's row and layer, nothing of its contracts or points.
    candidates = selectors.candidates_of(evaluation, with_contracts=False, with_points=False)
    open_comments = comments.comments_open(evaluation)
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
            open_comments=comments.open_comments_by_anchor(evaluation, open_comments),
            open_comment_list=open_comments,
            review_blocked_as_author=is_author
            and selectors.role_allows(role, Role.REVIEWER)
            and evaluation.state == State.IN_REVIEW,
            can_archive=ROLE_RANK.get(role, -1) >= ROLE_RANK[Role.ADMIN]
            and evaluation.state not in (State.IN_REVIEW, State.ARCHIVED),
            review_form=ReviewForm() if can_review else None,
            since_approval=since_approval(evaluation) if can_review else None,
            reviews=selectors.reviews_for(evaluation),
            clone_teams=teams_for_user(user=request.user, min_role=Role.EDITOR),
            audit=audit_for(evaluation),
            candidates=candidates,
            decision_rows=selectors.decision_rows(evaluation),
            candidates_focus=map_focus_query(rows=[c.row.ref for c in candidates]),
            decision_focus=selectors.decision_focus_query(evaluation),
            step_labels=dict(Step.choices),
            profile_summary=_profile_summary(evaluation.profile or {}),
            drift=drift_view(evaluation),
            **_approval_context(evaluation, role, request.user),
        ),
    )


def _approval_context(evaluation, role, user) -> dict[str, Any]:
    """The review panel's approval status and "ask for a review" form (while in review)."""
    if evaluation.state != State.IN_REVIEW:
        return {"approval": None}
    status = status_in_words(approval_status(evaluation))
    choices = []
    if selectors.role_allows(role, Role.EDITOR):
        # Not those who approved this revision already, nor the person asking.
        choices = [
            person
            for person in possible_reviewers(evaluation)
            if person.get_username() not in status["approved_by"] and person.pk != user.pk
        ]
    return {
        "approval": status,
        "approved_already": user.get_username() in status["approved_by"],
        "review_requests": review_requests_for(evaluation),
        "request_choices": choices,
    }


def _profile_summary(profile: dict[str, Any]) -> list[tuple[str, str]]:
    labels = {name: field.label for name, field in ProfileForm.base_fields.items()}
    labels["priorities"] = _("Priorities")
    labels["time_windows"] = _("When each workload runs")
    labels["workload_isolation"] = _("Isolation per workload type")
    labels["gpu_memory_gb"] = _("Memory per GPU")  # the answer says GB
    labels |= FLEET_LABELS
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
        elif key == "workload_isolation":
            shown = workload_isolation_in_words(value)
        elif key == "workload_mix":
            shown = workload_mix_in_words(value)
        elif key in FLEET_FIELDS:
            shown = fleet_in_words(key, value)
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
    comparison = selectors.comparison_for(evaluation, with_contracts=False)
    candidates = comparison.candidates
    # Each data-plane row's unit replayed with step 1's mix (the last capacity run).
    capacity_figures = capacity_by_row(
        evaluation=evaluation, rows=[candidate.row for candidate in candidates]
    )
    for candidate in candidates:
        candidate.capacity = capacity_figures.get(candidate.row.ref)
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
            capacity_figures=capacity_figures,
            project_slugs=sorted({candidate.row.project.slug for candidate in candidates}),
            guide={"step": guidance("comparison"), "group": guidance("alternative_group")},
        ),
    )


# How tenants share a pool's GPUs (the recommendation's `tenant_sharing`), as its badge says it
# and, longer, as the badge's title.
TENANT_SHARING_WORDS = {
    "none": (gettext_lazy("whole devices"), gettext_lazy("every pod gets whole GPUs")),
    "within_tenant": (
        gettext_lazy("one tenant per pool"),
        gettext_lazy("pods share GPUs only with pods of the same tenant"),
    ),
    "across_tenants": (
        gettext_lazy("shared between tenants"),
        gettext_lazy("pods of several tenants share one GPU"),
    ),
}
ISOLATION_ASPECTS = ("memory", "compute", "fault")


def _pools_named(text: Any, labels: dict[str, str]) -> Any:
    """An engine sentence with the pool keys it names (its `pool` and `pools` parts) said by the
    pools' labels, so no page shows a bare key where a label exists."""
    if not isinstance(text, Text) or not text.params:
        return text
    params = {}
    for name, value in text.params.items():
        if name in ("pool", "pools") and isinstance(value, str) and not isinstance(value, Text):
            keys = [key.strip() for key in value.split(",")]
            if all(key in labels for key in keys):
                value = joined(", ", [labels[key] for key in keys])
        else:
            value = _pools_named(value, labels)
        params[name] = value
    return Text(text.template, params)


def _report_pools_named(report: Any, labels: dict[str, str]) -> Any:
    """The stack check with its findings' pool keys said by the pools' labels."""
    if not labels or not is_dataclass(report):
        return report
    return replace(
        report,
        fit=tuple(replace(f, message=_pools_named(f.message, labels)) for f in report.fit),
        missing_layers=tuple(
            replace(m, message=_pools_named(m.message, labels)) for m in report.missing_layers
        ),
    )


def _about_a_pool(text: Any, pools: dict[str, Any]) -> bool:
    return isinstance(text, Text) and text.params.get("pool") in pools


def _sentences(text: Any) -> bool:
    """Whether `text` is sentences put together (catalog.engine.text.joined with spaces)."""
    return (
        isinstance(text, Text)
        and bool(text.params)
        and text.template == " ".join(f"%({name})s" for name in text.params)
    )


def _demand_words(item: dict[str, Any]) -> str:
    """One tenant's demand landing in a pool, in the reader's language."""
    if item.get("gpus") is not None:
        amount = ngettext("%(count)s GPU", "%(count)s GPUs", item["gpus"]) % {"count": item["gpus"]}
    elif item.get("mig_profile"):
        amount = _("%(count)s × MIG %(profile)s") % {
            "count": item.get("replicas"),
            "profile": item["mig_profile"],
        }
    else:
        amount = _("%(count)s replicas × %(gpus)s GPU") % {
            "count": item.get("replicas"),
            "gpus": item.get("gpus_per_replica") or 1,
        }
    when = _("always on") if item.get("when") == "always" else _("in a time window")
    return _("%(tenant)s: %(amount)s, %(when)s") % {
        "tenant": item.get("tenant"),
        "amount": amount,
        "when": when,
    }


def _stack_view(recommendation) -> dict[str, Any]:
    """One recommended stack as its card shows it: a card per pool (label, units, isolation per
    aspect, tenant sharing, workloads, rows and checks), the trade-off, and what the pool cards
    do not already say (the rest of the explanation, the checks of the whole stack)."""
    details = getattr(recommendation, "pool_details", None) or {}
    labels = {
        name: pool.get("label") or POOL_LABELS.get(name, name) for name, pool in details.items()
    }
    pools = []
    for name, rows in recommendation.pools.items():
        pool = details.get(name, {})
        sharing = pool.get("tenant_sharing")
        isolation = pool.get("isolation") or {}
        words, title = TENANT_SHARING_WORDS.get(sharing, (sharing, ""))
        pools.append(
            {
                "key": name,
                "label": labels.get(name) or POOL_LABELS.get(name, name),
                "units": list(pool.get("units") or ()),
                "isolation": [(a, isolation[a]) for a in ISOLATION_ASPECTS if a in isolation],
                "tenant_sharing": sharing,
                "sharing_words": words,
                "sharing_title": title,
                "workloads": list(pool.get("workloads") or ()),
                "checks": list(pool.get("acceptance_checks") or ()),
                "rows": list(rows),
                "node_group": pool.get("node_group"),
                "gpu_model": pool.get("gpu_model"),
                "tenants": list(pool.get("tenants") or ()),
                "demand": [_demand_words(item) for item in pool.get("demand") or ()],
            }
        )
    explanation = recommendation.explanation
    if details and _sentences(explanation):
        # The pool cards say what the explanation's pool sentences say: keep the rest.
        kept = [part for part in explanation.params.values() if not _about_a_pool(part, details)]
        explanation = joined(" ", kept)
    return {
        "rec": recommendation,
        "pools": pools,
        "trade_off": _pools_named(getattr(recommendation, "trade_off", ""), labels),
        "explanation": _pools_named(explanation, labels),
        "report": _report_pools_named(recommendation.report, labels),
        "fits": [_pools_named(text, labels) for text in recommendation.fits],
        "missing": [_pools_named(text, labels) for text in recommendation.missing],
        "stack_checks": [
            _pools_named(check, labels)
            for check in recommendation.acceptance_checks
            if not (details and _about_a_pool(check, details))
        ],
    }


# The ranked stacks take most of the page's time to draw (an engine sentence per finding, each
# named in the reader's language): drawn once per ranking, capacity run, language and editing
# right, for as long as the ranking itself is cached.
STACKS_FRAGMENT_SECONDS = selectors.RECOMMENDATIONS_TIMEOUT


@login_required
def evaluation_recommendations_view(request, pk: int):
    evaluation = evaluation_for(request, pk)
    context = page_context(
        request, evaluation, "recommendations", guide={"step": guidance("recommendations")}
    )
    key = _stacks_fragment_key(evaluation, can_edit=context["can_edit"])
    shown: dict[str, Any] = {}

    def render_stacks() -> str:
        stacks_context = _recommended_stacks(evaluation)
        shown["capacity"] = stacks_context["capacity"]
        return render_fragment(
            "evaluations/_recommended_stacks.html", {**context, **stacks_context}
        )

    stacks_html = cached_fragment(request, key, render_stacks, timeout=STACKS_FRAGMENT_SECONDS)
    # The capacity figure's scripts: only what the panel needs; a cached panel was drawn from a
    # finished run (a pending or running one is never cached), so it needs them if it has a figure.
    capacity = shown.get("capacity") or {"figure": "capacity-figure" in stacks_html}
    return render(
        request,
        "evaluations/recommendations.html",
        {**context, "stacks_html": stacks_html, "capacity": capacity},
    )


def _stacks_fragment_key(evaluation, *, can_edit: bool) -> str | None:
    """The cache key of the evaluation's ranked stacks as drawn now; None when they must be
    drawn afresh (a profile the engine refuses, a capacity run under way)."""
    try:
        ranking = selectors.recommendations_cache_key(
            evaluation.engine_profile(), catalog_revision()
        )
    except ValueError:
        return None
    capacity = capacity_version(evaluation)
    if capacity is None:
        return None
    return fragment_key("recommended-stacks", evaluation.pk, ranking, capacity, int(can_edit))


def _recommended_stacks(evaluation) -> dict[str, Any]:
    try:
        recommendations = selectors.recommendations_for(evaluation=evaluation)
        profile_error = ""
    except ValueError as exc:
        recommendations, profile_error = [], str(exc)
    capacity = capacity_panel(evaluation=evaluation, back="recommendations")
    stacks = [_stack_view(item) for item in recommendations]
    for stack in stacks:
        rec = stack["rec"]
        stack["capacity"] = capacity_of_rows(capacity, rec.rows, rank=rec.rank, pools=rec.pools)
    return {
        "capacity": capacity,
        "recommendations": recommendations,
        "stacks": stacks,
        # What the GPU model's facts kept out of the search, and why.
        "left_out": getattr(recommendations, "left_out", None) or [],
        # Node groups' models outside the GPU facts: vendor rows were withheld for them.
        "unknown_models": getattr(recommendations, "unknown_models", None) or [],
        # Set when the profile leaves fewer sound data planes than three alternatives.
        "alike_note": getattr(recommendations, "alike", None),
        # Set when the search budget ran out: the stacks are the best found so far.
        "search_note": getattr(recommendations, "note", None),
        "profile_error": profile_error,
    }


# ---------------------------------------------------------------------------------------------
# Review comments


# ---------------------------------------------------------------------------------------------
# Clone


# ---------------------------------------------------------------------------------------------
# Revisions compared
