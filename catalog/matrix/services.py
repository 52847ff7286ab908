"""Matrix snapshots: request (coalesced), compute (idempotent), fail.

The engine (catalog.engine.compatibility) does the work; this module adapts the catalog into it
and stores the result compactly with the rows it was computed from.
"""

from __future__ import annotations

import logging
import time

from django.conf import settings
from django.db import IntegrityError, transaction

from catalog.engine.compatibility import MatrixTooLarge, compute_matrix
from catalog.matrix.models import MatrixSnapshot
from catalog.matrix.selectors import matrix_refusal
from catalog.matrix.storage import row_to_dict
from catalog.models import PlacementRow
from catalog.selectors import catalog_revision, engine_rows
from ecomap.dispatch import COMPUTE_MATRIX_SNAPSHOT, enqueue_on_commit
from ecomap.jobs import JobRows, jobs_resend

logger = logging.getLogger(__name__)
Status = MatrixSnapshot.Status


# ---- limits -------------------------------------------------------------------------------------

# Defaults of the settings MATRIX_MAX_ROWS and MATRIX_MAX_PAIRS, from bench/matrix (docs/
# benchmarks.md, "Matrix at 100k rows"): 10,000 synthetic rows (31M stored pairs) take 27 s and
# 0.9 GB; a job that reaches 60M stored pairs stops at 1.45 GB even at 100,000 rows; 20,000 rows
# would scan 2e8 pairs in ~110 s (4x the 10k time, extrapolated), inside the 240 s time limit.
DEFAULT_MAX_ROWS = 20_000
# Pairs that are not `independent` are kept at 9 bytes each while the job runs.
DEFAULT_MAX_PAIRS = 60_000_000
# `timings["refused"]` of a failed snapshot that was refused, not broken: the same catalog
# revision would be refused again, so neither the sweep nor a page view asks for it again.
REFUSED_ROWS, REFUSED_PAIRS, REFUSED_MEMORY, REFUSED_TIME = "rows", "pairs", "memory", "time"
REFUSED_STOPPED = "stopped"  # its worker died MAX_ATTEMPTS times (killed by the kernel, say)


def matrix_max_rows() -> int:
    return int(getattr(settings, "MATRIX_MAX_ROWS", DEFAULT_MAX_ROWS))


def matrix_max_pairs() -> int:
    return int(getattr(settings, "MATRIX_MAX_PAIRS", DEFAULT_MAX_PAIRS))


def refusal_text(rows: int, cap: int) -> str:
    """The stored (English) reason; pages show it translated from the numbers in `timings`."""
    return (
        f"The catalog has {rows} rows; the matrix is computed up to {cap}. Filter the catalog "
        "(fewer projects or rows) or raise MATRIX_MAX_ROWS."
    )


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


JOBS = JobRows(MatrixSnapshot)


def _set_progress(snapshot_id: int, percent: int) -> None:
    JOBS.progress(snapshot_id, percent)


def matrix_snapshot_compute(*, snapshot_id: int) -> MatrixSnapshot | None:
    """Compute a requested snapshot. Safe to run twice or after a crash mid-way: the claim is a
    conditional update, and a finished snapshot for the same revision is never duplicated. A
    catalog over MATRIX_MAX_ROWS rows is refused (the snapshot fails with the reason) before any
    pair is computed; more than MATRIX_MAX_PAIRS stored pairs stop the engine the same way."""
    if not JOBS.claim(snapshot_id, progress=0, max_attempts=MAX_ATTEMPTS):
        # A message delivered again and again (its worker killed each time) stops here.
        JOBS.give_up(
            snapshot_id,
            MAX_ATTEMPTS,
            catalog_revision=catalog_revision(),
            timings={"refused": REFUSED_STOPPED},
        )
        return None  # gone, or finished by an earlier delivery
    snapshot = MatrixSnapshot.objects.get(id=snapshot_id)
    started = time.perf_counter()
    revision = catalog_revision()
    existing = MatrixSnapshot.objects.filter(
        scope=snapshot.scope, catalog_revision=revision, status=Status.SUCCEEDED
    ).first()
    if existing is not None:
        snapshot.delete()  # this revision is already computed: the request is satisfied
        return existing
    cap = matrix_max_rows()
    # Counted before the rows are loaded (issue 41 H1: 100,000 rows took ~700 MB to refuse).
    count = PlacementRow.objects.count()
    if count > cap:
        matrix_snapshot_fail(
            snapshot_id=snapshot_id,
            error=refusal_text(count, cap),
            revision=revision,
            refused=REFUSED_ROWS,
            detail={"rows": count, "cap": cap},
        )
        return None
    rows = engine_rows()
    loaded = time.perf_counter()
    _set_progress(snapshot_id, 20)
    beat = [time.monotonic()]

    def progress(fraction: float) -> None:
        if time.monotonic() - beat[0] >= 1.0:  # a heartbeat a second, not one per band
            beat[0] = time.monotonic()
            _set_progress(snapshot_id, 20 + int(60 * fraction))

    try:
        result = compute_matrix(rows, max_pairs=matrix_max_pairs(), progress=progress)
    except MatrixTooLarge as exc:
        matrix_snapshot_fail(
            snapshot_id=snapshot_id,
            error=f"{exc}; the matrix stores at most MATRIX_MAX_PAIRS={matrix_max_pairs()}",
            revision=revision,
            refused=REFUSED_PAIRS,
            detail={"rows": len(rows), "cap": cap},
        )
        return None
    computed = time.perf_counter()
    _set_progress(snapshot_id, 80)
    data = result.to_bytes()
    counts = result.counts()
    del result  # the stored bytes are what is kept; free the arrays before the rows are saved
    try:
        with transaction.atomic():
            updated = JOBS.succeed(
                snapshot_id,
                catalog_revision=revision,
                row_count=len(rows),
                counts=counts,
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


def matrix_snapshot_fail(
    *,
    snapshot_id: int,
    error: str,
    revision: int | None = None,
    refused: str = "",
    detail: dict | None = None,
) -> None:
    """Fail a snapshot with its reason. `refused` marks a failure the same catalog revision would
    meet again (too many rows or pairs, out of memory, out of time): nothing asks for that
    revision again by itself."""
    changes = {}
    if revision is not None:
        changes["catalog_revision"] = revision
    if refused:
        changes["timings"] = {"refused": refused, **(detail or {})}
    JOBS.fail(snapshot_id, error, **changes)


def matrix_refresh_if_missing(state) -> None:
    """No snapshot at all and none on its way (a fresh database, or snapshots dropped when the
    verdict rule changed): ask for one, so the next look finds it, unless this revision was
    refused (the page says why instead)."""
    if state.snapshot is None and state.computing is None and matrix_refusal() is None:
        matrix_refresh_request()


def matrix_refresh_if_stale(*, scope: str = MatrixSnapshot.CATALOG_SCOPE) -> bool:
    """Issue 28 M3: after failed snapshots the matrix stayed stale until the next catalog write.
    The sweep asks for a refresh when the latest good snapshot is of an older revision, nothing is
    pending or running, and the current revision was not refused."""
    if MatrixSnapshot.objects.filter(
        scope=scope, status__in=[Status.PENDING, Status.RUNNING]
    ).exists():
        return False
    latest = (
        MatrixSnapshot.objects.filter(scope=scope, status=Status.SUCCEEDED)
        .order_by("-catalog_revision", "-id")
        .values_list("catalog_revision", flat=True)
        .first()
    )
    # No good snapshot at all is the first reader's to ask for (matrix_refresh_if_missing): the
    # sweep refreshes only a matrix that exists and is behind the catalog.
    if latest is None or latest == catalog_revision() or matrix_refusal(scope=scope) is not None:
        return False
    return matrix_refresh_request(scope=scope) is not None


# A snapshot tried this often and still unfinished is failed, so the next catalog change can
# queue a fresh one instead of coalescing into it forever.
MAX_ATTEMPTS = 3


def matrix_recover(*, now, pending_grace, running_limit) -> dict[str, int]:
    """Snapshots a worker never got are published again; snapshots whose worker stopped beating
    are computed again (the job is idempotent) or, after MAX_ATTEMPTS, failed; a stale matrix
    with nothing on its way is refreshed."""
    done = jobs_resend(
        MatrixSnapshot.objects.all(),
        task_name=COMPUTE_MATRIX_SNAPSHOT,
        now=now,
        pending_grace=pending_grace,
        running_limit=running_limit,
        max_attempts=MAX_ATTEMPTS,
        fail=lambda pk, attempts: matrix_snapshot_fail(
            snapshot_id=pk,
            error=f"stopped {attempts} times without finishing",
            revision=catalog_revision(),
            refused=REFUSED_STOPPED,
        ),
    )
    return {**done, "stale_refreshed": int(matrix_refresh_if_stale())}
