"""What every evaluation page shares: the stages and their progress bar, the page context,
the access helper, and domain errors answered as pages."""

from __future__ import annotations

import functools
from typing import Any

from django.http import JsonResponse
from django.shortcuts import render
from django.urls import reverse
from django.utils.translation import gettext_lazy

from evaluations import selectors
from evaluations.errors import EditConflict, EvaluationError, InvalidInput
from evaluations.models import State, Step
from evaluations.review.comments import comments_panel
from evaluations.review.editing import revision_problem
from evaluations.teams.choices import Role

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


def stage_url(evaluation, key: str) -> str:
    if key.startswith("step-"):
        return reverse("evaluations:step", args=[evaluation.pk, int(key[5:])])
    if key == "review":
        return reverse("evaluations:detail", args=[evaluation.pk])
    return reverse(f"evaluations:{key}", args=[evaluation.pk])


def stage_done(evaluation, key: str) -> bool:
    """A stage's ✓: a step saved complete; the comparison once what it compares is complete
    (candidates and their boundaries), the recommendations once what they rank against is
    (the profile and the units considered)."""
    if key.startswith("step-"):
        return evaluation.step_done(STEP_NUMBERS[int(key[5:])])
    if key == "comparison":
        return evaluation.step_done(Step.CANDIDATES) and evaluation.step_done(Step.BOUNDARIES)
    if key == "recommendations":
        return evaluation.step_done(Step.PROFILE) and evaluation.step_done(Step.UNITS)
    if key == "decision":
        return hasattr(evaluation, "decision")
    if key == "review":
        return evaluation.state == State.APPROVED
    return False


# Stages nothing is saved on: their ✓ also waits until the person has opened them.
VIEWED_STAGES = frozenset({"comparison", "recommendations"})


def stages_visited(request, evaluation, current: str) -> set[str]:
    """The computed stages this person has opened for this evaluation (kept in the session),
    the current one included."""
    key = f"visited-stages-{evaluation.pk}"
    seen = set(request.session.get(key, ())) if hasattr(request, "session") else set()
    if current in VIEWED_STAGES and current not in seen and hasattr(request, "session"):
        seen.add(current)
        request.session[key] = sorted(seen)
    return seen | {current}


def _progress(
    evaluation, current: str, *, current_has_errors: bool = False, visited: set[str] | None = None
) -> dict[str, Any]:
    """The progress bar and the back/next links around the current stage (whose ✓ waits while
    the page shows an error, and for a computed stage until it has been opened)."""
    visited = {current} if visited is None else visited
    stages = [
        {
            "key": key,
            "number": index + 1,
            "label": label,
            "url": stage_url(evaluation, key),
            "done": stage_done(evaluation, key)
            and not (current_has_errors and key == current)
            and (key not in VIEWED_STAGES or key in visited),
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


def page_context(
    request, evaluation, current: str, *, current_has_errors: bool = False, **extra: Any
) -> dict[str, Any]:
    role = selectors.user_role_in(evaluation, request.user)
    can_edit = selectors.role_allows(role, Role.EDITOR) and evaluation.state not in (
        State.IN_REVIEW,
        State.ARCHIVED,
    )
    return {
        "evaluation": evaluation,
        "role": role,
        "can_edit": can_edit,
        "progress": _progress(
            evaluation,
            current,
            current_has_errors=current_has_errors,
            visited=stages_visited(request, evaluation, current),
        ),
        "comments": comments_panel(
            evaluation=evaluation, user=request.user, role=role, stage=current
        ),
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
            if wants_json(request):
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


def wants_json(request) -> bool:
    return request.headers.get("X-Autosave") == "1"


def evaluation_for(request, pk: int):
    """The evaluation of an evaluation page; a page read (GET) reads its decision with it: the
    progress bar asks whether there is one. A write leaves it to be read after the write."""
    return selectors.evaluation_get_for_user(
        user=request.user, pk=pk, with_decision=request.method == "GET"
    )


def posted_revision(request) -> int | None:
    """The evaluation revision a posted form was loaded with (its hidden `revision` field); None
    when the form has none. A value that is not a decimal number is InvalidInput (400), never
    taken for "none" (which would skip the conflict check); the range is revision_check's."""
    value = request.POST.get("revision", "").strip()
    if not value:
        return None
    if not (value.isascii() and value.isdigit()) or len(value) > 20:
        raise InvalidInput(revision_problem(), errors={"revision": [revision_problem()]})
    return int(value)


def save_or_form_error(form, save) -> bool:
    """Run a service; its validation errors land on the form. True when saved.

    An edit conflict (another editor saved first) lands on the form too, which keeps the user's
    input; `form.conflict` holds it so the page answers 409 with the newer revision."""
    form.conflict = None
    try:
        save()
    except EditConflict as exc:
        form.conflict = exc
        form.add_error(None, exc.message)
        return False
    except InvalidInput as exc:
        for field_name, field_errors in exc.errors.items():
            target = field_name if field_name in form.fields else None
            for message in field_errors if isinstance(field_errors, list) else [field_errors]:
                form.add_error(target, str(message))
        if not exc.errors:
            form.add_error(None, exc.message)
        return False
    return True
