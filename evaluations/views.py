"""Evaluation pages: fetch through the access helper, call one service, render or redirect."""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from catalog.engine.stack import PROFILE_FIELDS
from catalog.engine.text import render as say
from evaluations import comments, selectors, services
from evaluations.cloning import evaluation_clone
from evaluations.diffs import selectors as diff_selectors
from evaluations.diffs.words import diff_in_words, since_approval
from evaluations.drift import drift_view
from evaluations.errors import InvalidInput, NotAllowed
from evaluations.forms import (
    PRIORITY_LABELS,
    DecisionForm,
    EvaluationCreateForm,
    ProfileForm,
    ReviewForm,
    time_windows_in_words,
)
from evaluations.guidance import guidance
from evaluations.models import ROLE_RANK, Role, State, Step
from evaluations.notifications.services import anchor_path
from evaluations.pages import (
    evaluation_for,
    maps_domain_errors,
    page_context,
    posted_revision,
    save_or_form_error,
)
from evaluations.revisions import revisions_of
from evaluations.whatif import (
    evaluation_whatif_adopt,
    whatif_choices,
    whatif_for,
    whatif_in_words,
)

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
            missing=services.submission_missing(evaluation),
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


@login_required
@require_POST
@maps_domain_errors
def evaluation_submit_view(request, pk: int):
    evaluation = evaluation_for(request, pk)
    services.evaluation_submit(evaluation=evaluation, actor=request.user)
    messages.success(request, _("Submitted for review."))
    return redirect("evaluations:detail", pk=pk)


@login_required
@require_POST
@maps_domain_errors
def evaluation_review_view(request, pk: int):
    evaluation = evaluation_for(request, pk)
    form = ReviewForm(request.POST)
    if not form.is_valid():
        raise InvalidInput(_("Choose a verdict."), errors=form.errors.get_json_data())
    services.evaluation_review(
        evaluation=evaluation,
        actor=request.user,
        verdict=form.cleaned_data["verdict"],
        comment=form.cleaned_data["comment"],
        step_comments=form.step_comments(),
    )
    messages.success(request, _("Review recorded."))
    return redirect("evaluations:detail", pk=pk)


@login_required
@require_POST
@maps_domain_errors
def evaluation_archive_view(request, pk: int):
    evaluation = evaluation_for(request, pk)
    services.evaluation_archive(evaluation=evaluation, actor=request.user)
    messages.success(request, _("Archived."))
    return redirect("evaluations:detail", pk=pk)


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


@login_required
@maps_domain_errors
def evaluation_decision_view(request, pk: int):
    evaluation = evaluation_for(request, pk)
    if request.method == "POST":
        services.evaluation_check_editable(evaluation=evaluation, actor=request.user)
    decision = getattr(evaluation, "decision", None)
    candidates = selectors.candidates_of(evaluation)
    refs = list(
        dict.fromkeys(
            [candidate.row.ref for candidate in candidates] + (decision.rows if decision else [])
        )
    )
    if request.method == "POST" and request.POST.get("adopt", "").isdigit():
        return _adopt_recommendation(request, evaluation, int(request.POST["adopt"]))
    initial = DecisionForm.initial_from(decision, refs)
    if decision is None or not decision.risks:
        chosen = decision.rows if decision else [c.row.ref for c in candidates]
        initial["risks"] = "\n".join(selectors.failure_modes_of(chosen))
    form = DecisionForm(request.POST or None, initial=initial, refs=refs)
    if request.method == "POST":
        if form.is_valid() and save_or_form_error(
            form,
            lambda: services.evaluation_decide(
                evaluation=evaluation,
                actor=request.user,
                revision=posted_revision(request),
                **form.to_data(),
            ),
        ):
            messages.success(request, _("Decision saved; its stack check is below."))
            return redirect("evaluations:decision", pk=evaluation.pk)
        status = 400
        if getattr(form, "conflict", None) is not None:
            evaluation.refresh_from_db()  # the user's input stays; the next save is on top
            status = 409
    else:
        status = 200
    catalog_rows = selectors.placement_rows_by_ref(refs)
    rows = [
        {
            "ref": ref,
            "row": catalog_rows.get(ref),
            "checkbox": checkbox,
            "pool": form[f"pool_{index}"],
        }
        for index, (ref, checkbox) in enumerate(zip(refs, form["rows"], strict=True))
    ]
    report = selectors.decision_report(evaluation)
    return render(
        request,
        "evaluations/decision.html",
        page_context(
            request,
            evaluation,
            "decision",
            form=form,
            rows=rows,
            decision=decision,
            report=report,
            stack_query=",".join(decision.rows) if decision else "",
            guide={"step": guidance("decision"), "risks": guidance("risks")},
            drift=drift_view(evaluation),
        ),
        status=status,
    )


def _adopt_recommendation(request, evaluation, rank: int) -> HttpResponse:
    """Make a recommended stack the decision, its checks and failure modes pre-filled."""
    # The cached ranking the page showed; the page posts the stack it showed at that rank too,
    # so a ranking changed since (new profile, new catalog) adopts nothing unseen.
    recommendations = selectors.recommendations_for(evaluation=evaluation)
    chosen = next((item for item in recommendations if item.rank == rank), None)
    shown = request.POST.get("adopt_rows")
    if chosen is None or (shown is not None and shown != ",".join(chosen.rows)):
        raise InvalidInput(_("That recommendation is no longer offered; reload the page."))
    pools = {name: list(ids) for name, ids in (chosen.pools or {}).items()}
    services.evaluation_decide(
        evaluation=evaluation,
        actor=request.user,
        rows=list(chosen.rows),
        pools=pools,
        # Written in the reader's language: from here on it is the team's own text.
        rationale=say(chosen.explanation, _),
        risks="\n".join(selectors.failure_modes_of(chosen.rows)),
        acceptance_checks="\n".join(say(check, _) for check in chosen.acceptance_checks),
    )
    messages.success(request, _("Recommended stack adopted as the decision; edit it as needed."))
    return redirect("evaluations:decision", pk=evaluation.pk)


@login_required
@maps_domain_errors
def evaluation_whatif_view(request, pk: int):
    """Swap a row of the decided stack and see the consequences; Adopt (POST) saves the swap as
    a new draft revision of the decision."""
    evaluation = evaluation_for(request, pk)
    data = request.POST if request.method == "POST" else request.GET
    old, new, pool = (data.get(name, "").strip()[:200] for name in ("row", "to", "pool"))
    if request.method == "POST":
        evaluation_whatif_adopt(
            evaluation=evaluation,
            actor=request.user,
            old=old,
            new=new,
            pool=pool or None,
            revision=posted_revision(request),
        )
        messages.success(
            request,
            _("Swap adopted as a new draft revision of the decision; check it, then submit it."),
        )
        return redirect("evaluations:decision", pk=evaluation.pk)
    decision = getattr(evaluation, "decision", None)
    choices = whatif_choices(evaluation) if decision and decision.rows else []
    chosen = next((choice for choice in choices if choice.row.id == old), None)
    result, error = None, ""
    if chosen and new:
        try:
            result = whatif_for(evaluation, old=old, new=new, pool=pool or None)
        except InvalidInput as exc:
            error = exc.message
    return render(
        request,
        "evaluations/whatif.html",
        page_context(
            request,
            evaluation,
            "decision",
            choices=choices,
            chosen=chosen,
            pools=sorted((decision.pools or {}) if decision else {}),
            picked={"row": old, "to": new, "pool": pool},
            result=result,
            words=whatif_in_words(result) if result else None,
            error=error,
        ),
        status=400 if error else 200,
    )


# ---------------------------------------------------------------------------------------------
# Review comments


@login_required
@require_POST
@maps_domain_errors
def comment_add_view(request, pk: int):
    evaluation = evaluation_for(request, pk)
    anchor = request.POST.get("anchor", "")
    try:
        comments.comment_add(
            evaluation=evaluation,
            actor=request.user,
            anchor=anchor,
            body=request.POST.get("body", ""),
        )
    except InvalidInput as exc:  # an empty or too long comment: say so on the page it was on
        messages.error(request, exc.message)
    else:
        messages.success(request, _("Comment added."))
    return redirect(f"{anchor_path(evaluation, anchor)}#comments")


@login_required
@require_POST
@maps_domain_errors
def comment_resolve_view(request, pk: int, comment_id: int):
    evaluation = evaluation_for(request, pk)
    comment = comments.comment_get(evaluation=evaluation, pk=comment_id)
    comments.comment_resolve(comment=comment, actor=request.user)
    messages.success(request, _("Comment resolved."))
    return redirect(f"{anchor_path(evaluation, comment.anchor)}#comments")


# ---------------------------------------------------------------------------------------------
# Clone


@login_required
@require_POST
@maps_domain_errors
def evaluation_clone_view(request, pk: int):
    """A new draft from this evaluation's placement work, in this team or another where the user
    is an editor."""
    evaluation = evaluation_for(request, pk)
    teams = selectors.teams_for_user(user=request.user, min_role=Role.EDITOR)
    wanted = request.POST.get("team") or str(evaluation.team_id)
    team = next((team for team in teams if str(team.pk) == wanted), None)
    if team is None:
        raise NotAllowed(_("You can copy an evaluation only into a team where you are an editor."))
    copy = evaluation_clone(evaluation=evaluation, actor=request.user, team=team)
    messages.success(request, _("Copied into a new draft: the decision and reviews stay behind."))
    return redirect("evaluations:detail", pk=copy.pk)


# ---------------------------------------------------------------------------------------------
# Revisions compared


@login_required
def evaluation_diff_view(request, pk: int):
    """Two revisions compared like a pull request: the changes by section, and who made them."""
    evaluation = evaluation_for(request, pk)
    revisions = revisions_of(evaluation)
    start, end = diff_selectors.default_pair(evaluation)
    error, shown = "", None
    try:
        start = diff_selectors.parse_revision(request.GET.get("from"), start)
        end = diff_selectors.parse_revision(request.GET.get("to"), end)
        compared = diff_selectors.evaluation_diff(evaluation=evaluation, old=start, new=end)
        shown = diff_in_words(compared.diff, compared.labels)
    except diff_selectors.DiffRefused as exc:
        error = str(exc)
    return render(
        request,
        "evaluations/diff.html",
        page_context(
            request,
            evaluation,
            "review",
            revisions=revisions,
            start=start,
            end=end,
            approved=diff_selectors.approved_revisions(evaluation),
            diff=shown,
            error=error,
            unrecorded=diff_selectors.unrecorded_note(evaluation, revisions),
        ),
        status=400 if error else 200,
    )
