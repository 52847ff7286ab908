"""Step 3 without reloads: search the catalog as you type, add and remove a candidate. Each write
carries the revision the page was loaded on and answers JSON with the new revision and the same
server-rendered fragments the page shows without JavaScript."""

from __future__ import annotations

import functools
from typing import Any

from django.contrib.auth.decorators import login_required
from django.http import JsonResponse
from django.template.loader import render_to_string
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_POST

from catalog.models import Function
from catalog.templatetags.labels import vocabulary_names
from evaluations import selectors
from evaluations.errors import EditConflict, EvaluationError
from evaluations.models import Candidate, Evaluation, Step
from evaluations.pages import evaluation_for, posted_revision
from evaluations.steps.forms import NAMED_GROUP, CandidatesForm, alternative_group_choices
from evaluations.steps.services import evaluation_candidate_add, evaluation_candidate_remove
from evaluations.steps.suggestions import candidate_suggestions, evaluation_unit_keys

# A search term longer than this is not a name anyone types.
MAX_QUERY = 200


def candidates_form(candidates: list[Candidate], data=None) -> CandidatesForm:
    points = list(vocabulary_names("point").items())
    return CandidatesForm(data, candidates=candidates, point_choices=points)


def candidate_fields(candidates: list[Candidate], form: CandidatesForm) -> None:
    """Give each candidate its bound fields and its alternatives-group choices, as the row
    partial shows them (the page and the JSON fragments render the same partial)."""
    for candidate in candidates:
        candidate.points_field = form[f"points_{candidate.pk}"]
        candidate.confirmed_field = form[f"confirmed_{candidate.pk}"]
        candidate.group_field = form[f"group_{candidate.pk}"]
        candidate.group_name_field = form[f"group_name_{candidate.pk}"]
        candidate.group_value = candidate.group_field.value() or ""
        candidate.catalog_points = {point.key for point in candidate.row.enforcement_points.all()}
        candidate.point_options = _point_options(candidate.points_field, candidate.catalog_points)
    choices = alternative_group_choices(candidate.group_value for candidate in candidates)
    for candidate in candidates:
        candidate.group_choices = choices


def _point_options(field, catalog_points: set[str]) -> list[dict[str, Any]]:
    """The enforcement-point checkboxes of one candidate as the row partial writes them: the
    names, values and ids Django's CheckboxSelectMultiple gives them, without rendering a widget
    template per checkbox (step 3 shows five per candidate)."""
    checked = {str(value) for value in field.value() or ()}
    return [
        {
            "id": f"{field.auto_id}_{index}",
            "value": value,
            "label": label,
            "checked": value in checked,
            "from_catalog": value in catalog_points,
        }
        for index, (value, label) in enumerate(field.field.choices)
    ]


def group_labels() -> dict[str, str]:
    """The select's labels with a `{name}` slot, for the script that rebuilds its options."""
    return {
        "none": _("none"),
        "group": _("group %(name)s") % {"name": "{name}"},
        "new": _("new group %(name)s") % {"name": "{name}"},
        "named": _("new group, named…"),
        "named_value": NAMED_GROUP,
    }


def suggestions_context(
    evaluation: Evaluation,
    candidates: list[Candidate] | None = None,
    *,
    revision: int | None = None,
) -> dict[str, Any]:
    """The suggestions panel; `candidates` and the catalog `revision` (the page's, already read)
    spare queries."""
    profile = evaluation.profile or {}
    units = evaluation_unit_keys(evaluation)
    chosen = None if candidates is None else {candidate.row_id for candidate in candidates}
    return {
        "suggestions": candidate_suggestions(
            evaluation=evaluation, units=units, chosen=chosen, revision=revision
        ),
        # Nothing answered yet is a different empty panel from everything fitting already chosen.
        "suggestions_basis": bool(units)
        or any(value not in (None, "", [], {}) for value in profile.values()),
    }


def _function_names() -> dict[str, str]:
    return {function.key: function.name for function in Function.objects.all()}


def search_results(text: str, evaluation: Evaluation) -> tuple[list[Any], bool]:
    """Matching rows, each with `added` and `function_names` set, and whether more match."""
    rows, more = selectors.placement_search(text=text[:MAX_QUERY])
    if rows:
        chosen = set(evaluation.candidates.values_list("row_id", flat=True))
        names = _function_names()
        for row in rows:
            row.added = row.pk in chosen
            row.function_names = [names.get(key, key) for key in row.functions]
    return rows, more


def answers_json(view):
    """A refused write answers JSON with its status; a conflict also names the newer revision."""

    @functools.wraps(view)
    def wrapper(request, *args, **kwargs):
        try:
            return view(request, *args, **kwargs)
        except EvaluationError as exc:
            body: dict[str, Any] = {"detail": exc.message, "errors": exc.errors}
            if isinstance(exc, EditConflict):
                body["revision"] = exc.current_revision
            return JsonResponse(body, status=exc.status)

    return wrapper


def _written(request, evaluation: Evaluation, **extra: Any) -> dict[str, Any]:
    """What the page updates after an add or a remove: revision, step state, suggestions."""
    context = {"evaluation": evaluation, "can_edit": True, **suggestions_context(evaluation)}
    return {
        "revision": evaluation.revision,
        "done": evaluation.step_done(Step.CANDIDATES),
        "count": evaluation.candidates.count(),
        "suggestions": render_to_string(
            "evaluations/_candidate_suggestions.html", context, request=request
        ),
        **extra,
    }


@login_required
@require_GET
def candidate_search_view(request, pk: int) -> JsonResponse:
    evaluation = evaluation_for(request, pk)
    text = request.GET.get("q", "").strip()[:MAX_QUERY]
    rows, more = search_results(text, evaluation)
    return JsonResponse(
        {
            "query": text,
            "more": more,
            "results": [
                {
                    "ref": row.ref,
                    "project": row.project.name,
                    "component": row.component or row.key,
                    "layer": row.layer.key,
                    "layer_label": row.layer.name,
                    "units": [unit.name for unit in row.resource_units.all()],
                    "functions": row.function_names,
                    "added": row.added,
                }
                for row in rows
            ],
        }
    )


@login_required
@require_POST
@answers_json
def candidate_add_view(request, pk: int) -> JsonResponse:
    evaluation = evaluation_for(request, pk)
    ref = request.POST.get("row", "").strip()[:MAX_QUERY]
    evaluation = evaluation_candidate_add(
        evaluation=evaluation, actor=request.user, row=ref, revision=posted_revision(request)
    )
    candidates = selectors.candidates_of(evaluation)
    candidate_fields(candidates, candidates_form(candidates))
    added = next(candidate for candidate in candidates if candidate.row.ref == ref)
    row = render_to_string(
        "evaluations/_candidate_row.html",
        {"candidate": added, "evaluation": evaluation, "can_edit": True},
        request=request,
    )
    return JsonResponse(
        _written(request, evaluation, ref=ref, candidate=added.pk, html=row), status=201
    )


@login_required
@require_POST
@answers_json
def candidate_remove_view(request, pk: int, candidate: int) -> JsonResponse:
    evaluation = evaluation_for(request, pk)
    evaluation = evaluation_candidate_remove(
        evaluation=evaluation,
        actor=request.user,
        candidate_id=candidate,
        revision=posted_revision(request),
    )
    return JsonResponse(_written(request, evaluation, candidate=candidate))
