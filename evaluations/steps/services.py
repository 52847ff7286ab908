"""The four placement steps' writes: each step saved whole (page forms, API) or step 1 field by
field (autosave), candidates added and removed one at a time under the row lock."""

from __future__ import annotations

from typing import Any

from django.db import transaction
from django.utils.translation import gettext as _

from catalog.engine.profile import PROFILE_FIELDS, Profile, profile_valid_fields
from catalog.models import EnforcementPoint, ResourceUnit
from evaluations.errors import InvalidInput
from evaluations.models import PLACEMENT_STEPS, Candidate, Evaluation, State, Step, UnitChoice
from evaluations.review.editing import (
    edit_begin,
    edit_commit,
    evaluation_lock,
    revision_check,
    role_require,
)
from evaluations.selectors import candidates_as_data, candidates_of, placement_rows_by_ref
from evaluations.teams.choices import Role

# What step 1 needs answered before it counts as done; the cluster facts (GPU model and memory,
# node and tenant counts, time windows) sharpen the recommendations but are optional.
PROFILE_REQUIRED: tuple[str, ...] = (
    "workload_types",
    "primary_objective",
    "jitter_tolerance",
    "isolation",
    "failure_semantics",
    "tenancy",
    "priorities",
)
_EMPTY: tuple[Any, ...] = (None, "", [], (), {})
# How a stored profile reads when a field was never answered.
_UNANSWERED: dict[str, Any] = {"workload_types": [], "priorities": [], "time_windows": {}}


def profile_missing(profile: dict[str, Any]) -> list[str]:
    """What step 1 still lacks before it counts as done, as field names."""
    answered = {name for name in PROFILE_FIELDS if profile.get(name) not in _EMPTY}
    if "tenant_count" in answered:
        answered.add("tenancy")  # a count of tenants says single or multi
    if "tenants" in answered:
        # Named tenants are counted, and the work they run is the profile's (Profile.from_dict).
        answered |= {"tenancy", "workload_types"}
    missing = [name for name in PROFILE_REQUIRED if name not in answered]
    if profile.get("primary_objective") == "p99_latency" and not profile.get("p99_target_ms"):
        missing.append("p99_target_ms")
    return missing


def _profile_answers(
    stored: dict[str, Any],
    data: dict[str, Any],
    keep: frozenset[str],
    errors: dict[str, Any] | None,
) -> dict[str, Any]:
    """The answers to store: `data`, all valid or an InvalidInput (errors is None); or, field
    by field, every valid answer, where a field in `keep` or failing validation keeps its
    stored answer and its error lands in `errors`."""
    given = {key: value for key, value in data.items() if value not in _EMPTY}
    if errors is None:
        try:
            Profile.from_dict(given)
        except ValueError as exc:
            field_name = str(exc).split(":", 1)[0] if ":" in str(exc) else "profile"
            raise InvalidInput(str(exc), errors={field_name: [str(exc)]}) from exc
        return given
    valid, bad = profile_valid_fields(given)
    for key, message in bad.items():
        errors.setdefault(key, [message])
    for key in keep | set(bad):
        valid.pop(key, None)
        if key in PROFILE_FIELDS and stored.get(key) not in _EMPTY:
            valid[key] = stored[key]
    # A stored answer the new ones contradict is dropped, never stored alongside them.
    return profile_valid_fields(valid)[0]


def _save_profile(
    evaluation: Evaluation,
    data: dict[str, Any],
    *,
    keep: frozenset[str] = frozenset(),
    errors: dict[str, Any] | None = None,
) -> tuple[dict, list[str]]:
    stored = {**_UNANSWERED, **(evaluation.profile or {})}
    given = _profile_answers(stored, data, keep, errors)
    validated = Profile.from_dict(given).to_dict()
    # Profile fills defaults (isolation none, tenancy single); keep only what the team answered.
    profile = {key: validated[key] if key in given else None for key in PROFILE_FIELDS}
    profile |= {key: profile[key] or empty for key, empty in _UNANSWERED.items()}
    changes = {
        key: {"old": stored.get(key), "new": profile[key]}
        for key in PROFILE_FIELDS
        if stored.get(key) != profile[key]
    }
    evaluation.profile = profile
    evaluation.profile_done = not profile_missing(profile)
    return changes, ["profile", "profile_done"]


def _save_units(evaluation: Evaluation, data: dict[str, Any]) -> tuple[dict, list[str]]:
    wanted: dict[str, str] = {}
    for item in data.get("units") or []:
        key = item["unit"] if isinstance(item, dict) else item
        note = (item.get("note") or "").strip() if isinstance(item, dict) else ""
        wanted[key] = note
    units = {unit.key: unit for unit in ResourceUnit.objects.filter(key__in=wanted)}
    unknown = sorted(set(wanted) - set(units))
    if unknown:
        allowed = ", ".join(ResourceUnit.objects.values_list("key", flat=True))
        message = _("Unknown resource unit {units}; allowed: {allowed}").format(
            units=", ".join(unknown), allowed=allowed
        )
        raise InvalidInput(message, errors={"units": [message]})
    current = {choice.unit.key: choice for choice in evaluation.units.select_related("unit")}
    changes: dict[str, Any] = {}
    added = sorted(set(wanted) - set(current))
    removed = sorted(set(current) - set(wanted))
    if removed:
        evaluation.units.filter(unit__key__in=removed).delete()
        changes["removed"] = removed
    if added:
        UnitChoice.objects.bulk_create(
            UnitChoice(evaluation=evaluation, unit=units[key], note=wanted[key]) for key in added
        )
        changes["added"] = added
    notes = {}
    for key, choice in current.items():
        if key in wanted and choice.note != wanted[key]:
            notes[key] = {"old": choice.note, "new": wanted[key]}
            choice.note = wanted[key]
            choice.save(update_fields=["note"])
    if notes:
        changes["notes"] = notes
    evaluation.units_done = bool(wanted)
    return changes, ["units_done"]


def _save_candidates(evaluation: Evaluation, data: dict[str, Any]) -> tuple[dict, list[str]]:
    items = list(data.get("candidates") or [])
    refs = [item["row"] for item in items]
    if len(set(refs)) != len(refs):
        raise InvalidInput(_("Each catalog row can be a candidate once."))
    rows = placement_rows_by_ref(refs)
    unknown = [ref for ref in refs if ref not in rows]
    if unknown:
        message = _("Not in the catalog: {rows}").format(rows=", ".join(unknown))
        raise InvalidInput(message, errors={"candidates": [message]})
    points = {point.key: point for point in EnforcementPoint.objects.all()}
    current = {
        candidate.row.ref: candidate
        for candidate in evaluation.candidates.select_related("row__project").prefetch_related(
            "enforcement_points"
        )
    }
    changes: dict[str, Any] = {}
    removed = sorted(set(current) - set(refs))
    if removed:
        evaluation.candidates.filter(pk__in=[current[ref].pk for ref in removed]).delete()
        changes["removed"] = removed
    added, changed = [], {}
    for position, item in enumerate(items):
        ref = item["row"]
        row = rows[ref]
        wanted_points = item.get("enforcement_points")
        if wanted_points is None:
            # Pre-filled from the catalog's placement row.
            wanted_points = [point.key for point in row.enforcement_points.all()]
        bad = sorted(set(wanted_points) - set(points))
        if bad:
            message = _("Unknown enforcement point {points}; allowed: {allowed}").format(
                points=", ".join(bad), allowed=", ".join(points)
            )
            raise InvalidInput(message, errors={"enforcement_points": [message]})
        values = {
            "points_confirmed": bool(item.get("points_confirmed", False)),
            "alternative_group": (item.get("alternative_group") or "").strip()[:40],
            "position": position,
        }
        candidate = current.get(ref)
        if candidate is None:
            candidate = Candidate.objects.create(evaluation=evaluation, row=row, **values)
            candidate.enforcement_points.set([points[key] for key in wanted_points])
            added.append(ref)
            continue
        diff = {
            name: {"old": getattr(candidate, name), "new": value}
            for name, value in values.items()
            if getattr(candidate, name) != value and name != "position"
        }
        old_points = sorted(point.key for point in candidate.enforcement_points.all())
        if old_points != sorted(wanted_points):
            diff["enforcement_points"] = {"old": old_points, "new": sorted(wanted_points)}
            candidate.enforcement_points.set([points[key] for key in wanted_points])
        if diff or candidate.position != position:
            for name, value in values.items():
                setattr(candidate, name, value)
            candidate.save(update_fields=list(values))
        if diff:
            changed[ref] = diff
    if added:
        changes["added"] = added
        # New candidates have boundaries nobody has looked at yet.
        evaluation.boundaries_done = False
    if changed:
        changes["changed"] = changed
    confirmed = all(item.get("points_confirmed") for item in items)
    evaluation.candidates_done = bool(items) and confirmed
    return changes, ["candidates_done", "boundaries_done"]


def _save_boundaries(evaluation: Evaluation, data: dict[str, Any]) -> tuple[dict, list[str]]:
    candidates = {
        candidate.row.ref: candidate
        for candidate in evaluation.candidates.select_related("row__project")
    }
    changes: dict[str, Any] = {}
    for item in data.get("boundaries") or []:
        candidate = candidates.get(item.get("row", ""))
        if candidate is None:
            message = _("{row} is not a candidate of this evaluation.").format(row=item.get("row"))
            raise InvalidInput(message, errors={"boundaries": [message]})
        diff = {}
        for name in ("promise", "non_promise"):
            text = (item.get(name) or "").strip()
            # The catalog text is the pre-fill: keeping it unchanged stores no override.
            override = "" if text == getattr(candidate.row, name).strip() else text
            if override != getattr(candidate, name):
                diff[name] = {"old": getattr(candidate, name), "new": override}
                setattr(candidate, name, override)
        if diff:
            candidate.save(update_fields=list(diff))
            changes[candidate.row.ref] = diff
    missing = [
        ref
        for ref, candidate in candidates.items()
        if not candidate.boundary_promise.strip() or not candidate.boundary_non_promise.strip()
    ]
    evaluation.boundaries_done = bool(candidates) and not missing
    return changes, ["boundaries_done"]


_STEP_SAVERS = {
    Step.PROFILE: _save_profile,
    Step.UNITS: _save_units,
    Step.CANDIDATES: _save_candidates,
    Step.BOUNDARIES: _save_boundaries,
}


@transaction.atomic
def evaluation_step_save(
    *, evaluation: Evaluation, actor, step: str, data: dict[str, Any], revision: int | None = None
) -> Evaluation:
    """Save one of the four placement steps; a save that changes nothing records nothing.

    `revision` is the evaluation's revision the edit was made on: a save over a newer one is an
    EditConflict (409), never a silent overwrite."""
    if step not in PLACEMENT_STEPS:
        raise InvalidInput(
            _("Unknown step {step}; steps: {steps}").format(
                step=step, steps=", ".join(PLACEMENT_STEPS)
            )
        )
    return _step_save(
        evaluation, actor, step, revision, lambda fresh: _STEP_SAVERS[step](fresh, data)
    )


@transaction.atomic
def evaluation_profile_save(
    *,
    evaluation: Evaluation,
    actor,
    data: dict[str, Any],
    invalid: dict[str, Any] | None = None,
    revision: int | None = None,
) -> tuple[Evaluation, dict[str, list[str]]]:
    """Save step 1 field by field: every valid answer is stored, and each field that is not
    (named in `invalid` by the form, or failing the profile's rules) keeps its stored answer
    and comes back with its error. One bad field never blocks the others."""
    errors: dict[str, Any] = {key: list(value) for key, value in (invalid or {}).items()}
    keep = frozenset(errors)
    evaluation = _step_save(
        evaluation,
        actor,
        Step.PROFILE,
        revision,
        lambda fresh: _save_profile(fresh, data, keep=keep, errors=errors),
    )
    return evaluation, errors


def _step_save(evaluation: Evaluation, actor, step: str, revision: int | None, save) -> Evaluation:
    """The role check, the row lock, the revision check, then `save(evaluation)` and the audit."""
    role_require(evaluation=evaluation, team=evaluation.team, actor=actor, role=Role.EDITOR)
    evaluation = evaluation_lock(evaluation)
    if evaluation.state in (State.IN_REVIEW, State.ARCHIVED):
        edit_begin(evaluation)  # raises with the reason
    revision_check(evaluation, revision, actor)
    done_before = evaluation.step_done(step)
    changes, fields = save(evaluation)
    if not changes:
        if evaluation.step_done(step) != done_before:
            evaluation.save(update_fields=[*fields, "updated_at"])
        return evaluation
    return edit_commit(evaluation, actor, step=step, changes=changes, fields=fields)


@transaction.atomic
def evaluation_candidate_add(
    *, evaluation: Evaluation, actor, row: str, revision: int | None = None
) -> Evaluation:
    """Add one candidate to the list as it is now, read under the row lock: two editors adding
    candidates at the same moment both keep theirs (a whole-list save would drop one). With a
    `revision`, an add made on a page someone else has saved over since is an EditConflict."""
    evaluation = evaluation_lock(evaluation)
    data = candidates_as_data(candidates_of(evaluation))
    if row not in {item["row"] for item in data}:
        data.append({"row": row, "points_confirmed": False})
    return evaluation_step_save(
        evaluation=evaluation,
        actor=actor,
        step=Step.CANDIDATES,
        data={"candidates": data},
        revision=revision,
    )


@transaction.atomic
def evaluation_candidate_remove(
    *, evaluation: Evaluation, actor, candidate_id: int, revision: int | None = None
) -> Evaluation:
    """Remove one candidate; the others keep what is stored for them (points, group)."""
    role_require(evaluation=evaluation, team=evaluation.team, actor=actor, role=Role.EDITOR)
    evaluation = evaluation_lock(evaluation)
    candidates = candidates_of(evaluation)
    if candidate_id not in {candidate.pk for candidate in candidates}:
        raise InvalidInput(_("That candidate is not in this evaluation any more."))
    kept = [candidate for candidate in candidates if candidate.pk != candidate_id]
    return evaluation_step_save(
        evaluation=evaluation,
        actor=actor,
        step=Step.CANDIDATES,
        data={"candidates": candidates_as_data(kept)},
        revision=revision,
    )
