"""Capacity simulation pages: ask for a run (from the recommendations or decision page) and poll
its status (JSON); the panels themselves are drawn by those pages."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import JsonResponse
from django.shortcuts import redirect
from django.views.decorators.http import require_GET, require_POST

from evaluations import selectors
from evaluations.errors import EvaluationError
from evaluations.simulations import selectors as capacity_selectors
from evaluations.simulations.services import capacity_request

# Where the run button may send the user back to (never a URL taken from the request).
BACK = {"recommendations": "evaluations:recommendations", "decision": "evaluations:decision"}


@login_required
@require_POST
def capacity_request_view(request, pk: int):
    evaluation = selectors.evaluation_get_for_user(user=request.user, pk=pk)
    back = BACK.get(request.POST.get("back", ""), BACK["recommendations"])
    try:
        capacity_request(evaluation=evaluation, actor=request.user)
    except EvaluationError as exc:
        messages.error(request, exc.message)
    return redirect(back, pk=evaluation.pk)


@login_required
@require_GET
def capacity_status_view(request, pk: int):
    """What the panel's poller reads while a run is queued or running."""
    evaluation = selectors.evaluation_get_for_user(user=request.user, pk=pk)
    state = capacity_selectors.capacity_state(evaluation=evaluation)
    run = state["run"]
    return JsonResponse(
        {
            "status": state["status"],
            "progress": run.progress if run is not None else 0,
            "error": state["error"],
        }
    )
