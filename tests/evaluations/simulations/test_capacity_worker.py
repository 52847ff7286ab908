"""A capacity simulation run by a real Celery worker on the real Redis, with its progress,
including a worker killed mid-run."""

from __future__ import annotations

import pytest
from django.core.management import call_command
from django.utils import timezone

from evaluations.notifications.models import Notification, WebhookDelivery
from evaluations.recovery import HEARTBEAT_SILENCE, jobs_recover
from evaluations.simulations.models import CapacityRun
from evaluations.simulations.services import capacity_request
from tests.evaluations.factories import make_cast, make_evaluation
from tests.evaluations.simulations.test_capacity_pages import BOARD_PROFILE
from tests.worker import Worker, broker_messages_lost, wait_for, worker_killed_when

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


@pytest.mark.parametrize("message_lost", [False, True], ids=["redelivered", "swept"])
def test_a_run_whose_worker_is_killed_mid_simulation_finishes_once(
    celery_broker, tmp_path, message_lost
):
    """kill -9 of the worker (and its pool child) during the run: the message comes back to the
    next worker, or, lost with the broker's data, the recovery sweep sends it again. Either way
    one run succeeds, at its second attempt, with the figures of an uninterrupted run."""
    call_command("load_catalog", verbosity=0)
    cast = make_cast()
    evaluation = make_evaluation(cast, profile=BOARD_PROFILE)
    announced = (Notification.objects.count(), WebhookDelivery.objects.count())
    run = capacity_request(evaluation=evaluation, actor=cast.dave)

    running = CapacityRun.objects.filter(pk=run.pk, status="running")
    worker_killed_when(celery_broker, tmp_path / "first.log", running.exists)
    assert running.exists(), "the run ended before the kill"
    if message_lost:
        broker_messages_lost(celery_broker)
        running.update(heartbeat_at=timezone.now() - 2 * HEARTBEAT_SILENCE)
    second = Worker(celery_broker, tmp_path / "second.log").start()
    try:
        if message_lost:
            assert jobs_recover()["capacity"]["rerun"] == 1
        done = wait_for(
            lambda: CapacityRun.objects.filter(pk=run.pk, status="succeeded").first(),
            timeout=120,
            interval=0.2,
            what=lambda: f"the run again\n{second.log()}",
        )
    finally:
        second.stop()

    assert CapacityRun.objects.count() == 1
    assert (done.progress, done.attempts) == (100, 2)
    stacks = done.result["stacks"]
    assert stacks and all(sum(p["gpus"] for p in s["pools"]) == 192 for s in stacks)
    assert (Notification.objects.count(), WebhookDelivery.objects.count()) == announced
