"""Issue 28 H1 and M3: a matrix job that cannot harm the worker, a documented row cap with its
message, and a sweep that refreshes a stale matrix."""

from __future__ import annotations

import pytest
from celery.exceptions import SoftTimeLimitExceeded
from django.urls import reverse

import catalog.matrix.services as services
from catalog.matrix.models import MatrixSnapshot
from catalog.matrix.services import matrix_refresh_request, matrix_snapshot_compute
from catalog.matrix.tasks import compute_matrix_snapshot
from catalog.selectors import catalog_revision
from evaluations.recovery import jobs_recover
from tests.factories import apply, bundle, placement, project

pytestmark = pytest.mark.django_db


def _two_rows():
    apply(
        bundle(
            project("hami", placement("device-plugin")),
            project("volcano", placement("scheduler", "control_plane")),
        )
    )


@pytest.fixture
def no_publish(monkeypatch):
    """Requests create their rows; no message goes to a broker (the tests run the job)."""
    monkeypatch.setattr(services, "enqueue_on_commit", lambda *args, **kwargs: None)


def _pending() -> MatrixSnapshot:
    """The waiting refresh a catalog write asks for (asked here when the write's on-commit
    callback did not run inside the test's transaction)."""
    matrix_refresh_request()
    return MatrixSnapshot.objects.get(status="pending")


@pytest.mark.parametrize("error", [MemoryError(), SoftTimeLimitExceeded()])
def test_out_of_memory_or_time_fails_the_snapshot_and_the_task_returns(
    monkeypatch, no_publish, error
):
    _two_rows()
    snapshot = matrix_refresh_request()

    def explode(rows, **kwargs):
        raise error

    monkeypatch.setattr(services, "compute_matrix", explode)

    assert compute_matrix_snapshot(snapshot.id) is None  # returns: nothing reaches Celery

    failed = MatrixSnapshot.objects.get(id=snapshot.id)
    assert failed.status == "failed"
    assert ("out of memory" if isinstance(error, MemoryError) else "time limit") in failed.error
    assert failed.catalog_revision == catalog_revision()
    attempts = failed.attempts

    # The same message delivered again is a no-op: the failed snapshot is not claimed.
    monkeypatch.undo()
    assert compute_matrix_snapshot(snapshot.id) is None
    again = MatrixSnapshot.objects.get(id=snapshot.id)
    assert (again.status, again.attempts) == ("failed", attempts)


def test_a_catalog_over_the_row_cap_is_refused_without_computing(settings, monkeypatch, no_publish):
    settings.MATRIX_MAX_ROWS = 1
    _two_rows()
    snapshot = matrix_refresh_request()
    monkeypatch.setattr(services, "compute_matrix", lambda *a, **k: pytest.fail("computed"))

    assert matrix_snapshot_compute(snapshot_id=snapshot.id) is None

    refused = MatrixSnapshot.objects.get(id=snapshot.id)
    assert refused.status == "failed"
    assert refused.error == (
        "The catalog has 2 rows; the matrix is computed up to 1. Filter the catalog (fewer "
        "projects or rows) or raise MATRIX_MAX_ROWS."
    )
    assert refused.timings == {"refused": "rows", "rows": 2, "cap": 1}


def test_the_matrix_page_says_why_it_was_refused_in_both_languages(
    settings, bob_client, no_publish
):
    settings.MATRIX_MAX_ROWS = 1
    _two_rows()
    matrix_snapshot_compute(snapshot_id=matrix_refresh_request().id)

    english = bob_client.get(reverse("matrix:page")).content.decode()
    assert "The catalog has 2 rows; the matrix is computed up to 1." in english
    assert "raise MATRIX_MAX_ROWS" in english
    # The page does not ask for the refused revision again.
    assert not MatrixSnapshot.objects.filter(status="pending").exists()

    bob_client.cookies["django_language"] = "zh-hans"
    chinese = bob_client.get(reverse("matrix:page")).content.decode()
    assert "目录有 2 行；矩阵最多计算 1 行。" in chinese


def test_the_refusal_writes_large_counts_with_thousands_separators(
    settings, bob_client, no_publish
):
    settings.MATRIX_MAX_ROWS = 1
    _two_rows()
    snapshot = matrix_refresh_request()
    matrix_snapshot_compute(snapshot_id=snapshot.id)
    MatrixSnapshot.objects.filter(id=snapshot.id).update(
        timings={"refused": "rows", "rows": 100000, "cap": 20000}
    )

    english = bob_client.get(reverse("matrix:page")).content.decode()

    assert "The catalog has 100,000 rows; the matrix is computed up to 20,000." in english


def test_too_many_stored_pairs_are_refused_with_the_pair_cap(settings, no_publish):
    settings.MATRIX_MAX_PAIRS = 0
    # two rows on one layer: a pair that is not independent, so it would be stored
    apply(bundle(project("hami", placement("device-plugin")), project("nvidia", placement("dp"))))
    snapshot = matrix_refresh_request()

    matrix_snapshot_compute(snapshot_id=snapshot.id)

    refused = MatrixSnapshot.objects.get(id=snapshot.id)
    assert refused.status == "failed"
    assert "MATRIX_MAX_PAIRS=0" in refused.error
    assert refused.timings["refused"] == "pairs"


def test_the_sweep_refreshes_a_matrix_left_stale_by_failed_snapshots(no_publish):
    _two_rows()
    matrix_snapshot_compute(snapshot_id=matrix_refresh_request().id)
    apply(bundle(project("kueue", placement("controller", "control_plane"))))
    # The refresh for the new revision failed (say the database was down when it ran).
    MatrixSnapshot.objects.filter(id=_pending().id).update(status="failed", error="db down")

    assert jobs_recover()["matrix"]["stale_refreshed"] == 1

    pending = MatrixSnapshot.objects.get(status="pending")
    matrix_snapshot_compute(snapshot_id=pending.id)
    assert MatrixSnapshot.objects.get(id=pending.id).catalog_revision == catalog_revision()
    # Current now: the next sweep asks for nothing.
    assert jobs_recover()["matrix"]["stale_refreshed"] == 0


def test_the_sweep_does_not_ask_again_for_a_revision_refused_by_the_cap(settings, no_publish):
    _two_rows()
    matrix_snapshot_compute(snapshot_id=matrix_refresh_request().id)
    settings.MATRIX_MAX_ROWS = 2
    apply(bundle(project("kueue", placement("controller", "control_plane"))))
    matrix_snapshot_compute(snapshot_id=_pending().id)

    assert jobs_recover()["matrix"]["stale_refreshed"] == 0
    assert not MatrixSnapshot.objects.filter(status="pending").exists()

    settings.MATRIX_MAX_ROWS = 10  # raised: the next catalog write is computed again
    apply(bundle(project("kai", placement("scheduler", "control_plane"))))
    matrix_snapshot_compute(snapshot_id=_pending().id)
    assert MatrixSnapshot.objects.filter(
        status="succeeded", catalog_revision=catalog_revision()
    ).exists()


def test_the_sweep_leaves_a_pending_refresh_alone(no_publish):
    _two_rows()
    matrix_snapshot_compute(snapshot_id=matrix_refresh_request().id)
    apply(bundle(project("kueue", placement("controller", "control_plane"))))
    _pending()

    assert jobs_recover()["matrix"]["stale_refreshed"] == 0
    assert MatrixSnapshot.objects.filter(status="pending").count() == 1
