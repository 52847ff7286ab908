"""The recovery sweep: a job whose message was lost or whose worker died is sent again (or
failed with its reason), and an import redelivered after the catalog moved is never applied."""

from __future__ import annotations

import json
from datetime import timedelta
from io import StringIO

import pytest
from django.core.management import call_command
from django.utils import timezone

from catalog.imports.models import ImportJob
from catalog.imports.services import import_run, import_submit
from catalog.matrix.models import MatrixSnapshot
from catalog.matrix.selectors import matrix_state
from catalog.models import Project
from evaluations.recovery import jobs_recover
from tests.factories import apply, bundle, placement, project

pytestmark = pytest.mark.django_db

LONG_AGO = timedelta(minutes=30)


def test_an_orphaned_pending_snapshot_is_published_again_and_the_matrix_refreshes(
    django_capture_on_commit_callbacks,
):
    apply(bundle(project("p", placement("x"))))
    orphan = MatrixSnapshot.objects.create()  # created, but its message never reached a worker
    MatrixSnapshot.objects.filter(id=orphan.id).update(created_at=timezone.now() - LONG_AGO)
    assert matrix_state().stale

    with django_capture_on_commit_callbacks(execute=True):
        done = jobs_recover()

    assert done["matrix"]["republished"] == 1
    state = matrix_state()
    assert not state.stale and state.computing is None


def test_a_fresh_pending_job_is_left_to_its_worker(django_capture_on_commit_callbacks):
    MatrixSnapshot.objects.create()

    with django_capture_on_commit_callbacks() as sent:
        done = jobs_recover()

    assert done["matrix"] == {"republished": 0, "rerun": 0, "failed": 0, "stale_refreshed": 0}
    assert sent == []


def test_a_job_running_past_its_time_limit_is_sent_again_then_failed(
    django_capture_on_commit_callbacks,
):
    stuck = MatrixSnapshot.objects.create(status="running", attempts=1)
    MatrixSnapshot.objects.filter(id=stuck.id).update(started_at=timezone.now() - LONG_AGO)

    with django_capture_on_commit_callbacks() as sent:
        first = jobs_recover()
    MatrixSnapshot.objects.filter(id=stuck.id).update(attempts=3)
    second = jobs_recover()

    assert first["matrix"]["rerun"] == 1 and len(sent) == 1
    assert second["matrix"]["failed"] == 1
    stuck.refresh_from_db()
    assert stuck.status == "failed" and "stopped 3 times" in stuck.error


def _queued_import(alice) -> ImportJob:
    document = bundle(project("vendor", placement("plugin")))
    return import_submit(text=json.dumps(document), actor=alice, source="t", inline=False)


def test_an_import_redelivered_after_the_catalog_moved_is_refused_not_applied(alice):
    job = _queued_import(alice)
    ImportJob.objects.filter(id=job.id).update(status="running", started_at=timezone.now())
    apply(bundle(project("someone-else")))  # the catalog moves on while the worker is dead

    import_run(job_id=job.id)

    job.refresh_from_db()
    assert job.status == "failed"
    assert "The catalog changed since this import was validated" in job.errors[0]["message"]
    assert not Project.objects.filter(slug="vendor").exists()


def test_an_import_redelivered_on_an_unchanged_catalog_is_applied_once(alice):
    job = _queued_import(alice)
    ImportJob.objects.filter(id=job.id).update(status="running", started_at=timezone.now())

    import_run(job_id=job.id)
    import_run(job_id=job.id)  # and a duplicate message changes nothing

    job.refresh_from_db()
    assert job.status == "succeeded"
    assert Project.objects.filter(slug="vendor").count() == 1


def test_the_command_says_what_it_did():
    orphan = MatrixSnapshot.objects.create()
    MatrixSnapshot.objects.filter(id=orphan.id).update(created_at=timezone.now() - LONG_AGO)
    out = StringIO()

    call_command("recover_jobs", stdout=out)

    text = out.getvalue()
    assert "matrix: republished 1, rerun 0, failed 0" in text
    assert "imports: republished 0, rerun 0" in text
    assert "1 job(s) acted on" in text


def test_a_long_job_that_keeps_beating_is_left_alone(django_capture_on_commit_callbacks):
    busy = MatrixSnapshot.objects.create(status="running", attempts=1)
    MatrixSnapshot.objects.filter(id=busy.id).update(
        started_at=timezone.now() - LONG_AGO, heartbeat_at=timezone.now()
    )

    with django_capture_on_commit_callbacks() as sent:
        done = jobs_recover()

    assert done["matrix"]["rerun"] == 0 and sent == []


def test_a_worker_that_stopped_beating_a_minute_ago_is_noticed(django_capture_on_commit_callbacks):
    silent = MatrixSnapshot.objects.create(status="running", attempts=1)
    MatrixSnapshot.objects.filter(id=silent.id).update(
        started_at=timezone.now() - timedelta(seconds=70),
        heartbeat_at=timezone.now() - timedelta(seconds=65),
    )

    with django_capture_on_commit_callbacks() as sent:
        done = jobs_recover()

    assert done["matrix"]["rerun"] == 1 and len(sent) == 1
