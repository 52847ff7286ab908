"""A capacity simulation run by a real Celery worker on the real Redis, with its progress."""

from __future__ import annotations

import pytest
from django.core.management import call_command

from evaluations.simulations.models import CapacityRun
from evaluations.simulations.services import capacity_request
from tests.evaluations.factories import make_cast, make_evaluation
from tests.evaluations.simulations.test_capacity_pages import BOARD_PROFILE
from tests.worker import Worker, wait_for

pytestmark = [pytest.mark.celery_worker, pytest.mark.django_db(transaction=True)]


def test_a_requested_run_is_done_by_the_worker_with_its_figures(celery_broker, tmp_path):
    call_command("load_catalog", verbosity=0)
    cast = make_cast()
    evaluation = make_evaluation(cast, profile=BOARD_PROFILE)
    worker = Worker(celery_broker, tmp_path / "worker.log").start()
    try:
        run = capacity_request(evaluation=evaluation, actor=cast.dave)
        done = wait_for(
            lambda: CapacityRun.objects.filter(
                pk=run.pk, status__in=["succeeded", "failed"]
            ).first(),
            timeout=120,
            interval=0.5,
            what=lambda: f"the capacity run\n{worker.log()}",
        )
    finally:
        worker.stop()

    assert done.status == "succeeded", done.error
    assert (done.progress, done.attempts) == (100, 1)
    stacks = done.result["stacks"]
    assert stacks and all(sum(p["gpus"] for p in s["pools"]) == 192 for s in stacks)
    assert "evaluations.run_capacity" in (tmp_path / "worker.log").read_text(errors="replace")
