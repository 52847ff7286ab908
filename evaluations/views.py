"""Evaluation pages: fetch through the access helper, call one service, render or redirect."""

from __future__ import annotations

import functools
from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_POST

from catalog.engine.text import render as say
from catalog.models import EnforcementPoint, Layer, ResourceUnit
from evaluations import selectors, services
from evaluations.errors import EvaluationError, InvalidInput
from evaluations.forms import (
    PRIORITY_LABELS,
    BoundariesForm,
    CandidatesForm,
    DecisionForm,
    EvaluationCreateForm,
    ProfileForm,
    ReviewForm,
    UnitsForm,
    candidates_as_data,
)
from evaluations.guidance import granularity, guidance
from evaluations.models import ROLE_RANK, Role, State, Step

STEP_NUMBERS = {1: Step.PROFILE, 2: Step.UNITS, 3: Step.CANDIDATES, 4: Step.BOUNDARIES}
STEP_INDEX = {step: number for number, step in STEP_NUMBERS.items()}

# The stages of an evaluation, in the order the progress bar and back/next walk them.
STAGES: tuple[tuple[str, Any], ...] = (
    ("step-1", gettext_lazy("Workload and SLO")),
    ("step-2", gettext_lazy("Resource units")),
    ("step-3", gettext_lazy("Candidates")),
    ("step-4", gettext_lazy("Boundaries")),
    ("comparison", gettext_lazy("Comparison")),
    ("recommendations", gettext_lazy("Recommendations")),
    ("decision", gettext_lazy("Decision")),
    ("review", gettext_lazy("Review")),
)


def _stage_url(evaluation, key: str) -> str:
    if key.startswith("step-"):
        return reverse("evaluations:step", args=[evaluation.pk, int(key[5:])])
    if key == "review":
        return reverse("evaluations:detail", args=[evaluation.pk])
    return reverse(f"evaluations:{key}", args=[evaluation.pk])


def _stage_done(evaluation, key: str) -> bool:
    if key.startswith("step-"):
        return evaluation.step_done(STEP_NUMBERS[int(key[5:])])
    if key == "decision":
        return hasattr(evaluation, "decision")
    if key == "review":
        return evaluation.state == State.APPROVED
    return False


def _progress(evaluation, current: str) -> dict[str, Any]:
    """The progress bar and the back/next links around the current stage."""
    stages = [
        {
            "key": key,
            "number": index + 1,
            "label": label,
            "url": _stage_url(evaluation, key),
            "done": _stage_done(evaluation, key),
            "current": key == current,
        }
        for index, (key, label) in enumerate(STAGES)
    ]
    position = next(i for i, stage in enumerate(stages) if stage["current"])
    return {
        "stages": stages,
        "back": stages[position - 1] if position > 0 else None,
        "next": stages[position + 1] if position + 1 < len(stages) else None,
    }


def _context(request, evaluation, current: str, **extra: Any) -> dict[str, Any]:
    role = selectors.user_role_in(evaluation, request.user)
    can_edit = selectors.role_allows(role, Role.EDITOR) and evaluation.state not in (
        State.IN_REVIEW,
        State.ARCHIVED,
    )
    return {
        "evaluation": evaluation,
        "role": role,
        "can_edit": can_edit,
        "progress": _progress(evaluation, current),
        "stack_query": "",
        **extra,
    }


def maps_domain_errors(view):
    """Page views: a refused write renders its reason with the error's status (403 or 400)."""

    @functools.wraps(view)
    def wrapper(request, *args, **kwargs):
        try:
            return view(request, *args, **kwargs)
        except EvaluationError as exc:
            if _wants_json(request):
                return JsonResponse(
                    {"detail": exc.message, "errors": exc.errors}, status=exc.status
                )
            return render(
                request,
                "evaluations/refused.html",
                {"message": exc.message, "back": request.META.get("HTTP_REFERER", "")},
                status=exc.status,
            )

    return wrapper


def _wants_json(request) -> bool:
    return request.headers.get("X-Autosave") == "1"


def _evaluation(request, pk: int):
    return selectors.evaluation_get_for_user(user=request.user, pk=pk)


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
    evaluation = _evaluation(request, pk)
    role = selectors.user_role_in(evaluation, request.user)
    is_author = evaluation.created_by_id == request.user.pk
    can_review = (
        selectors.role_allows(role, Role.REVIEWER)
        and not is_author
        and evaluation.state == State.IN_REVIEW
    )
    return render(
        request,
        "evaluations/detail.html",
        _context(
            request,
            evaluation,
            "review",
            missing=services.submission_missing(evaluation),
            can_submit=selectors.role_allows(role, Role.EDITOR)
            and evaluation.state in (State.DRAFT, State.CHANGES_REQUESTED),
            can_review=can_review,
            review_blocked_as_author=is_author
            and selectors.role_allows(role, Role.REVIEWER)
            and evaluation.state == State.IN_REVIEW,
            can_archive=ROLE_RANK.get(role, -1) >= ROLE_RANK[Role.ADMIN]
            and evaluation.state not in (State.IN_REVIEW, State.ARCHIVED),
            review_form=ReviewForm() if can_review else None,
            reviews=selectors.reviews_for(evaluation),
            audit=selectors.audit_for(evaluation),
            candidates=selectors.candidates_of(evaluation),
            decision_rows=selectors.decision_rows(evaluation),
            step_labels=dict(Step.choices),
            profile_summary=_profile_summary(evaluation.profile or {}),
        ),
    )


def _profile_summary(profile: dict[str, Any]) -> list[tuple[str, str]]:
    labels = {name: field.label for name, field in ProfileForm.base_fields.items()}
    labels["priorities"] = _("Priorities")
    # Answers are shown by their labels ("online inference"), not their stored keys.
    words = {
        name: {key: label for key, label in getattr(field, "choices", ()) if key}
        for name, field in ProfileForm.base_fields.items()
    }
    words["priorities"] = PRIORITY_LABELS
    summary = []
    for key, value in profile.items():
        if value in (None, "", []):
            continue
        table = words.get(key, {})
        shown = (
            ", ".join(str(table.get(item, item)) for item in value)
            if isinstance(value, list)
            else f"{value:g}"
            if isinstance(value, float)
            else str(table.get(value, value))
        )
        summary.append((labels.get(key, key), shown))
    return summary


@login_required
@require_POST
@maps_domain_errors
def evaluation_submit_view(request, pk: int):
    evaluation = _evaluation(request, pk)
    services.evaluation_submit(evaluation=evaluation, actor=request.user)
    messages.success(request, _("Submitted for review."))
    return redirect("evaluations:detail", pk=pk)


@login_required
@require_POST
@maps_domain_errors
def evaluation_review_view(request, pk: int):
    evaluation = _evaluation(request, pk)
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
    evaluation = _evaluation(request, pk)
    services.evaluation_archive(evaluation=evaluation, actor=request.user)
    messages.success(request, _("Archived."))
    return redirect("evaluations:detail", pk=pk)


# ---------------------------------------------------------------------------------------------
# The four steps


def _after_save(request, evaluation, number: int, form=None) -> HttpResponse:
    """Autosave answers JSON; a button press moves back, next, or stays."""
    evaluation.refresh_from_db()
    step = STEP_NUMBERS[number]
    if _wants_json(request):
        return JsonResponse(
            {
                "saved": True,
                "saved_at": timezone.localtime().strftime("%H:%M:%S"),
                "done": evaluation.step_done(step),
                "revision": evaluation.revision,
                "state": evaluation.state,
                "missing": _missing_labels(evaluation) if step == Step.PROFILE else [],
            }
        )
    go = request.POST.get("go", "")
    if go == "next":
        return redirect(_stage_url(evaluation, STAGES[number][0]))
    if go == "back" and number > 1:
        return redirect("evaluations:step", pk=evaluation.pk, number=number - 1)
    return redirect("evaluations:step", pk=evaluation.pk, number=number)


def _invalid(request, form, template: str, context: dict[str, Any]) -> HttpResponse:
    if _wants_json(request):
        return JsonResponse(
            {"detail": _("Not saved: please correct the marked fields."), "errors": form.errors},
            status=400,
        )
    return render(request, template, context, status=400)


def _step_response(
    request, evaluation, form, step: str, template: str, context: dict[str, Any], data=None
) -> HttpResponse:
    """GET renders the step; POST saves it through the service, or shows the form's errors."""
    if request.method != "POST":
        return render(request, template, context)
    if form.is_valid() and _save_or_form_error(
        form,
        lambda: services.evaluation_step_save(
            evaluation=evaluation, actor=request.user, step=step, data=form.to_data(**(data or {}))
        ),
    ):
        return _after_save(request, evaluation, STEP_INDEX[step])
    return _invalid(request, form, template, context)


def _missing_labels(evaluation) -> list[str]:
    labels = {name: str(field.label) for name, field in ProfileForm.base_fields.items()}
    labels["priorities"] = _("Priorities")
    return [labels.get(name, name) for name in services.profile_missing(evaluation.profile or {})]


def _save_or_form_error(form, save) -> bool:
    """Run a service; its validation errors land on the form. True when saved."""
    try:
        save()
    except InvalidInput as exc:
        for field_name, field_errors in exc.errors.items():
            target = field_name if field_name in form.fields else None
            for message in field_errors if isinstance(field_errors, list) else [field_errors]:
                form.add_error(target, str(message))
        if not exc.errors:
            form.add_error(None, exc.message)
        return False
    return True


@login_required
@maps_domain_errors
def evaluation_step_view(request, pk: int, number: int):
    if number not in STEP_NUMBERS:
        raise Http404("No such step")
    evaluation = _evaluation(request, pk)
    if request.method == "POST":
        services.evaluation_check_editable(evaluation=evaluation, actor=request.user)
    return {1: _profile_step, 2: _units_step, 3: _candidates_step, 4: _boundaries_step}[number](
        request, evaluation
    )


def _profile_step(request, evaluation) -> HttpResponse:
    template = "evaluations/step_profile.html"
    form = ProfileForm(request.POST or None, initial=ProfileForm.initial_from(evaluation.profile))
    context = _context(
        request,
        evaluation,
        "step-1",
        form=form,
        missing=_missing_labels(evaluation),
        guide={name: guidance(name) for name in ("step_profile", *ProfileForm.base_fields)},
        priorities_guide=guidance("priorities"),
    )
    return _step_response(request, evaluation, form, Step.PROFILE, template, context)


def _units_step(request, evaluation) -> HttpResponse:
    template = "evaluations/step_units.html"
    implications = selectors.unit_implications()
    keys = [item.unit.key for item in implications]
    chosen = {choice.unit.key: choice.note for choice in evaluation.units.select_related("unit")}
    initial = {"units": list(chosen)} | {f"note_{key}": note for key, note in chosen.items()}
    form = UnitsForm(request.POST or None, initial=initial, unit_keys=keys)
    for item in implications:
        item.granularity = granularity(item.unit.key)
        item.checked = item.unit.key in (form.data.getlist("units") if form.is_bound else chosen)
        item.note_field = form[f"note_{item.unit.key}"]
        item.caution = guidance(f"units_{item.unit.key}")
    context = _context(
        request,
        evaluation,
        "step-2",
        form=form,
        implications=implications,
        guide={"step": guidance("step_units")},
    )
    return _step_response(request, evaluation, form, Step.UNITS, template, context)


def _candidates_step(request, evaluation) -> HttpResponse:
    template = "evaluations/step_candidates.html"
    candidates = selectors.candidates_of(evaluation)
    point_choices = [(point.key, point.name) for point in EnforcementPoint.objects.all()]
    if request.method == "POST" and request.POST.get("add"):
        data = candidates_as_data(candidates)
        data.append({"row": request.POST["add"], "points_confirmed": False})
        try:
            services.evaluation_step_save(
                evaluation=evaluation,
                actor=request.user,
                step=Step.CANDIDATES,
                data={"candidates": data},
            )
        except InvalidInput as exc:
            messages.error(request, exc.message)
        query = request.POST.get("q", "")
        url = reverse("evaluations:step", args=[evaluation.pk, 3])
        return redirect(f"{url}?q={query}" if query else url)
    form = CandidatesForm(request.POST or None, candidates=candidates, point_choices=point_choices)
    query = request.GET.get("q", "").strip()[:200]
    in_evaluation = {candidate.row_id for candidate in candidates}
    for candidate in candidates:
        candidate.points_field = form[f"points_{candidate.pk}"]
        candidate.confirmed_field = form[f"confirmed_{candidate.pk}"]
        candidate.group_field = form[f"group_{candidate.pk}"]
        candidate.catalog_points = {point.key for point in candidate.row.enforcement_points.all()}
    context = _context(
        request,
        evaluation,
        "step-3",
        form=form,
        candidates=candidates,
        query=query,
        results=selectors.catalog_search(text=query),
        in_evaluation=in_evaluation,
        guide={"step": guidance("step_candidates"), "group": guidance("alternative_group")},
    )
    remove = {int(request.POST["remove"])} if request.POST.get("remove", "").isdigit() else set()
    return _step_response(
        request, evaluation, form, Step.CANDIDATES, template, context, data={"remove": remove}
    )


def _boundaries_step(request, evaluation) -> HttpResponse:
    template = "evaluations/step_boundaries.html"
    candidates = selectors.candidates_of(evaluation)
    form = BoundariesForm(request.POST or None, candidates=candidates)
    for candidate in candidates:
        candidate.promise_field = form[f"promise_{candidate.pk}"]
        candidate.non_promise_field = form[f"non_promise_{candidate.pk}"]
    context = _context(
        request,
        evaluation,
        "step-4",
        form=form,
        candidates=candidates,
        guide={"step": guidance("step_boundaries")},
    )
    return _step_response(request, evaluation, form, Step.BOUNDARIES, template, context)


# ---------------------------------------------------------------------------------------------
# Comparison, recommendations, decision


@login_required
def evaluation_comparison_view(request, pk: int):
    evaluation = _evaluation(request, pk)
    comparison = selectors.comparison_for(evaluation)
    candidates = comparison.candidates
    layer_names = {layer.key: layer.name for layer in Layer.objects.all()}
    unit_names = {unit.key: unit.name for unit in ResourceUnit.objects.all()}
    tables, alone = [], {}
    for group in comparison.groups:
        group["layer_name"] = layer_names.get(group["layer"], group["layer"])
        group["unit_name"] = unit_names.get(group["unit"], group["unit"])
        if len(group["candidates"]) > 1:
            tables.append(group)
            continue
        # A row alone in its (layer, unit) has nothing to be compared with: listed once, with
        # every unit it is alone in, instead of a one-row table per unit.
        for candidate in group["candidates"]:
            alone.setdefault(candidate.pk, (candidate, []))[1].append(group["unit_name"])
    return render(
        request,
        "evaluations/comparison.html",
        _context(
            request,
            evaluation,
            "comparison",
            comparison=comparison,
            tables=tables,
            alone=list(alone.values()),
            candidates=candidates,
            project_slugs=sorted({candidate.row.project.slug for candidate in candidates}),
            guide={"step": guidance("comparison"), "group": guidance("alternative_group")},
        ),
    )


@login_required
def evaluation_recommendations_view(request, pk: int):
    evaluation = _evaluation(request, pk)
    try:
        recommendations = selectors.recommendations_for(evaluation=evaluation)
        profile_error = ""
    except ValueError as exc:
        recommendations, profile_error = [], str(exc)
    return render(
        request,
        "evaluations/recommendations.html",
        _context(
            request,
            evaluation,
            "recommendations",
            recommendations=recommendations,
            profile_error=profile_error,
            guide={"step": guidance("recommendations")},
        ),
    )


@login_required
@maps_domain_errors
def evaluation_decision_view(request, pk: int):
    evaluation = _evaluation(request, pk)
    if request.method == "POST":
        services.evaluation_check_editable(evaluation=evaluation, actor=request.user)
    decision = getattr(evaluation, "decision", None)
    candidates = selectors.candidates_of(evaluation)
    refs = list(
        dict.fromkeys(
            [candidate.row.ref for candidate in candidates] + (decision.rows if decision else [])
        )
    )
    if request.method == "POST" and request.POST.get("adopt"):
        return _adopt_recommendation(request, evaluation, int(request.POST["adopt"]))
    initial = DecisionForm.initial_from(decision, refs)
    if decision is None or not decision.risks:
        chosen = decision.rows if decision else [c.row.ref for c in candidates]
        initial["risks"] = "\n".join(selectors.failure_modes_of(chosen))
    form = DecisionForm(request.POST or None, initial=initial, refs=refs)
    if request.method == "POST":
        if form.is_valid() and _save_or_form_error(
            form,
            lambda: services.evaluation_decide(
                evaluation=evaluation, actor=request.user, **form.to_data()
            ),
        ):
            messages.success(request, _("Decision saved; its stack check is below."))
            return redirect("evaluations:decision", pk=evaluation.pk)
        status = 400
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
        _context(
            request,
            evaluation,
            "decision",
            form=form,
            rows=rows,
            decision=decision,
            report=report,
            stack_query=",".join(decision.rows) if decision else "",
            guide={"step": guidance("decision"), "risks": guidance("risks")},
        ),
        status=status,
    )


def _adopt_recommendation(request, evaluation, rank: int) -> HttpResponse:
    """Make a recommended stack the decision, its checks and failure modes pre-filled."""
    recommendations = selectors.recommendations_for(evaluation=evaluation)
    chosen = next((item for item in recommendations if item.rank == rank), None)
    if chosen is None:
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
