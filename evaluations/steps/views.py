"""The four placement steps: each page renders its form and saves through the step service,
by autosave (JSON) or by a button press (back, next, stay)."""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import timezone
from django.utils.http import urlencode
from django.utils.translation import gettext as _

from catalog.engine.text import render as render_text
from catalog.engine.workload_mix import MixError, mix_from_trace
from catalog.selectors import catalog_revision_for_pages
from evaluations import selectors, services
from evaluations.errors import EditConflict, InvalidInput
from evaluations.models import Step
from evaluations.pages import (
    STAGES,
    STEP_INDEX,
    STEP_NUMBERS,
    evaluation_for,
    maps_domain_errors,
    page_context,
    posted_revision,
    save_or_form_error,
    stage_url,
    wants_json,
)
from evaluations.steps import candidates as step_candidates
from evaluations.steps.fleet_forms import mig_profile_names, rows_edited
from evaluations.steps.forms import BoundariesForm, ProfileForm, UnitsForm
from evaluations.steps.guidance import (
    gpu_model_note,
    granularity,
    guidance,
    profile_notes,
    unit_gpu_facts,
)
from evaluations.steps.mix_forms import TraceForm
from evaluations.steps.services import (
    evaluation_candidate_add,
    evaluation_profile_save,
    evaluation_step_save,
    profile_missing,
)

# ---------------------------------------------------------------------------------------------
# The four steps


def _after_save(request, evaluation, number: int, form=None) -> HttpResponse:
    """Autosave answers JSON; a button press moves back, next, or stays."""
    evaluation.refresh_from_db()
    step = STEP_NUMBERS[number]
    if wants_json(request):
        return JsonResponse(
            {
                "saved": True,
                "saved_at": timezone.localtime().strftime("%H:%M:%S"),
                "done": evaluation.step_done(step),
                "revision": evaluation.revision,
                "state": evaluation.state,
                "missing": _missing_labels(evaluation) if step == Step.PROFILE else [],
                # Step 1's notes beside the answers (the GPU model's facts, derived sharing).
                "notes": profile_notes(evaluation.profile or {}) if step == Step.PROFILE else {},
            }
        )
    go = request.POST.get("go", "")
    if go == "next":
        return redirect(stage_url(evaluation, STAGES[number][0]))
    if go == "back" and number > 1:
        return redirect("evaluations:step", pk=evaluation.pk, number=number - 1)
    return redirect("evaluations:step", pk=evaluation.pk, number=number)


def _invalid(request, form, template: str, context: dict[str, Any]) -> HttpResponse:
    for stage in context["progress"]["stages"]:
        if stage["current"]:
            stage["done"] = False  # no ✓ beside an error
    conflict = getattr(form, "conflict", None)
    if conflict is not None:
        # The form keeps the user's input; the next save is made on the newer revision.
        context["evaluation"].refresh_from_db()
    if wants_json(request):
        if conflict is not None:
            return JsonResponse(
                {"detail": conflict.message, "errors": form.errors,
                 "revision": conflict.current_revision},
                status=409,
            )  # fmt: skip
        return JsonResponse(
            {"detail": _("Not saved: please correct the marked fields."), "errors": form.errors},
            status=400,
        )
    return render(request, template, context, status=409 if conflict is not None else 400)


def _step_response(
    request, evaluation, form, step: str, template: str, context: dict[str, Any], data=None
) -> HttpResponse:
    """GET renders the step; POST saves it through the service, or shows the form's errors."""
    if request.method != "POST":
        return render(request, template, context)
    if form.is_valid() and save_or_form_error(
        form,
        lambda: evaluation_step_save(
            evaluation=evaluation,
            actor=request.user,
            step=step,
            data=form.to_data(**(data or {})),
            revision=posted_revision(request),
        ),
    ):
        return _after_save(request, evaluation, STEP_INDEX[step])
    return _invalid(request, form, template, context)


def _missing_labels(evaluation) -> list[str]:
    labels = {name: str(field.label) for name, field in ProfileForm.base_fields.items()}
    labels["priorities"] = _("Priorities")
    return [labels.get(name, name) for name in profile_missing(evaluation.profile or {})]


@login_required
@maps_domain_errors
def evaluation_step_view(request, pk: int, number: int):
    if number not in STEP_NUMBERS:
        raise Http404("No such step")
    evaluation = evaluation_for(request, pk)
    if request.method == "POST":
        services.evaluation_check_editable(evaluation=evaluation, actor=request.user)
    return {1: _profile_step, 2: _units_step, 3: _candidates_step, 4: _boundaries_step}[number](
        request, evaluation
    )


def _field_error(name: str, message) -> str:
    """The engine's sentence in the reader's language, without the field name it starts with
    (the page shows it under that field)."""
    text = render_text(message, _)
    return text.split(": ", 1)[1] if text.startswith(f"{name}: ") else text


def _profile_context(request, evaluation, form, trace_form=None) -> dict[str, Any]:
    notes = profile_notes(evaluation.profile or {})
    memory_hint = notes["gpu_memory_gb"].get("placeholder")
    if memory_hint:  # the known model's memory, where the team has not said its own
        form.fields["gpu_memory_gb"].widget.attrs["placeholder"] = memory_hint
    for group in form.fleet.node_groups:  # what the GPU facts say of each group's model
        group.note = gpu_model_note(group["gpu_model"].value())
    # The stored profile may be complete while the page shows an error: no ✓ beside it.
    return page_context(
        request,
        evaluation,
        "step-1",
        current_has_errors=form.any_errors,
        form=form,
        trace_form=trace_form or TraceForm(),
        missing=_missing_labels(evaluation),
        notes=notes,
        gpu_models=ProfileForm.gpu_model_names(),
        mig_profiles=mig_profile_names(),
        guide={
            name: guidance(name)
            for name in (
                "step_profile",
                "workload_isolation",
                "node_groups",
                "tenants",
                "installed",
                *ProfileForm.base_fields,
            )
        },
        priorities_guide=guidance("priorities"),
    )


@login_required
@maps_domain_errors
def evaluation_trace_upload_view(request, pk: int):
    """Step 1's trace upload: the pod list, read within its caps, becomes the workload mix; a
    trace that is not valid is marked on the page and the stored profile stays as it was."""
    evaluation = evaluation_for(request, pk)
    if request.method != "POST":
        return redirect("evaluations:step", pk=evaluation.pk, number=1)
    services.evaluation_check_editable(evaluation=evaluation, actor=request.user)
    trace_form = TraceForm(request.POST, request.FILES)
    form = ProfileForm(initial=ProfileForm.initial_from(evaluation.profile))
    if trace_form.is_valid():
        profile = evaluation.profile or {}
        try:
            mix, counts = mix_from_trace(
                trace_form.cleaned_data["trace"].chunks(),
                tenant_count=profile.get("tenant_count")
                or len(profile.get("tenants") or ())  # named tenants count as many
                or (1 if profile.get("tenancy") == "single" else None),
            )
        except MixError as exc:
            trace_form.add_error("trace", _field_error("workload_mix", exc.args[0]))
        else:
            data = {**profile, "workload_mix": [entry.to_dict() for entry in mix]}
            evaluation, errors = evaluation_profile_save(
                evaluation=evaluation,
                actor=request.user,
                data=data,
                revision=posted_revision(request),
            )
            if "workload_mix" not in errors:
                messages.success(
                    request,
                    _(
                        "Read %(tasks)s tasks from the trace: %(gpu)s ask for GPUs, counted into "
                        "%(kinds)s kinds of task below; %(cpu)s CPU-only tasks left out."
                    )
                    % {
                        "tasks": counts["tasks"],
                        "gpu": counts["gpu_tasks"],
                        "kinds": len(mix),
                        "cpu": counts["cpu_only"],
                    },
                )
                return redirect("evaluations:step", pk=evaluation.pk, number=1)
            for message in errors["workload_mix"]:
                trace_form.add_error("trace", _field_error("workload_mix", message))
    return render(
        request,
        "evaluations/step_profile.html",
        _profile_context(request, evaluation, form, trace_form),
        status=400,
    )


def _profile_step(request, evaluation) -> HttpResponse:
    """Step 1 saves field by field: a POST stores every valid answer, even beside a bad one,
    and answers with the bad ones marked (400) and what is still to answer. A row button
    (`fleet`: add or remove a node group, tenant, demand line or component) saves the rest and
    shows the page again with the row added or removed."""
    template = "evaluations/step_profile.html"
    data = request.POST or None
    edited = rows_edited(request.POST, request.POST["fleet"]) if "fleet" in request.POST else None
    form = ProfileForm(edited or data, initial=ProfileForm.initial_from(evaluation.profile))
    if request.method == "POST":
        form.is_valid()  # marks the bad fields; the valid ones are saved all the same
        unsaved: dict[str, list[str]] = {}
        marked = form.unsaved()

        def save() -> None:
            nonlocal evaluation
            evaluation, errors = evaluation_profile_save(
                evaluation=evaluation,
                actor=request.user,
                data=form.to_data(),
                invalid=marked,
                revision=posted_revision(request),
            )
            unsaved.update(errors)

        saved = save_or_form_error(form, save)
        for name, messages in unsaved.items():
            if name not in marked:
                for message in messages:
                    form.add_profile_error(name, message)
        if saved and not form.any_errors:
            if edited is not None:  # the page again, with the row added or removed
                return render(request, template, _profile_context(request, evaluation, form))
            return _after_save(request, evaluation, 1)
    context = _profile_context(request, evaluation, form)
    if request.method != "POST":
        return render(request, template, context)
    if form.conflict is None and wants_json(request):
        # Saved, except the marked fields: the page takes the new revision and what is missing.
        return JsonResponse(
            {
                "detail": _("Saved, except the marked fields: please correct them."),
                "saved": True,
                "saved_at": timezone.localtime().strftime("%H:%M:%S"),
                "errors": form.errors_by_name(),
                "done": evaluation.step_done(Step.PROFILE) and not form.any_errors,
                "revision": evaluation.revision,
                "state": evaluation.state,
                "missing": context["missing"],
                "notes": context["notes"],
            },
            status=400,
        )
    return _invalid(request, form, template, context)


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
        # A partition unit's card lists what each node group's GPUs offer (the GPU facts).
        item.gpus = unit_gpu_facts(item.unit.key, evaluation.profile or {})
    context = page_context(
        request,
        evaluation,
        "step-2",
        form=form,
        implications=implications,
        guide={"step": guidance("step_units")},
    )
    return _step_response(request, evaluation, form, Step.UNITS, template, context)


def _candidates_step(request, evaluation) -> HttpResponse:
    """Step 3. Without JavaScript an add is a POST and a reload; candidates.js does the same
    through the JSON endpoints of evaluations.steps.candidates, on the same partials."""
    template = "evaluations/step_candidates.html"
    if request.method == "POST" and request.POST.get("add"):
        try:
            evaluation_candidate_add(
                evaluation=evaluation,
                actor=request.user,
                row=request.POST["add"],
                revision=posted_revision(request),
            )
        except (InvalidInput, EditConflict) as exc:
            messages.error(request, exc.message)
        query = request.POST.get("q", "").strip()[: step_candidates.MAX_QUERY]
        url = reverse("evaluations:step", args=[evaluation.pk, 3])
        return redirect(f"{url}?{urlencode({'q': query})}" if query else url)
    revision = catalog_revision_for_pages()
    candidates = selectors.candidates_of(evaluation, with_contracts=False, revision=revision)
    form = step_candidates.candidates_form(candidates, request.POST or None)
    step_candidates.candidate_fields(candidates, form)
    query = request.GET.get("q", "").strip()[: step_candidates.MAX_QUERY]
    results, more = step_candidates.search_results(query, evaluation)
    context = page_context(
        request,
        evaluation,
        "step-3",
        form=form,
        candidates=candidates,
        query=query,
        results=results,
        more_results=more,
        group_labels=step_candidates.group_labels(),
        guide={"step": guidance("step_candidates"), "group": guidance("alternative_group")},
    )
    if context["can_edit"]:
        context.update(
            step_candidates.suggestions_context(evaluation, candidates, revision=revision)
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
    context = page_context(
        request,
        evaluation,
        "step-4",
        form=form,
        candidates=candidates,
        guide={"step": guidance("step_boundaries")},
    )
    return _step_response(request, evaluation, form, Step.BOUNDARIES, template, context)
