"""Matrix reads: the latest snapshot and its state, live results, and cells for pages and API."""

from __future__ import annotations

import functools
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from catalog.engine.compatibility import MatrixResult, compute_matrix, stored_verdicts
from catalog.engine.oracle import VERDICTS, PairResult, pair_verdicts
from catalog.engine.rows import Row
from catalog.engine.text import render
from catalog.matrix.blocks import Selection, selected
from catalog.matrix.models import MatrixSnapshot
from catalog.matrix.storage import row_from_dict
from catalog.selectors import catalog_revision, engine_rows

Status = MatrixSnapshot.Status


@dataclass
class MatrixState:
    """What the UI says about the matrix: the latest snapshot, and whether it is current."""

    snapshot: MatrixSnapshot | None
    current_revision: int
    computing: MatrixSnapshot | None
    # The current revision's latest snapshot failed as refused (too many rows or pairs, out of
    # memory or time): the page says why instead of waiting for it.
    refusal: MatrixSnapshot | None = None

    @property
    def stale(self) -> bool:
        return self.snapshot is None or self.snapshot.catalog_revision != self.current_revision


def matrix_state(*, scope: str = MatrixSnapshot.CATALOG_SCOPE) -> MatrixState:
    latest = (
        MatrixSnapshot.objects.filter(scope=scope, status=Status.SUCCEEDED)
        .defer("matrix", "rows")  # read by snapshot_result only when not already in memory
        .order_by("-catalog_revision", "-id")
        .first()
    )
    computing = (
        MatrixSnapshot.objects.filter(scope=scope, status__in=[Status.PENDING, Status.RUNNING])
        .defer("matrix", "rows")
        .order_by("-id")
        .first()
    )
    revision = catalog_revision()
    return MatrixState(
        snapshot=latest,
        current_revision=revision,
        computing=computing,
        refusal=None if computing else matrix_refusal(scope=scope, revision=revision),
    )


def matrix_refusal(
    *, scope: str = MatrixSnapshot.CATALOG_SCOPE, revision: int | None = None
) -> MatrixSnapshot | None:
    """The latest failed snapshot, if it was refused for the current catalog revision."""
    failed = (
        MatrixSnapshot.objects.filter(scope=scope, status=Status.FAILED)
        .defer("matrix", "rows")
        .order_by("-id")
        .first()
    )
    if failed is None or not failed.timings.get("refused"):
        return None
    current = catalog_revision() if revision is None else revision
    return failed if failed.catalog_revision == current else None


def snapshot_result(snapshot: MatrixSnapshot) -> MatrixResult:
    """The snapshot's matrix with its rows. A snapshot never changes once stored, so each process
    keeps the last few it loaded: at 2,000 rows, reading and unpacking one takes ~0.3 s."""
    return _loaded_result(snapshot.pk)


@functools.lru_cache(maxsize=2)
def _loaded_result(snapshot_id: int) -> MatrixResult:
    matrix, rows = MatrixSnapshot.objects.values_list("matrix", "rows").get(pk=snapshot_id)
    return MatrixResult.from_bytes(bytes(matrix), rows=[row_from_dict(data) for data in rows])


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
    chosen = Selection(layers=selection.layers, projects=selection.projects)
    return [int(i) for i in selected(result.rows or (), chosen)]


def _pairs_per_row(result: MatrixResult, indices: np.ndarray, wanted: list[int]) -> np.ndarray:
    """For each display position p: how many pairs (p, q > p) pass the verdict filter. The
    stored pairs are counted; the rest of a row's later partners are `independent`."""
    shown = len(indices)
    later = shown - 1 - np.arange(shown, dtype=np.int64)
    if not wanted:
        return later
    position = np.full(len(result), -1, dtype=np.int64)
    position[indices] = np.arange(shown)
    stored = np.zeros(shown, dtype=np.int64)
    passing = np.zeros(shown, dtype=np.int64)
    for i, j, flags in result.stored_chunks(indices):
        a, b = position[i], position[j]
        keep = (a >= 0) & (b >= 0)
        first = np.minimum(a[keep], b[keep])
        stored += np.bincount(first, minlength=shown)
        chosen = np.isin(stored_verdicts(flags[keep]), wanted)
        passing += np.bincount(first[chosen], minlength=shown)
    independent = VERDICTS.index("independent") in wanted
    return passing + (later - stored if independent else 0)


def pair_count(result: MatrixResult, selection: CellFilter) -> int:
    """How many selected pairs pass the verdict filter."""
    indices = np.array(selected_indices(result, selection), dtype=np.int64)
    wanted = [VERDICTS.index(v) for v in selection.verdicts]
    return int(_pairs_per_row(result, indices, wanted).sum())


def pair_positions(
    result: MatrixResult, selection: CellFilter, *, offset: int = 0, limit: int | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """(i, j) row indices of the selected pairs, i before j in display order, verdict-filtered,
    `limit` of them from `offset` (all when None). Only the rows of the page are visited pair by
    pair; the others are counted from the stored pairs."""
    indices = np.array(selected_indices(result, selection), dtype=np.int64)
    wanted = [VERDICTS.index(v) for v in selection.verdicts]
    ends = np.cumsum(_pairs_per_row(result, indices, wanted))
    total = int(ends[-1]) if len(ends) else 0
    stop = total if limit is None else min(total, offset + limit)
    found_i: list[np.ndarray] = []
    found_j: list[np.ndarray] = []
    position = int(np.searchsorted(ends, offset, side="right"))
    skip = offset - (int(ends[position - 1]) if position else 0)
    need = stop - offset
    while need > 0 and position < len(indices):
        partners = indices[position + 1 :]
        if wanted:
            flags = result.flags_many(np.full(len(partners), indices[position]), partners)
            partners = partners[np.isin(stored_verdicts(flags), wanted)]
        taken = partners[skip : skip + need]
        found_i.append(np.full(len(taken), indices[position], dtype=np.int64))
        found_j.append(taken)
        need -= len(taken)
        skip, position = 0, position + 1
    if not found_i:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    return np.concatenate(found_i), np.concatenate(found_j)


def cells(
    result: MatrixResult,
    selection: CellFilter = CellFilter(),
    *,
    explain: bool = True,
    offset: int = 0,
    limit: int | None = None,
) -> list[dict[str, Any]]:
    """Pairs i < j of the selected rows as the shell/API contract's cell dicts, `limit` of them
    from `offset` (all when None): only those are explained."""
    i_all, j_all = pair_positions(result, selection, offset=offset, limit=limit)
    out = []
    for i, j in zip(i_all.tolist(), j_all.tolist(), strict=True):
        a, b = result.rows[i], result.rows[j]
        cell: dict[str, Any] = {
            "a": {"project": a.project, "row": a.key},
            "b": {"project": b.project, "row": b.key},
            "verdict": result.verdict_of(i, j),
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


def localized_reasons(detail: PairResult) -> list[tuple[str, str]]:
    """(verdict, reason) pairs in the active language: the engine's sentences said again through
    gettext (they are English `Text`s that keep their template and parts)."""
    from django.utils.translation import gettext

    return [
        (verdict, render(reason, gettext))
        for verdict, reason in zip(detail.holds, detail.reasons, strict=True)
    ]
