"""The decision's pages: the decision with its stack check and drift notice, adopting a ranked
recommendation, what-if swaps, cloning. Fetch through the access helper, call one service,
render."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from catalog.engine.text import render as say
from evaluations import selectors, services
from evaluations.decisions.cloning import evaluation_clone
from evaluations.decisions.drift import drift_view
from evaluations.decisions.forms import DecisionForm
from evaluations.decisions.services import evaluation_decide
from evaluations.decisions.whatif import (
    evaluation_whatif_adopt,
    whatif_choices,
    whatif_for,
    whatif_in_words,
)
from evaluations.errors import InvalidInput, NotAllowed
from evaluations.pages import (
    evaluation_for,
    maps_domain_errors,
    page_context,
    posted_revision,
    save_or_form_error,
)
from evaluations.sharing.selectors import share_links_for
from evaluations.simulations.selectors import capacity_of_rows, capacity_panel
from evaluations.steps.guidance import guidance
from evaluations.teams.choices import Role
from evaluations.teams.selectors import teams_for_user


@login_required
@maps_domain_errors
def evaluation_decision_view(request, pk: int):
    evaluation = evaluation_for(request, pk)
    if request.method == "POST":
        services.evaluation_check_editable(evaluation=evaluation, actor=request.user)
    decision = getattr(evaluation, "decision", None)
    candidates = selectors.candidates_of(evaluation)
    # The decided rows first, as decided (a save keeps their order), then the other candidates.
    refs = list(
        dict.fromkeys(
            (decision.rows if decision else []) + [candidate.row.ref for candidate in candidates]
        )
    )
    if request.method == "POST" and request.POST.get("adopt", "").isdigit():
        return _adopt_recommendation(request, evaluation, int(request.POST["adopt"]))
    initial = DecisionForm.initial_from(decision)
    # Pre-filled from the chosen rows only: before a stack is chosen there is nothing to say.
    if decision is not None and decision.rows and not decision.risks:
        initial["risks"] = "\n".join(selectors.failure_modes_of(decision.rows))
    adding_pool = request.method == "POST" and "add_pool" in request.POST
    form = DecisionForm(
        request.POST or None,
        initial=initial,
        refs=refs,
        pools=decision.pools if decision else {},
        sharing=decision.pool_tenant_sharing if decision else {},
        node_groups=decision.pool_node_groups if decision else {},
        groups=_node_group_names(evaluation),
        more_pools=1 if adding_pool else 0,
    )
    if adding_pool:
        status = 200  # the same input with one more blank pool; nothing is saved yet
    elif request.method == "POST":
        if form.is_valid() and save_or_form_error(
            form,
            lambda: evaluation_decide(
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
    rows = [{**cells, "row": catalog_rows.get(cells["ref"])} for cells in form.grid()]
    report = selectors.decision_report(evaluation)
    capacity = capacity_panel(evaluation=evaluation, back="decision")
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
            capacity=capacity,
            # The sized stack the decision adopted (the same rows), if it is one of them.
            decided_capacity=capacity_of_rows(capacity, decision.rows, pools=decision.pools)
            if decision
            else None,
            stack_query=",".join(decision.rows) if decision else "",
            decision_focus=selectors.decision_focus_query(evaluation),
            guide={"step": guidance("decision"), "risks": guidance("risks")},
            drift=drift_view(evaluation),
            shares=share_links_for(evaluation) if decision else [],
        ),
        status=status,
    )


def _node_group_names(evaluation) -> list[str]:
    """Step 1's node groups, when it names them (a pool may then say which it runs on)."""
    try:
        return [group.name for group in evaluation.engine_profile().node_groups]
    except ValueError:
        return []


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
    details = chosen.pool_details or {}
    sharing = {name: pool["tenant_sharing"] for name, pool in details.items()}
    try:
        grouped = bool(evaluation.engine_profile().node_groups)
    except ValueError:
        grouped = False
    # Where each pool runs, as the ranking placed it (a v1 profile's one group is not named).
    groups = {
        name: pool["node_group"]
        for name, pool in details.items()
        if grouped and name in pools and pool.get("node_group")
    }
    evaluation_decide(
        evaluation=evaluation,
        actor=request.user,
        rows=list(chosen.rows),
        pools=pools,
        pool_tenant_sharing={name: value for name, value in sharing.items() if name in pools},
        pool_node_groups=groups,
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


@login_required
@require_POST
@maps_domain_errors
def evaluation_clone_view(request, pk: int):
    """A new draft from this evaluation's placement work, in this team or another where the user
    is an editor."""
    evaluation = evaluation_for(request, pk)
    teams = teams_for_user(user=request.user, min_role=Role.EDITOR)
    wanted = request.POST.get("team") or str(evaluation.team_id)
    team = next((team for team in teams if str(team.pk) == wanted), None)
    if team is None:
        raise NotAllowed(_("You can copy an evaluation only into a team where you are an editor."))
    copy = evaluation_clone(evaluation=evaluation, actor=request.user, team=team)
    messages.success(request, _("Copied into a new draft: the decision and reviews stay behind."))
    return redirect("evaluations:detail", pk=copy.pk)
