"""Matrix snapshots: request (coalesced), compute (idempotent), fail.

The engine (catalog.engine.compatibility) does the work; this module adapts the catalog into it
and stores the result compactly with the rows it was computed from.
"""

from __future__ import annotations

import logging
import time

from django.db import IntegrityError, transaction
from django.db.models import F
from django.utils import timezone

from catalog.engine.compatibility import compute_matrix
from catalog.matrix.models import MatrixSnapshot
from catalog.matrix.storage import row_to_dict
from catalog.selectors import catalog_revision, engine_rows
from ecomap.dispatch import COMPUTE_MATRIX_SNAPSHOT, enqueue_on_commit
from ecomap.jobs import jobs_resend

logger = logging.getLogger(__name__)
Status = MatrixSnapshot.Status


# ---- requesting and computing ------------------------------------------------------------------


def matrix_refresh_request(*, scope: str = MatrixSnapshot.CATALOG_SCOPE) -> MatrixSnapshot | None:
    """Ask for a fresh snapshot. Coalesced: while one is waiting, further requests add nothing,
    because the waiting job computes whatever revision is current when it starts."""
    if MatrixSnapshot.objects.filter(scope=scope, status=Status.PENDING).exists():
        return None
    try:
        with transaction.atomic():
            snapshot = MatrixSnapshot.objects.create(scope=scope)
    except IntegrityError:  # another request created the pending one first
        return None
    enqueue_on_commit(COMPUTE_MATRIX_SNAPSHOT, snapshot.id)
    return snapshot


def _set_progress(snapshot_id: int, percent: int) -> None:
    MatrixSnapshot.objects.filter(id=snapshot_id, status=Status.RUNNING).update(
        progress=percent, heartbeat_at=timezone.now()
    )


def matrix_snapshot_compute(*, snapshot_id: int) -> MatrixSnapshot | None:
    """Compute a requested snapshot. Safe to run twice or after a crash mid-way: the claim is a
    conditional update, and a finished snapshot for the same revision is never duplicated."""
    claimed = MatrixSnapshot.objects.filter(
        id=snapshot_id, status__in=[Status.PENDING, Status.RUNNING]
    ).update(
        status=Status.RUNNING,
        started_at=timezone.now(),
        heartbeat_at=timezone.now(),
        progress=0,
        attempts=F("attempts") + 1,
    )
    if not claimed:
        return None  # gone, or finished by an earlier delivery
    snapshot = MatrixSnapshot.objects.get(id=snapshot_id)
    started = time.perf_counter()
    revision = catalog_revision()
    rows = engine_rows()
    loaded = time.perf_counter()
    _set_progress(snapshot_id, 20)
    existing = MatrixSnapshot.objects.filter(
        scope=snapshot.scope, catalog_revision=revision, status=Status.SUCCEEDED
    ).first()
    if existing is not None:
        snapshot.delete()  # this revision is already computed: the request is satisfied
        return existing
    result = compute_matrix(rows)
    computed = time.perf_counter()
    _set_progress(snapshot_id, 80)
    data = result.to_bytes()
    try:
        with transaction.atomic():
            updated = MatrixSnapshot.objects.filter(id=snapshot_id, status=Status.RUNNING).update(
                status=Status.SUCCEEDED,
                catalog_revision=revision,
                progress=100,
                finished_at=timezone.now(),
                row_count=len(rows),
                counts=result.counts(),
                matrix=data,
                rows=[row_to_dict(row) for row in rows],
                timings={
                    "load_s": round(loaded - started, 4),
                    "compute_s": round(computed - loaded, 4),
                    "store_s": round(time.perf_counter() - computed, 4),
                    "bytes": len(data),
                },
            )
    except IntegrityError:  # a concurrent run finished the same revision first
        snapshot.delete()
        return MatrixSnapshot.objects.filter(
            scope=snapshot.scope, catalog_revision=revision, status=Status.SUCCEEDED
        ).first()
    if not updated:
        return None
    if catalog_revision() != revision:
        matrix_refresh_request(scope=snapshot.scope)  # edits landed while we computed
    return MatrixSnapshot.objects.get(id=snapshot_id)


def matrix_snapshot_fail(*, snapshot_id: int, error: str) -> None:
    MatrixSnapshot.objects.filter(id=snapshot_id).update(
        status=Status.FAILED, error=error[:2000], finished_at=timezone.now()
    )


def matrix_refresh_if_missing(state) -> None:
    """No snapshot at all and none on its way (a fresh database, or snapshots dropped when the
    verdict rule changed): ask for one, so the next look finds it."""
    if state.snapshot is None and state.computing is None:
        matrix_refresh_request()


# A snapshot tried this often and still unfinished is failed, so the next catalog change can
# queue a fresh one instead of coalescing into it forever.
MAX_ATTEMPTS = 3


def matrix_recover(*, now, pending_grace, running_limit) -> dict[str, int]:
    """Snapshots a worker never got are published again; snapshots whose worker stopped beating
    are computed again (the job is idempotent) or, after MAX_ATTEMPTS, failed."""
    return jobs_resend(
        MatrixSnapshot.objects.all(),
        task_name=COMPUTE_MATRIX_SNAPSHOT,
        now=now,
        pending_grace=pending_grace,
        running_limit=running_limit,
        max_attempts=MAX_ATTEMPTS,
        fail=lambda pk, attempts: matrix_snapshot_fail(
            snapshot_id=pk, error=f"stopped {attempts} times without finishing"
        ),
    )
