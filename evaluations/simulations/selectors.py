"""Capacity simulation reads: the input a run would compute now, the run that holds it, its
result with the engine's sentences restored, and the figures the pages draw."""

from __future__ import annotations

import hashlib
import json
from typing import Any

from catalog.engine.text import Text
from catalog.selectors import catalog_revision
from evaluations.capacity.outcome import OUTCOME_VERSION
from evaluations.capacity.sizing import cluster_of
from evaluations.models import Evaluation
from evaluations.simulations.models import CapacityRun

# ---- the input ----------------------------------------------------------------------------------


def capacity_input(evaluation: Evaluation) -> tuple[str, int]:
    """The key of what a run of the evaluation would compute now, and the catalog revision.

    ValueError (in words) when step 1 cannot be sized: the profile is not valid, or it does not
    say how many GPU nodes there are."""
    from evaluations.engine.recommend import RANKING_VERSION

    profile = evaluation.engine_profile()  # ValueError names the field
    cluster_of(profile)  # ValueError: not enough to size, or too many tenants
    revision = catalog_revision()
    data = json.dumps(profile.to_dict(), sort_keys=True, separators=(",", ":"))
    digest = hashlib.sha256(
        f"{OUTCOME_VERSION}:{RANKING_VERSION}:{revision}:{data}".encode()
    ).hexdigest()
    return digest, revision


# ---- engine sentences in JSON -------------------------------------------------------------------


def text_to_data(value: Any) -> Any:
    """`value` with every engine sentence (Text) kept as {"text", "template", "params"}, so the
    page can say it in the reader's language after it was stored as JSON."""
    if isinstance(value, Text):
        return {
            "text": str(value),
            "template": value.template,
            "params": {k: text_to_data(v) for k, v in value.params.items()},
        }
    if isinstance(value, dict):
        return {key: text_to_data(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [text_to_data(item) for item in value]
    return value


def text_from_data(value: Any, *, plain: bool = False) -> Any:
    """The reverse of text_to_data: Texts again (or, with `plain`, their English sentence)."""
    if isinstance(value, dict):
        if set(value) == {"text", "template", "params"}:
            if plain:
                return value["text"]
            params = {k: text_from_data(v) for k, v in value["params"].items()}
            return Text(value["template"], params)
        return {key: text_from_data(item, plain=plain) for key, item in value.items()}
    if isinstance(value, list):
        return [text_from_data(item, plain=plain) for item in value]
    return value


# ---- the state a page or the API shows ----------------------------------------------------------


def capacity_state(*, evaluation: Evaluation, plain: bool = False) -> dict[str, Any]:
    """`status`: `missing` (step 1 cannot be sized: `reason` says why), `none` (not run for the
    current input), or the run's (pending, running, succeeded, failed), with `run`, `result`
    (succeeded) and `error` (failed). `plain` gives the result's sentences in English text."""
    try:
        key, _revision = capacity_input(evaluation)
    except ValueError as exc:
        return {"status": "missing", "reason": str(exc), "run": None, "result": None, "error": ""}
    run = CapacityRun.objects.filter(evaluation=evaluation, key=key).first()
    if run is None:
        return {"status": "none", "reason": "", "run": None, "result": None, "error": ""}
    succeeded = run.status == CapacityRun.Status.SUCCEEDED
    return {
        "status": run.status,
        "reason": "",
        "run": run,
        "result": text_from_data(run.result, plain=plain) if succeeded else None,
        "error": run.error if run.status == CapacityRun.Status.FAILED else "",
    }


def capacity_version(evaluation: Evaluation) -> str | None:
    """What the capacity panel shows, as a version for cached page fragments: the run's state
    and when it finished. None while a run is pending or running (its progress moves)."""
    try:
        key, _revision = capacity_input(evaluation)
    except ValueError:
        return "missing"  # the reason follows from the profile, which the fragment's key names
    run = (
        CapacityRun.objects.filter(evaluation=evaluation, key=key)
        .values("pk", "status", "finished_at")
        .first()
    )
    if run is None:
        return "none"
    if run["status"] in (CapacityRun.Status.PENDING, CapacityRun.Status.RUNNING):
        return None
    finished = run["finished_at"].timestamp() if run["finished_at"] else 0
    return f"{run['status']}:{run['pk']}:{finished}"


def capacity_panel(*, evaluation: Evaluation, back: str) -> dict[str, Any]:
    """What a page's capacity panel shows: the state, each sized stack by rank, the figure, and
    where the run button returns to (`back`: recommendations or decision)."""
    from evaluations.simulations.figure import capacity_figure

    state = capacity_state(evaluation=evaluation)
    result = state["result"] or {}
    stacks = result.get("stacks") or []
    return {
        **state,
        "back": back,
        "running": state["status"] in (CapacityRun.Status.PENDING, CapacityRun.Status.RUNNING),
        "stacks": stacks,
        "by_rank": {stack["rank"]: stack for stack in stacks},
        "figure": capacity_figure(stacks) if stacks else None,
        "tenants": (result.get("cluster") or {}).get("tenants") or [],
    }


def capacity_of_rows(
    panel: dict[str, Any],
    rows: list[str],
    *,
    rank: int | None = None,
    pools: Any = None,
) -> dict[str, Any] | None:
    """The sized stack of these rows: the one of the same rank (a recommendation), else the one
    whose pools have the same names (a decision adopted from one), else the only one with these
    rows. Two stacks may share their rows and differ in their pools (one MIG pool, or a MIG pool
    beside a whole-GPU one): each must show its own sizing, never the first's."""
    wanted = set(rows or ())
    same = [s for s in panel.get("stacks") or [] if set(s["rows"]) == wanted]
    if rank is not None:
        found = next((s for s in same if s.get("rank") == rank), None)
        if found is not None:
            return found
    names = set(pools or ())
    if names:
        found = next((s for s in same if {p["name"] for p in s["pools"]} == names), None)
        if found is not None:
            return found
    return same[0] if len(same) == 1 else None


def capacity_by_row(*, evaluation: Evaluation, rows: list[Any]) -> dict[str, dict[str, Any]]:
    """Per catalog row (PlacementRow, by ref), the figure of the unit it presents from the last
    run for step 1 as it is now: {"unit", "alloc_at_100", "frag_at_100", ...}. Rows that present
    no unit of capacity, and every row before a run, have none."""
    from evaluations.capacity.sizing import ENGINE_UNIT, UNIT_ORDER

    state = capacity_state(evaluation=evaluation)
    units = (state["result"] or {}).get("units") or {}
    figures = {}
    for row in rows:
        keys = {unit.key for unit in row.resource_units.all()}
        chosen = next((unit for unit in UNIT_ORDER if unit in keys), None)
        unit = ENGINE_UNIT.get(chosen, chosen) if chosen else None
        if unit in units:
            figures[row.ref] = {"unit": unit, **units[unit]}
    return figures
