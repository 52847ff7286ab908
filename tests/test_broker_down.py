"""With the broker down, requests that need a worker answer 503 within 3 s and write nothing;
a publish that fails after commit never turns a catalog write into an error (the sweep resends)."""

from __future__ import annotations

import json
import socket
import time

import pytest
from django.urls import reverse
from rest_framework.test import APIClient

from catalog.imports.models import ImportJob
from catalog.matrix.models import MatrixSnapshot
from ecomap.celery import app
from evaluations import services
from evaluations.reports.models import Report
from evaluations.teams.choices import Role
from evaluations.teams.services import membership_set, team_create
from tests.factories import apply, bundle, placement, project, synthetic_bundle

pytestmark = pytest.mark.django_db


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]  # nothing listens once the socket is closed


@pytest.fixture
def broker_down(settings):
    previous = dict(app.conf)
    app.conf.update(broker_url=f"redis://127.0.0.1:{_closed_port()}/0", task_always_eager=False)
    app._pool = None
    app.amqp._producer_pool = None
    settings.CELERY_TASK_ALWAYS_EAGER = False
    settings.IMPORT_INLINE_MAX_ITEMS = 1  # so that a two-project import needs a worker
    yield
    app.conf.update(
        broker_url=previous["broker_url"], task_always_eager=previous["task_always_eager"]
    )
    app._pool = None
    app.amqp._producer_pool = None


def test_an_import_that_needs_a_worker_is_a_quick_503_and_no_job(broker_down, alice):
    client = APIClient()
    client.force_authenticate(alice)

    started = time.perf_counter()
    response = client.generic(
        "POST", "/api/v1/imports/", json.dumps(synthetic_bundle(2)), content_type="application/json"
    )

    assert time.perf_counter() - started < 3
    assert response.status_code == 503
    assert "nothing was saved" in response.json()["detail"]
    assert not ImportJob.objects.exists()


def test_a_report_request_is_a_quick_503_page_and_no_report(broker_down, client, bob):
    team = team_create(name="T", slug="t", admin=bob)
    membership_set(team=team, user=bob, role=Role.ADMIN)
    evaluation = services.evaluation_create(actor=bob, team=team, title="E")
    client.force_login(bob)

    started = time.perf_counter()
    response = client.post(reverse("reports:request", args=[evaluation.pk]))

    assert time.perf_counter() - started < 3
    assert response.status_code == 503
    assert "The job queue is unreachable" in response.content.decode()
    assert not Report.objects.exists()


def test_a_catalog_write_succeeds_and_its_matrix_job_waits_for_the_sweep(
    broker_down, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        result = apply(bundle(project("p", placement("x"))))

    assert result.changed
    assert MatrixSnapshot.objects.filter(status="pending").count() == 1  # recover_jobs resends it
