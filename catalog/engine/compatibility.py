"""The compatibility matrix for a whole catalog at once, vectorised with NumPy, in bounded memory.

The pairs are computed a band of rows at a time (catalog.engine.matrix_tiles) and kept sparsely:
only the pairs whose holds flag is not exactly `independent` are stored, as three parallel
arrays (i < j, sorted by i then j). Every other pair of two distinct rows is `independent`.
"""

from __future__ import annotations

import json
import struct
import zlib
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from functools import cached_property

import numpy as np

from catalog.engine.matrix_tiles import PairCodes, tile_rows
from catalog.engine.oracle import (
    COMPETES,
    COMPLEMENTS,
    COMPOSES,
    CONFLICTS,
    CONTAINS,
    INCOMPARABLE,
    INDEPENDENT,
    VERDICTS,
    PairResult,
    pair_verdicts,
)
from catalog.engine.rows import Row

# Each pair is first reduced to eight facts, packed as an 8-bit code; a table then maps the code
# to its holds flags. The table is the one place the verdict rules of oracle.pair_verdicts are
# restated, and building it from the rules keeps the two readable side by side.
_SHARES_TOKEN, _LINKED, _UNITS_OVERLAP, _SAME_LAYER, _SAME_JOB = 1, 2, 4, 8, 16
_SAME_PROJECT, _NO_UNIT = 32, 64  # one project; either row presents no unit (`none` only)
_CONTAINS = 128  # one row ships the other's project (oracle.containment)
_CODES = 256
_BIT = {verdict: 1 << i for i, verdict in enumerate(VERDICTS)}
# The holds-flag bit of each verdict, for readers of stored pairs (never a literal bit number).
COMPOSES_BIT, CONFLICTS_BIT, CONTAINS_BIT = _BIT[COMPOSES], _BIT[CONFLICTS], _BIT[CONTAINS]


def _holds_for(code: int) -> int:
    composes = bool(code & _LINKED)
    # Rows of one project that compose are one component: their shared token is no conflict.
    conflicts = bool(code & _SHARES_TOKEN) and not (composes and code & _SAME_PROJECT)
    flags = (_BIT[CONFLICTS] if conflicts else 0) | (_BIT[COMPOSES] if composes else 0)
    if code & _CONTAINS:
        return flags | _BIT[CONTAINS]  # a part is not compared with its whole
    if code & _SAME_LAYER:
        if code & _SAME_JOB:
            if composes:
                flags |= _BIT[COMPLEMENTS]  # a consumer and what it consumes: not rivals
            elif code & _UNITS_OVERLAP:
                flags |= _BIT[COMPETES]
            elif code & _NO_UNIT:
                flags |= _BIT[COMPLEMENTS]  # no unit to compare: not alternatives
            else:
                flags |= _BIT[INCOMPARABLE]
        else:
            flags |= _BIT[COMPLEMENTS]  # different jobs on one layer
    elif not (conflicts or composes):
        flags |= _BIT[INDEPENDENT]  # different layers and nothing ties them
    return flags


def _first_verdict(flags: int) -> int:
    return next((i for i in range(len(VERDICTS)) if flags >> i & 1), -1)


# 256-byte tables for bytes.translate, which maps a whole uint8 block in one C pass
# (several times faster than NumPy fancy indexing for a lookup this small).
_HOLDS_TABLE = bytes(_holds_for(code) if code < _CODES else 0 for code in range(256))
_VERDICT_TABLE = bytes(
    _first_verdict(flags) & 0xFF if flags < 1 << len(VERDICTS) else 0xFF for flags in range(256)
)
_VERDICT_OF_FLAGS = np.frombuffer(_VERDICT_TABLE, dtype=np.int8)
# The flag of a pair nothing ties: the one not stored.
INDEPENDENT_ONLY = _BIT[INDEPENDENT]

_MAGIC = b"EMX1"
# v3: the sparse pairs (v2 stored one byte per pair of the upper triangle; it is recomputed).
_FORMAT = "ecomap.matrix/v3"
# About this many pairs per band of rows: a band's codes, masks and products stay near 100 MB.
TILE_CELLS = 4 * 2**20
# Readers may ask for a dense n x n view only this small (tests, a report's candidates).
DENSE_LIMIT = 4096


def stored_verdicts(flags: np.ndarray) -> np.ndarray:
    """The shown verdict of each holds flag: an index into VERDICTS, -1 for none."""
    return _VERDICT_OF_FLAGS[flags]


class MatrixTooLarge(Exception):
    """More pairs to store than the caller's budget: stopped before allocating them."""


def _translate(matrix: np.ndarray, table: bytes, dtype: type[np.generic]) -> np.ndarray:
    out = np.frombuffer(
        np.ascontiguousarray(matrix, dtype=np.uint8).tobytes().translate(table), dtype
    )
    return out.reshape(matrix.shape).copy()  # frombuffer is read-only


def concat_ranges(starts: np.ndarray, stops: np.ndarray) -> np.ndarray:
    """The concatenation of arange(start, stop) for each pair, without a Python loop."""
    lengths = stops - starts
    total = int(lengths.sum())
    if total == 0:
        return np.zeros(0, dtype=np.int64)
    offsets = np.repeat(starts - np.cumsum(lengths) + lengths, lengths)
    return offsets + np.arange(total, dtype=np.int64)


@dataclass(frozen=True, eq=False)
class MatrixResult:
    """All pairwise verdicts of a catalog, sparsely: the pairs i < j whose holds flag is not
    exactly `independent`, sorted by (i, j); every other pair of distinct rows is independent."""

    row_ids: tuple[str, ...]
    projects: tuple[str, ...]
    pair_i: np.ndarray  # int32
    pair_j: np.ndarray  # int32, > pair_i
    pair_flags: np.ndarray  # uint8, bit k = VERDICTS[k] holds
    rows: tuple[Row, ...] | None = None  # kept for explanations; absent after from_bytes

    @classmethod
    def from_holds(
        cls,
        row_ids: tuple[str, ...],
        projects: tuple[str, ...],
        holds: np.ndarray,
        rows: tuple[Row, ...] | None = None,
    ) -> MatrixResult:
        """From a dense holds matrix (small catalogs, tests)."""
        upper = np.triu(np.ones(holds.shape, dtype=bool), k=1) & (holds != INDEPENDENT_ONLY)
        i, j = np.nonzero(upper)
        return cls(
            row_ids,
            projects,
            i.astype(np.int32),
            j.astype(np.int32),
            holds[i, j].astype(np.uint8),
            rows,
        )

    # ---- lookups ---------------------------------------------------------------------------

    def __len__(self) -> int:
        return len(self.row_ids)

    @cached_property
    def _positions(self) -> dict[str, int]:
        return {row_id: i for i, row_id in enumerate(self.row_ids)}

    @cached_property
    def _indptr(self) -> np.ndarray:
        """Stored pairs of row i are pair_*[indptr[i]:indptr[i + 1]]."""
        return np.searchsorted(self.pair_i, np.arange(len(self) + 1)).astype(np.int64)

    def index(self, row_id: str) -> int:
        try:
            return self._positions[row_id]
        except KeyError:
            raise KeyError(f"row {row_id!r} is not in this matrix") from None

    def flags_of(self, i: int, j: int) -> int:
        if i == j:
            return 0
        a, b = (i, j) if i < j else (j, i)
        lo, hi = int(self._indptr[a]), int(self._indptr[a + 1])
        k = lo + int(np.searchsorted(self.pair_j[lo:hi], b))
        if k < hi and int(self.pair_j[k]) == b:
            return int(self.pair_flags[k])
        return INDEPENDENT_ONLY

    def verdict_of(self, i: int, j: int) -> str | None:
        code = _first_verdict(self.flags_of(i, j))
        return VERDICTS[code] if code >= 0 else None

    def holds_of(self, i: int, j: int) -> tuple[str, ...]:
        flags = self.flags_of(i, j)
        return tuple(v for bit, v in enumerate(VERDICTS) if flags >> bit & 1)

    def pair(self, i: int, j: int) -> PairResult:
        """The detail of one cell with its reasons; explaining a single pair is cheap."""
        if i == j:
            raise ValueError("a row paired with itself is not a pair")
        if self.rows is None:
            raise ValueError("this matrix was loaded without its rows; pass rows= to from_bytes")
        return pair_verdicts(self.rows[i], self.rows[j])

    def explain(self, row_a: str, row_b: str) -> PairResult:
        return self.pair(self.index(row_a), self.index(row_b))

    # ---- many pairs at once ----------------------------------------------------------------

    def flags_many(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        """Holds flags of the pairs (a[k], b[k]): one binary search per pair, all at once."""
        a, b = np.asarray(a, dtype=np.int64), np.asarray(b, dtype=np.int64)
        u, v = np.minimum(a, b), np.maximum(a, b)
        lo, end = self._indptr[u], self._indptr[u + 1]
        hi = end.copy()
        while True:
            open_ = lo < hi
            if not open_.any():
                break
            mid = (lo + hi) // 2
            probe = self.pair_j[np.minimum(mid, len(self.pair_j) - 1)] if len(self.pair_j) else mid
            right = open_ & (probe < v)
            left = open_ & ~right
            lo = np.where(right, mid + 1, lo)
            hi = np.where(left, mid, hi)
        flags = np.full(len(a), INDEPENDENT_ONLY, dtype=np.uint8)
        if len(self.pair_j):
            at = np.minimum(lo, len(self.pair_j) - 1)
            found = (lo < end) & (self.pair_j[at] == v)
            flags[found] = self.pair_flags[at[found]]
        flags[a == b] = 0
        return flags

    def stored_chunks(
        self, rows: np.ndarray | None = None, chunk: int = 1 << 22
    ) -> Iterator[tuple[np.ndarray, np.ndarray, np.ndarray]]:
        """The stored pairs (i, j, flags) in chunks of at most `chunk`, all of them or only
        those whose first row is in `rows` (a small set: gathered by row, not scanned)."""
        m = len(self.pair_flags)
        if rows is not None and len(rows) * 8 < len(self):
            rows = np.unique(np.asarray(rows, dtype=np.int64))
            positions = concat_ranges(self._indptr[rows], self._indptr[rows + 1])
            for start in range(0, len(positions), chunk):
                k = positions[start : start + chunk]
                yield self.pair_i[k], self.pair_j[k], self.pair_flags[k]
            return
        for start in range(0, m, chunk):
            part = slice(start, start + chunk)
            yield self.pair_i[part], self.pair_j[part], self.pair_flags[part]

    def ordered_chunks(
        self, ys: np.ndarray, xs: np.ndarray
    ) -> Iterator[tuple[np.ndarray, np.ndarray, np.ndarray]]:
        """Stored pairs as ordered (a, b, flags) with a in `ys`, b in `xs`: a pair with both rows
        on both sides appears in both orders, like the cells of a dense matrix."""
        n = len(self)
        in_y, in_x = np.zeros(n, dtype=bool), np.zeros(n, dtype=bool)
        in_y[ys], in_x[xs] = True, True
        for i, j, f in self.stored_chunks(np.union1d(ys, xs)):
            forward = in_y[i] & in_x[j]
            backward = in_y[j] & in_x[i]
            yield (
                np.concatenate([i[forward], j[backward]]).astype(np.int64),
                np.concatenate([j[forward], i[backward]]).astype(np.int64),
                np.concatenate([f[forward], f[backward]]),
            )

    def holds_block(self, ys: Sequence[int], xs: Sequence[int]) -> np.ndarray:
        """Dense uint8 holds flags of rows `ys` x rows `xs` (0 where a row meets itself)."""
        ys, xs = np.asarray(ys, dtype=np.int64), np.asarray(xs, dtype=np.int64)
        a = np.repeat(ys, len(xs))
        b = np.tile(xs, len(ys))
        return self.flags_many(a, b).reshape(len(ys), len(xs))

    def verdict_block(self, ys: Sequence[int], xs: Sequence[int]) -> np.ndarray:
        """int8 indices into VERDICTS of rows `ys` x rows `xs`, -1 where a row meets itself."""
        return _translate(self.holds_block(ys, xs), _VERDICT_TABLE, np.int8)

    def _dense(self) -> np.ndarray:
        if len(self) > DENSE_LIMIT:
            raise ValueError(f"a dense view is for at most {DENSE_LIMIT} rows; read blocks")
        everything = np.arange(len(self))
        return self.holds_block(everything, everything)

    @property
    def holds(self) -> np.ndarray:
        """uint8 n x n holds flags, symmetric, 0 on the diagonal (small matrices only)."""
        return self._dense()

    @property
    def verdict(self) -> np.ndarray:
        """int8 n x n verdict indices, -1 on the diagonal (small matrices only)."""
        return _translate(self._dense(), _VERDICT_TABLE, np.int8)

    @property
    def same_project(self) -> np.ndarray:
        """Boolean n x n: both rows belong to the same project (False on the diagonal)."""
        if len(self) > DENSE_LIMIT:
            raise ValueError(f"a dense view is for at most {DENSE_LIMIT} rows")
        codes = np.unique(np.array(self.projects, dtype=object), return_inverse=True)[1]
        same = codes[:, None] == codes[None, :] if len(self) else np.zeros((0, 0), dtype=bool)
        np.fill_diagonal(same, False)
        return same

    def stored_verdicts(self) -> np.ndarray:
        """The shown verdict (index into VERDICTS, -1 for none) of each stored pair."""
        return stored_verdicts(self.pair_flags)

    def counts(self) -> dict[str, int]:
        """How many pairs (i < j) show each verdict."""
        shown = self.stored_verdicts()
        tally = np.bincount(shown[shown >= 0].astype(np.int64), minlength=len(VERDICTS))
        n = len(self)
        tally[VERDICTS.index(INDEPENDENT)] += n * (n - 1) // 2 - len(self.pair_flags)
        return {v: int(tally[i]) for i, v in enumerate(VERDICTS)}

    # ---- storage ---------------------------------------------------------------------------

    def to_bytes(self) -> bytes:
        """Serialise compactly.

        Format `ecomap.matrix/v3`: the 4 bytes `EMX1`, then one zlib stream holding a big-endian
        uint32 header length, a UTF-8 JSON header `{"format", "verdicts", "row_ids", "projects",
        "pairs"}`, then little-endian arrays: the number of stored pairs of each row (uint32 x n),
        their j (uint32 x pairs) and their holds flags (uint8 x pairs). Pairs not stored are
        exactly `independent`; the verdict is the first set bit of a flag, so it is not stored.
        """
        header = json.dumps(
            {
                "format": _FORMAT,
                "verdicts": list(VERDICTS),
                "row_ids": list(self.row_ids),
                "projects": list(self.projects),
                "pairs": int(len(self.pair_flags)),
            },
            separators=(",", ":"),
        ).encode()
        packer = zlib.compressobj(1)
        parts = [
            packer.compress(struct.pack(">I", len(header)) + header),
            packer.compress(np.diff(self._indptr).astype("<u4").tobytes()),
            packer.compress(self.pair_j.astype("<u4").tobytes()),
            packer.compress(self.pair_flags.tobytes()),
            packer.flush(),
        ]
        return _MAGIC + b"".join(parts)

    @classmethod
    def from_bytes(cls, data: bytes, rows: Sequence[Row] | None = None) -> MatrixResult:
        """Load what to_bytes wrote; pass the same rows to be able to explain pairs."""
        if data[:4] != _MAGIC:
            raise ValueError("not an EcoMap matrix snapshot (bad magic)")
        payload = zlib.decompress(data[4:])
        (length,) = struct.unpack(">I", payload[:4])
        header = json.loads(payload[4 : 4 + length])
        if header.get("format") != _FORMAT or tuple(header["verdicts"]) != VERDICTS:
            raise ValueError(f"unsupported matrix snapshot format {header.get('format')!r}")
        row_ids = tuple(header["row_ids"])
        n, m = len(row_ids), int(header["pairs"])
        body = memoryview(payload)[4 + length :]
        if len(body) != 4 * n + 5 * m:
            raise ValueError("matrix snapshot is truncated")
        degree = np.frombuffer(body[: 4 * n], dtype="<u4").astype(np.int64)
        pair_j = np.frombuffer(body[4 * n : 4 * n + 4 * m], dtype="<u4").astype(np.int32)
        flags = np.frombuffer(body[4 * n + 4 * m :], dtype=np.uint8).copy()
        if int(degree.sum()) != m:
            raise ValueError("matrix snapshot is truncated")
        pair_i = np.repeat(np.arange(n, dtype=np.int32), degree)
        if rows is not None and tuple(r.id for r in rows) != row_ids:
            raise ValueError("rows do not match the snapshot's row ids")
        return cls(
            row_ids,
            tuple(header["projects"]),
            pair_i,
            pair_j,
            flags,
            tuple(rows) if rows is not None else None,
        )


def compute_matrix(
    rows: Sequence[Row],
    *,
    max_pairs: int | None = None,
    progress: Callable[[float], None] | None = None,
    cells: int = TILE_CELLS,
) -> MatrixResult:
    """Every pairwise verdict of `rows`, agreeing exactly with oracle.pair_verdicts.

    Memory is bounded by the band (about `cells` pairs at a time) plus the stored pairs (9 bytes
    each); more than `max_pairs` stored pairs raise MatrixTooLarge before they are allocated.
    `progress` is called with the fraction of pairs done after each band.
    """
    ids = tuple(r.id for r in rows)
    if len(set(ids)) != len(ids):
        raise ValueError("row ids must be unique")
    n = len(rows)
    codes = PairCodes(rows)
    band = tile_rows(n, cells)
    width = max(band, cells // band)
    found_i: list[np.ndarray] = []
    found_j: list[np.ndarray] = []
    found_f: list[np.ndarray] = []
    stored, total = 0, n * (n - 1) // 2
    for start in range(0, n, band):
        stop = min(n, start + band)
        parts = []
        for left in range(start, n, width):
            right = min(n, left + width)
            holds = _translate(
                codes.tile(slice(start, stop), slice(left, right)), _HOLDS_TABLE, np.uint8
            )
            keep = holds != INDEPENDENT_ONLY
            if left < stop:  # the tile meets the diagonal: keep i < j only
                keep &= np.arange(start, stop)[:, None] < np.arange(left, right)[None, :]
            r, c = np.nonzero(keep)
            parts.append((r + start, c + left, holds[r, c]))
        i = np.concatenate([p[0] for p in parts]).astype(np.int32)
        j = np.concatenate([p[1] for p in parts]).astype(np.int32)
        f = np.concatenate([p[2] for p in parts])
        if len(parts) > 1:
            order = np.lexsort((j, i))
            i, j, f = i[order], j[order], f[order]
        stored += len(f)
        if max_pairs is not None and stored > max_pairs:
            raise MatrixTooLarge(
                f"{n} rows have more than {max_pairs} pairs that are not independent"
            )
        found_i.append(i)
        found_j.append(j)
        found_f.append(f)
        if progress is not None and total:
            done = total - (n - stop) * (n - stop - 1) // 2
            progress(done / total)
    empty_i = np.zeros(0, dtype=np.int32)
    return MatrixResult(
        ids,
        tuple(r.project for r in rows),
        np.concatenate(found_i) if found_i else empty_i,
        np.concatenate(found_j) if found_j else empty_i.copy(),
        np.concatenate(found_f) if found_f else np.zeros(0, dtype=np.uint8),
        tuple(rows),
    )


def holds_flags(rows: Sequence[Row]) -> np.ndarray:
    """The n x n holds bit-flag matrix (bit i set when VERDICTS[i] holds), diagonal 0; for small
    catalogs only (it is dense)."""
    return compute_matrix(rows).holds
