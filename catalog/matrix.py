"""Matrix snapshots: request (coalesced), compute (idempotent), read, and cells for pages and API.

The engine (catalog.engine.compatibility) does the work; this module adapts the catalog into it
and stores the result compactly with the rows it was computed from.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from django.db import IntegrityError, transaction
from django.db.models import F
from django.utils import timezone

from catalog.engine.compatibility import MatrixResult, compute_matrix
from catalog.engine.oracle import VERDICTS, PairResult, pair_verdicts
from catalog.engine.rows import Row
from catalog.models import MatrixSnapshot
from catalog.selectors import catalog_revision, engine_rows

logger = logging.getLogger(__name__)
Status = MatrixSnapshot.Status


# Rows as stored in a snapshot: enough to rebuild engine Rows and explain any pair later.
def row_to_dict(row: Row) -> dict[str, Any]:
    return {
        "id": row.id,
        "project": row.project,
        "key": row.key,
        "layer": row.layer,
        "name": row.name,
        "resource_units": sorted(row.resource_units),
        "enforcement_points": sorted(row.enforcement_points),
        "provides": sorted(row.provides),
        "requires": sorted(row.requires),
        "accepts": sorted(row.accepts),
        "exclusive": sorted(row.exclusive),
        "signals": sorted(row.signals),
        "isolation": dict(row.isolation),
    }


def row_from_dict(data: dict[str, Any]) -> Row:
    return Row(**data)


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
    from catalog.tasks import compute_matrix_snapshot

    transaction.on_commit(lambda: compute_matrix_snapshot.delay(snapshot.id))
    return snapshot


def _set_progress(snapshot_id: int, percent: int) -> None:
    MatrixSnapshot.objects.filter(id=snapshot_id, status=Status.RUNNING).update(progress=percent)


def matrix_snapshot_compute(*, snapshot_id: int) -> MatrixSnapshot | None:
    """Compute a requested snapshot. Safe to run twice or after a crash mid-way: the claim is a
    conditional update, and a finished snapshot for the same revision is never duplicated."""
    claimed = MatrixSnapshot.objects.filter(
        id=snapshot_id, status__in=[Status.PENDING, Status.RUNNING]
    ).update(
        status=Status.RUNNING, started_at=timezone.now(), progress=0, attempts=F("attempts") + 1
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


# ---- reading -----------------------------------------------------------------------------------


@dataclass
class MatrixState:
    """What the UI says about the matrix: the latest snapshot, and whether it is current."""

    snapshot: MatrixSnapshot | None
    current_revision: int
    computing: MatrixSnapshot | None

    @property
    def stale(self) -> bool:
        return self.snapshot is None or self.snapshot.catalog_revision != self.current_revision


def matrix_state(*, scope: str = MatrixSnapshot.CATALOG_SCOPE) -> MatrixState:
    latest = (
        MatrixSnapshot.objects.filter(scope=scope, status=Status.SUCCEEDED)
        .order_by("-catalog_revision", "-id")
        .first()
    )
    computing = (
        MatrixSnapshot.objects.filter(scope=scope, status__in=[Status.PENDING, Status.RUNNING])
        .defer("matrix", "rows")
        .order_by("-id")
        .first()
    )
    return MatrixState(snapshot=latest, current_revision=catalog_revision(), computing=computing)


def snapshot_result(snapshot: MatrixSnapshot) -> MatrixResult:
    rows = [row_from_dict(data) for data in snapshot.rows]
    return MatrixResult.from_bytes(bytes(snapshot.matrix), rows=rows)


def live_result(*, projects: Iterable[str] | None = None) -> MatrixResult:
    """The matrix computed now from the live catalog (the shell command and evaluations)."""
    rows = engine_rows()
    if projects:
        wanted = set(projects)
        rows = [row for row in rows if row.project in wanted]
    return compute_matrix(rows)


@dataclass(frozen=True)
class CellFilter:
    layers: tuple[str, ...] = ()
    projects: tuple[str, ...] = ()
    verdicts: tuple[str, ...] = ()


def selected_indices(result: MatrixResult, selection: CellFilter) -> list[int]:
    """Row indices kept by the layer and project filters, grouped by layer (platform first)."""
    order = {"platform": 0, "control_plane": 1, "data_plane": 2}
    rows = result.rows or ()
    keep = [
        i
        for i, row in enumerate(rows)
        if (not selection.layers or row.layer in selection.layers)
        and (not selection.projects or row.project in selection.projects)
    ]
    return sorted(keep, key=lambda i: (order.get(rows[i].layer, 9), rows[i].id))


def cells(
    result: MatrixResult, selection: CellFilter = CellFilter(), *, explain: bool = True
) -> list[dict[str, Any]]:
    """Pairs i < j of the selected rows as the shell/API contract's cell dicts."""
    indices = selected_indices(result, selection)
    out = []
    for position, i in enumerate(indices):
        for j in indices[position + 1 :]:
            verdict = result.verdict_of(i, j)
            if selection.verdicts and verdict not in selection.verdicts:
                continue
            a, b = result.rows[i], result.rows[j]
            cell: dict[str, Any] = {
                "a": {"project": a.project, "row": a.key},
                "b": {"project": b.project, "row": b.key},
                "verdict": verdict,
                "holds": list(result.holds_of(i, j)),
                "same_project": a.project == b.project,
            }
            if explain:
                detail = pair_verdicts(a, b)
                cell["reasons"] = list(detail.reasons)
                cell["links"] = [link.to_dict() for link in detail.links]
            out.append(cell)
    return out


def pair_detail(result: MatrixResult, a: str, b: str) -> PairResult:
    return result.explain(a, b)


def verdict_code(verdict: str) -> int:
    return VERDICTS.index(verdict)


def rows_by_id(rows: Sequence[Row]) -> dict[str, Row]:
    return {row.id: row for row in rows}


def localized_reasons(
    detail: PairResult, a: Row, b: Row, layer_names: dict[str, str] | None = None
) -> list[tuple[str, str]]:
    """(verdict, reason) pairs in the active language.

    The engine words its reasons in English (it has no Django, hence no gettext); in English they
    are shown as they are, in other languages they are rebuilt here from the pair's structure.
    """
    from django.utils import translation
    from django.utils.translation import gettext as _

    if not (translation.get_language() or "en").lower().startswith("zh"):
        return list(zip(detail.holds, detail.reasons, strict=True))
    if layer_names is None:
        from catalog.models import Layer

        layer_names = {layer.key: layer.name for layer in Layer.objects.all()}
    out = []
    for verdict in detail.holds:
        if verdict == "conflicts":
            text = _(
                "both hold the exclusive token %(tokens)s: they cannot run on the same node pool"
            ) % {"tokens": ", ".join(detail.shared_exclusive)}
        elif verdict == "composes":
            text = "; ".join(
                _("%(provider)s provides %(interface)s, which %(consumer)s %(relation)s")
                % {
                    "provider": link.provider,
                    "interface": link.interface,
                    "consumer": link.consumer,
                    "relation": _(link.relation) + f" ({link.pattern})",
                }
                for link in detail.links
            )
        elif verdict == "competes":
            text = _(
                "same layer (%(layer)s) and overlapping resource units: %(units)s — alternatives; "
                "compare isolation, overhead, observability, reconfiguration cost"
            ) % {
                "layer": layer_names.get(a.layer, a.layer),
                "units": ", ".join(detail.shared_units),
            }
        elif verdict == "incomparable":
            text = _(
                "same layer (%(layer)s), disjoint units (%(a)s vs %(b)s): compare them only after "
                "fixing a common unit"
            ) % {
                "layer": layer_names.get(a.layer, a.layer),
                "a": ", ".join(sorted(a.resource_units)),
                "b": ", ".join(sorted(b.resource_units)),
            }
        else:
            text = _(
                "different layers (%(a)s, %(b)s) and no contract between them: they can coexist; "
                "comparing them head-on is a category error"
            ) % {"a": layer_names.get(a.layer, a.layer), "b": layer_names.get(b.layer, b.layer)}
        out.append((verdict, text))
    return out
