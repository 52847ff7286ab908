"""Capacity simulations: request (coalesced per input, enqueued on commit), run (claimed,
idempotent, bounded), fail, recover. The numbers come from evaluations.capacity.outcome."""

from __future__ import annotations

import logging
import time

from django.db import transaction
from django.utils.translation import gettext as _

from catalog.engine.text import render as render_text
from ecomap.dispatch import RUN_CAPACITY, enqueue_on_commit, queue_check
from ecomap.jobs import JobRows, jobs_resend
from evaluations import selectors
from evaluations.capacity.outcome import capacity_outcome
from evaluations.errors import InvalidInput, NotAllowed
from evaluations.models import Evaluation
from evaluations.simulations.models import CapacityRun
from evaluations.simulations.selectors import capacity_input, text_to_data
from evaluations.teams.choices import Role

logger = logging.getLogger(__name__)
Status = CapacityRun.Status

# How many recommended stacks are sized: the recommendations page shows five.
STACKS = 5


JOBS = JobRows(CapacityRun)


# ---- requesting ---------------------------------------------------------------------------------


@transaction.atomic
def capacity_request(*, evaluation: Evaluation, actor) -> CapacityRun:
    """Ask for the evaluation's capacity simulation as step 1 and the catalog are now.

    Any member of the team may ask: the run changes nothing of the evaluation. The same input
    is run once; asking again returns that run, or runs a failed one again."""
    role = selectors.user_role_in(evaluation, actor)
    if not selectors.role_allows(role, Role.VIEWER):
        raise NotAllowed(_("Only members of the team can run the capacity simulation."))
    try:
        key, revision = capacity_input(evaluation)
    except ValueError as exc:
        message = render_text(exc.args[0] if exc.args else str(exc), _)  # the reader's language
        raise InvalidInput(message, errors={"profile": [message]}) from exc
    run = CapacityRun.objects.select_for_update().filter(evaluation=evaluation, key=key).first()
    if run is not None and run.status != Status.FAILED:
        return run
    queue_check()  # refused before writing: a run nobody can start would sit queued
    if run is None:
        run = CapacityRun.objects.create(
            evaluation=evaluation, key=key, catalog_revision=revision, requested_by=actor
        )
    else:
        JOBS.restart(run.pk, requested_by=actor)
        run.refresh_from_db()
    enqueue_on_commit(RUN_CAPACITY, run.pk)
    return run


# ---- running ------------------------------------------------------------------------------------


def _set_progress(run_id: int, percent: int) -> None:
    JOBS.progress(run_id, percent)


def capacity_run(*, run_id: int) -> CapacityRun | None:
    """Run a requested simulation. Safe to run twice or after a worker died: the claim is a
    conditional update, and a finished run is never run again. A run whose input changed since
    it was asked for fails with that reason instead of storing numbers for another input."""
    if not JOBS.claim(run_id):
        return None
    run = CapacityRun.objects.select_related("evaluation").get(id=run_id)
    started = time.perf_counter()
    evaluation = run.evaluation
    try:
        key, _revision = capacity_input(evaluation)
    except ValueError as exc:
        capacity_fail(run_id=run_id, error=str(exc))
        return run
    if key != run.key:
        capacity_fail(
            run_id=run_id,
            error=_("Step 1 or the catalog changed before the run started: run it again."),
        )
        return run
    recommendations = selectors.recommendations_for(evaluation=evaluation, limit=STACKS)
    _set_progress(run_id, 10)
    try:
        outcome = capacity_outcome(
            evaluation.engine_profile(),
            [item.to_dict() for item in recommendations],
            progress=lambda percent: _set_progress(run_id, percent),
        )
    except MemoryError:
        # Never let it escape: Celery treats a MemoryError as fatal to the worker process.
        capacity_fail(run_id=run_id, error=_("The simulation ran out of memory."))
        return run
    except ValueError as exc:  # the engine's CapacityError names the node or task at fault
        capacity_fail(run_id=run_id, error=str(exc))
        return run
    JOBS.succeed(
        run_id, result=text_to_data(outcome), seconds=round(time.perf_counter() - started, 3)
    )
    run.refresh_from_db()
    logger.info("capacity run done", extra={"run": run_id, "seconds": run.seconds})
    return run


def capacity_requeue(*, run_id: int) -> None:
    """Put a run cut off by an outage back in the queue (ecomap.jobs.JobRows.requeue)."""
    JOBS.requeue(run_id)


def capacity_fail(*, run_id: int, error: str) -> None:
    JOBS.fail(run_id, error)


MAX_ATTEMPTS = 3


def capacity_recover(*, now, pending_grace, running_limit) -> dict[str, int]:
    """Runs a worker never got are published again; runs whose worker stopped beating are run
    again (the claim makes that safe) or, after MAX_ATTEMPTS, failed with the reason."""
    return jobs_resend(
        CapacityRun.objects.all(),
        task_name=RUN_CAPACITY,
        now=now,
        pending_grace=pending_grace,
        running_limit=running_limit,
        max_attempts=MAX_ATTEMPTS,
        fail=lambda pk, attempts: capacity_fail(
            run_id=pk, error=f"stopped {attempts} times without finishing"
        ),
    )
