"""`ecomap.jobs.JobRows`, the one lifecycle of every job row (issue 44 item 2): reports,
capacity runs, matrix snapshots and imports call it instead of writing their own status
updates. Checked here on the two job models that need no evaluation to exist."""

from __future__ import annotations

import pytest

from catalog.imports.models import ImportJob
from catalog.matrix.models import MatrixSnapshot
from ecomap.jobs import JobRows

pytestmark = pytest.mark.django_db


@pytest.fixture(params=["import", "matrix"])
def job(request):
    if request.param == "import":
        row = ImportJob.objects.create(format="bundle")
    else:
        row = MatrixSnapshot.objects.create()
    return JobRows(type(row)), row


def _state(row):
    row.refresh_from_db()
    return row.status, row.attempts, row.progress, row.error


def test_a_row_is_claimed_while_unfinished_counting_each_claim(job):
    rows, row = job

    assert rows.claim(row.pk) and rows.claim(row.pk)  # the second: its worker died
    assert _state(row) == ("running", 2, 5, "")
    assert rows.succeed(row.pk) == 1
    assert not rows.claim(row.pk)
    assert _state(row) == ("succeeded", 2, 100, "")


def test_a_row_claimed_too_often_is_given_up_with_the_reason(job):
    rows, row = job
    for _ in range(3):
        rows.claim(row.pk)

    assert not rows.claim(row.pk, max_attempts=3)
    assert rows.give_up(row.pk, 2) == 1
    assert _state(row) == ("failed", 3, 5, "stopped 2 times without finishing")
    assert row.finished_at is not None
    assert rows.give_up(row.pk, 2) == 0  # failed already


def test_only_a_failed_row_is_restarted_and_it_starts_afresh(job):
    rows, row = job
    rows.claim(row.pk)
    rows.restart(row.pk)
    assert _state(row)[0] == "running"  # running: not restarted under its worker

    rows.fail(row.pk, "boom")
    rows.restart(row.pk)

    assert _state(row) == ("pending", 0, 0, "")
    assert row.finished_at is None


def test_a_failed_row_is_never_succeeded_by_a_late_worker(job):
    rows, row = job
    rows.claim(row.pk)
    rows.fail(row.pk, "x" * 5000)

    assert rows.succeed(row.pk) == 0
    status, _attempts, _progress, error = _state(row)
    assert status == "failed" and len(error) == 2000
