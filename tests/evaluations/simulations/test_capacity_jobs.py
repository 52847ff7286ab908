"""The capacity job's life: a failed run shows its reason and runs again when asked, a run that
runs out of memory or whose input changed fails with the reason instead of taking the worker
down, and the recovery sweep resends a run whose worker died."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.core.management import call_command
from django.urls import reverse
from django.utils import timezone

from evaluations.simulations import services
from evaluations.simulations.models import CapacityRun
from evaluations.simulations.services import capacity_recover, capacity_request, capacity_run
from evaluations.steps.services import evaluation_step_save
from tests.evaluations.factories import make_cast, make_evaluation
from tests.evaluations.simulations.test_capacity_pages import BOARD_PROFILE


@pytest.fixture
def cast(db):
    call_command("load_catalog", verbosity=0)
    return make_cast()


@pytest.fixture
def queued(cast):
    """A run asked for and not yet run (its message is only sent on commit)."""
    evaluation = make_evaluation(cast, profile=BOARD_PROFILE)
    return capacity_request(evaluation=evaluation, actor=cast.bob)


def test_a_run_that_runs_out_of_memory_fails_with_the_reason(queued, monkeypatch):
    def exhausted(*args, **kwargs):
        raise MemoryError

    monkeypatch.setattr(services, "capacity_outcome", exhausted)

    capacity_run(run_id=queued.pk)  # returns: the MemoryError never reaches Celery

    queued.refresh_from_db()
    assert (queued.status, queued.error) == ("failed", "The simulation ran out of memory.")


def test_a_failed_run_shows_its_reason_and_runs_again_when_asked(
    client, cast, queued, monkeypatch, django_capture_on_commit_callbacks
):
    def refused(*args, **kwargs):
        raise ValueError("node 'training-all-0': 99 GPUs; at most 64 per node")

    monkeypatch.setattr(services, "capacity_outcome", refused)
    capacity_run(run_id=queued.pk)
    client.force_login(cast.bob)
    page = client.get(reverse("evaluations:recommendations", args=[queued.evaluation_id]))

    content = page.content.decode()
    assert 'data-capacity-status="failed"' in content
    assert "99 GPUs; at most 64 per node" in content
    assert "Run it again" in content

    monkeypatch.undo()
    with django_capture_on_commit_callbacks(execute=True):
        client.post(reverse("capacity:request", args=[queued.evaluation_id]))
    queued.refresh_from_db()
    assert queued.status == "succeeded"
    assert CapacityRun.objects.filter(evaluation_id=queued.evaluation_id).count() == 1


def test_a_run_whose_profile_changed_before_it_started_fails_instead_of_lying(cast, queued):
    evaluation = queued.evaluation
    evaluation_step_save(
        evaluation=evaluation,
        actor=cast.bob,
        step="profile",
        data={**BOARD_PROFILE, "node_count": 12},
    )

    capacity_run(run_id=queued.pk)

    queued.refresh_from_db()
    assert queued.status == "failed"
    assert "changed before the run started" in queued.error
    assert queued.result is None


def test_a_finished_run_is_never_run_again(queued):
    capacity_run(run_id=queued.pk)
    queued.refresh_from_db()
    finished = queued.finished_at

    assert capacity_run(run_id=queued.pk) is None
    queued.refresh_from_db()
    assert (queued.status, queued.finished_at, queued.attempts) == ("succeeded", finished, 1)


def test_the_sweep_resends_a_silent_run_and_fails_it_after_three_attempts(queued, monkeypatch):
    sent = []
    monkeypatch.setattr("ecomap.jobs.enqueue_on_commit", lambda name, pk: sent.append((name, pk)))
    long_ago = timezone.now() - timedelta(minutes=10)
    CapacityRun.objects.filter(pk=queued.pk).update(
        status="running", started_at=long_ago, heartbeat_at=long_ago, attempts=1
    )
    window = {"pending_grace": timedelta(minutes=2), "running_limit": timedelta(seconds=60)}

    first = capacity_recover(now=timezone.now(), **window)
    CapacityRun.objects.filter(pk=queued.pk).update(attempts=3)
    last = capacity_recover(now=timezone.now(), **window)

    assert first == {"republished": 0, "rerun": 1, "failed": 0}
    assert sent == [("evaluations.run_capacity", queued.pk)]
    assert last == {"republished": 0, "rerun": 0, "failed": 1}
    queued.refresh_from_db()
    assert queued.status == "failed"
    assert queued.error == "stopped 3 times without finishing"
