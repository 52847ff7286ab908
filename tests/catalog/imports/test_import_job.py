"""A queued import is a job like reports, capacity runs and matrix snapshots (issue 44 item 2):
one lifecycle, `ecomap.jobs.JobRows`, claims it once, beats while it runs and finishes or fails
it with its reason, so the recovery sweep and the pages read every kind of job the same way."""

from __future__ import annotations

import json

import pytest
from django.apps import apps

from catalog.imports.models import ImportJob
from catalog.imports.services import import_run, import_submit
from catalog.models import Project
from ecomap.jobs import JobModel
from tests.factories import apply, bundle, placement, project

pytestmark = pytest.mark.django_db


def _queued(alice, *projects) -> ImportJob:
    document = bundle(*projects)
    return import_submit(text=json.dumps(document), actor=alice, source="t", inline=False)


def test_every_model_with_a_heartbeat_is_a_job_model():
    beating = [
        m for m in apps.get_models() if any(f.name == "heartbeat_at" for f in m._meta.fields)
    ]

    # A webhook delivery is retried on its own schedule (`next_attempt_at`, backoff) and ends
    # "delivered": a different life, swept by the same recovery.
    others = {"WebhookDelivery"}
    assert ImportJob in beating
    assert [m.__name__ for m in beating if not issubclass(m, JobModel)] == sorted(others)


def test_a_queued_import_is_claimed_once_and_finishes_at_100_percent(alice):
    job = _queued(alice, project("vendor", placement("plugin")))

    import_run(job_id=job.id)
    import_run(job_id=job.id)  # delivered twice: the finished row is not claimed again

    job.refresh_from_db()
    assert (job.status, job.attempts, job.progress, job.error) == ("succeeded", 1, 100, "")
    assert job.started_at <= job.heartbeat_at <= job.finished_at
    assert job.payload is None and job.done == job.total > 0
    assert Project.objects.filter(slug="vendor").count() == 1


def test_progress_beats_while_the_import_runs(alice, monkeypatch):
    from catalog.imports import services

    seen = []
    real = services.JOBS.progress

    def progress(pk, percent):
        real(pk, percent)
        seen.append(ImportJob.objects.values_list("status", "progress").get(pk=pk))

    monkeypatch.setattr(services.JOBS, "progress", progress)
    job = _queued(alice, *(project(f"vendor-{n}", placement("plugin")) for n in range(3)))

    import_run(job_id=job.id)

    assert seen and all(status == "running" and 0 <= pct < 100 for status, pct in seen)
    job.refresh_from_db()
    assert job.progress == 100


def test_a_refused_redelivery_says_why_in_one_line_and_in_its_errors(alice):
    job = _queued(alice, project("vendor", placement("plugin")))
    ImportJob.objects.filter(id=job.id).update(status="running", attempts=1)
    apply(bundle(project("someone-else")))  # the catalog moves on while the worker is dead

    import_run(job_id=job.id)

    job.refresh_from_db()
    assert job.status == "failed" and job.attempts == 2
    assert job.error.startswith("The catalog changed since this import was validated")
    assert job.errors == [{"path": "$", "message": job.error}]
    assert job.payload is None and job.finished_at is not None


def test_an_inline_import_refused_for_its_content_says_why_in_one_line(alice):
    from catalog.imports.services import ImportRejected

    with pytest.raises(ImportRejected) as refused:
        import_submit(text="{not json", actor=alice, source="t")

    job = refused.value.job
    job.refresh_from_db()
    assert job.status == "failed" and job.error == job.errors[0]["message"]
