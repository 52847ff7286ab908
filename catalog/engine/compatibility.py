"""The compatibility matrix for a whole catalog at once, vectorised with NumPy."""

from __future__ import annotations

import json
import re
import struct
import zlib
from bisect import bisect_left
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from fnmatch import fnmatchcase
from itertools import islice, takewhile

import numpy as np

from catalog.engine.baseline import binds
from catalog.engine.functions import comparable_functions
from catalog.engine.oracle import (
    COMPETES,
    COMPLEMENTS,
    COMPOSES,
    CONFLICTS,
    INCOMPARABLE,
    INDEPENDENT,
    NO_UNIT,
    SCHEDULING_POINT,
    VERDICTS,
    PairResult,
    is_pattern,
    pair_verdicts,
    presents_no_unit,
)
from catalog.engine.rows import LAYERS, Row

# Each pair is first reduced to seven facts, packed as a 7-bit code; a table then maps the code
# to its holds flags. The table is the one place the verdict rules of oracle.pair_verdicts are
# restated, and building it from the rules keeps the two readable side by side.
_SHARES_TOKEN, _LINKED, _UNITS_OVERLAP, _SAME_LAYER, _SAME_JOB = 1, 2, 4, 8, 16
_SAME_PROJECT, _NO_UNIT = 32, 64  # one project; either row presents no unit (`none` only)
_CODES = 128
_BIT = {verdict: 1 << i for i, verdict in enumerate(VERDICTS)}


def _holds_for(code: int) -> int:
    composes = bool(code & _LINKED)
    # Rows of one project that compose are one component: their shared token is no conflict.
    conflicts = bool(code & _SHARES_TOKEN) and not (composes and code & _SAME_PROJECT)
    flags = (_BIT[CONFLICTS] if conflicts else 0) | (_BIT[COMPOSES] if composes else 0)
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


# 256-byte tables for bytes.translate, which maps a whole n x n uint8 matrix in one C pass
# (several times faster than NumPy fancy indexing for a lookup this small).
_HOLDS_TABLE = bytes(_holds_for(code) if code < _CODES else 0 for code in range(256))
_VERDICT_TABLE = bytes(_first_verdict(flags) & 0xFF if flags < 64 else 0xFF for flags in range(256))

_MAGIC = b"EMX1"
# v2: six verdicts (complements) and the functions rule; a v1 snapshot is recomputed, not read.
_FORMAT = "ecomap.matrix/v2"
_GLOB_CHARS = re.compile(r"[*?\[]")


def _translate(matrix: np.ndarray, table: bytes, dtype: type[np.generic]) -> np.ndarray:
    out = np.frombuffer(
        np.ascontiguousarray(matrix, dtype=np.uint8).tobytes().translate(table), dtype
    )
    return out.reshape(matrix.shape).copy()  # frombuffer is read-only


def _index(values: Iterable[str]) -> dict[str, int]:
    return {value: i for i, value in enumerate(sorted(set(values)))}


def _incidence(sets: Sequence[Iterable[int]], width: int) -> np.ndarray:
    """A rows x width 0/1 float32 matrix; float32 so the products run on BLAS."""
    matrix = np.zeros((len(sets), width), dtype=np.float32)
    row_idx = [i for i, cols in enumerate(sets) for _ in cols]
    col_idx = [c for cols in sets for c in cols]
    if col_idx:
        matrix[row_idx, col_idx] = 1.0
    return matrix


def _overlaps(sets: Sequence[Iterable[int]], width: int) -> np.ndarray:
    """Boolean n x n: the two rows' index sets intersect."""
    if width <= 64:
        # Small vocabularies (units, ownership tokens): one bitmask per row, one AND per pair.
        dtype = next(
            t for t in (np.uint8, np.uint16, np.uint32, np.uint64) if np.iinfo(t).bits >= width
        )
        masks = np.array([sum(1 << c for c in set(cols)) for cols in sets], dtype=dtype)
        return (masks[:, None] & masks[None, :]) != 0
    incidence = _incidence(sets, width)
    # Counts are exact in float32 well past any realistic vocabulary size (2**24).
    return (incidence @ incidence.T) > 0.5


class _PatternMatcher:
    """Matches each distinct pattern once against the distinct provided identifiers."""

    def __init__(self, provided: dict[str, int]) -> None:
        self._provided = provided
        self._sorted = sorted(provided)
        self._cache: dict[str, tuple[int, ...]] = {}

    def columns(self, pattern: str) -> tuple[int, ...]:
        hit = self._cache.get(pattern)
        if hit is None:
            magic = _GLOB_CHARS.search(pattern)
            if magic is None:
                # Most patterns are literal identifiers: a dict lookup, no scan.
                i = self._provided.get(pattern)
                hit = () if i is None else (i,)
            else:
                # Only identifiers sharing the literal prefix can match: bisect to that range.
                prefix = pattern[: magic.start()]
                candidates = takewhile(
                    lambda ident: ident.startswith(prefix),
                    islice(self._sorted, bisect_left(self._sorted, prefix), None),
                )
                hit = tuple(self._provided[c] for c in candidates if fnmatchcase(c, pattern))
            self._cache[pattern] = hit
        return hit


def _offered(row: Row) -> list[str]:
    return [i for i in row.provides if binds(i, row.project)]


def _composes(rows: Sequence[Row]) -> np.ndarray:
    """Boolean n x n: a provides of one row matches a requires/accepts pattern of the other.

    A scheduling row's wildcard patterns are kept apart: they bind a provider only when the
    scheduler provides every `assigner:` contract the provider requires (oracle.links_between).
    """
    offered = [_offered(r) for r in rows]
    provided = _index(p for ids in offered for p in ids)
    matcher = _PatternMatcher(provided)
    free, restricted = [], []
    for r in rows:
        patterns = r.requires | r.accepts
        scheduler = SCHEDULING_POINT in r.enforcement_points
        wild = {p for p in patterns if scheduler and is_pattern(p)}
        free.append({c for p in patterns - wild for c in matcher.columns(p)})
        restricted.append({c for p in wild for c in matcher.columns(p)})
    # An identifier nobody consumes links nothing; dropping it shrinks the product (signals and
    # labels are mostly offered, rarely required).
    live = sorted(set().union(*free, *restricted)) if rows else []
    column = {c: k for k, c in enumerate(live)}
    provides = _incidence(
        [[column[provided[p]] for p in ids if provided[p] in column] for ids in offered],
        len(live),
    )
    consumes = _incidence([[column[c] for c in cols] for cols in free], len(live))
    # feeds[i, j]: row i provides something row j consumes; one product, then both directions.
    feeds = (provides @ consumes.T) > 0.5
    if any(restricted):
        wildcard = _incidence([[column[c] for c in cols] for cols in restricted], len(live))
        feeds |= ((provides @ wildcard.T) > 0.5) & ~_assigners_missing(rows)
    return feeds | feeds.T


def _assigners_missing(rows: Sequence[Row]) -> np.ndarray:
    """missing[i, j]: row i requires an `assigner:` contract that row j does not provide."""
    needed = _index(i for r in rows for i in r.requires if i.startswith("assigner:"))
    if not needed:
        return np.zeros((len(rows), len(rows)), dtype=bool)
    required = _incidence(
        [[needed[i] for i in r.requires if i in needed] for r in rows], len(needed)
    )
    offered = _incidence(
        [[needed[i] for i in r.provides if i in needed] for r in rows], len(needed)
    )
    return (required @ (1.0 - offered).T) > 0.5


def _pair_codes(rows: Sequence[Row]) -> np.ndarray:
    """uint8 n x n of the seven facts per pair (token shared, linked, a common unit other than
    `none`, same layer, a common comparable function, same project, either row presents no
    unit)."""
    tokens = _index(t for r in rows for t in r.exclusive)
    units = _index(u for r in rows for u in r.resource_units if u != NO_UNIT)
    jobs = [comparable_functions(r.layer, r.functions) for r in rows]
    functions = _index(f for fs in jobs for f in fs)
    layers = np.array([LAYERS.index(r.layer) for r in rows], dtype=np.int8)

    code = _overlaps([[tokens[t] for t in r.exclusive] for r in rows], len(tokens)).view(np.uint8)
    code |= _composes(rows).view(np.uint8) << 1
    unit_sets = [[units[u] for u in r.resource_units if u != NO_UNIT] for r in rows]
    code |= _overlaps(unit_sets, len(units)).view(np.uint8) << 2
    code |= (layers[:, None] == layers[None, :]).view(np.uint8) << 3
    job_sets = [[functions[f] for f in fs] for fs in jobs]
    code |= _overlaps(job_sets, len(functions)).view(np.uint8) << 4
    projects = _index(r.project for r in rows)
    owners = np.array([projects[r.project] for r in rows], dtype=np.int32)
    code |= (owners[:, None] == owners[None, :]).view(np.uint8) << 5
    unitless = np.array([presents_no_unit(r) for r in rows], dtype=bool)
    code |= (unitless[:, None] | unitless[None, :]).view(np.uint8) << 6
    return code


def holds_flags(rows: Sequence[Row]) -> np.ndarray:
    """The n x n holds bit-flag matrix (bit i set when VERDICTS[i] holds), diagonal 0."""
    if not rows:
        return np.zeros((0, 0), dtype=np.uint8)
    holds = _translate(_pair_codes(rows), _HOLDS_TABLE, np.uint8)
    np.fill_diagonal(holds, 0)
    return holds


@dataclass(frozen=True, eq=False)
class MatrixResult:
    """All pairwise verdicts of a catalog: `verdict[i, j]` indexes VERDICTS, -1 on the diagonal."""

    row_ids: tuple[str, ...]
    projects: tuple[str, ...]
    verdict: np.ndarray  # int8 n x n, symmetric, -1 on the diagonal
    holds: np.ndarray  # uint8 n x n, symmetric, bit i = VERDICTS[i] holds
    rows: tuple[Row, ...] | None = None  # kept for explanations; absent after from_bytes

    @classmethod
    def from_holds(
        cls,
        row_ids: tuple[str, ...],
        projects: tuple[str, ...],
        holds: np.ndarray,
        rows: tuple[Row, ...] | None = None,
    ) -> MatrixResult:
        return cls(row_ids, projects, _translate(holds, _VERDICT_TABLE, np.int8), holds, rows)

    @property
    def same_project(self) -> np.ndarray:
        """Boolean n x n: both rows belong to the same project (False on the diagonal)."""
        index = _index(self.projects)
        codes = np.array([index[p] for p in self.projects], dtype=np.int32)
        same = codes[:, None] == codes[None, :]
        np.fill_diagonal(same, False)
        return same

    def __len__(self) -> int:
        return len(self.row_ids)

    def index(self, row_id: str) -> int:
        try:
            return self.row_ids.index(row_id)
        except ValueError:
            raise KeyError(f"row {row_id!r} is not in this matrix") from None

    def verdict_of(self, i: int, j: int) -> str | None:
        code = _first_verdict(int(self.holds[i, j]))
        return VERDICTS[code] if code >= 0 else None

    def holds_of(self, i: int, j: int) -> tuple[str, ...]:
        flags = int(self.holds[i, j])
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

    def counts(self) -> dict[str, int]:
        """How many pairs (i < j) show each verdict."""
        upper = self.verdict[np.triu_indices(len(self), k=1)]
        tally = np.bincount(upper.astype(np.int64), minlength=len(VERDICTS))
        return {v: int(tally[i]) for i, v in enumerate(VERDICTS)}

    def to_bytes(self) -> bytes:
        """Serialise compactly.

        Format `ecomap.matrix/v1`: the 4 bytes `EMX1`, then one zlib stream holding a big-endian
        uint32 header length, a UTF-8 JSON header `{"format", "verdicts", "row_ids", "projects"}`,
        and the holds flags of the upper triangle (i < j, row-major, one uint8 per pair). The
        verdict matrix is the first set bit of each flag, so it is not stored.
        """
        header = json.dumps(
            {
                "format": _FORMAT,
                "verdicts": list(VERDICTS),
                "row_ids": list(self.row_ids),
                "projects": list(self.projects),
            },
            separators=(",", ":"),
        ).encode()
        upper = np.ascontiguousarray(self.holds[np.triu_indices(len(self), k=1)], dtype=np.uint8)
        payload = struct.pack(">I", len(header)) + header + upper.tobytes()
        return _MAGIC + zlib.compress(payload, 6)

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
        n = len(row_ids)
        upper = np.frombuffer(payload[4 + length :], dtype=np.uint8)
        if upper.size != n * (n - 1) // 2:
            raise ValueError("matrix snapshot is truncated")
        holds = np.zeros((n, n), dtype=np.uint8)
        iu = np.triu_indices(n, k=1)
        holds[iu] = upper
        holds.T[iu] = upper
        if rows is not None and tuple(r.id for r in rows) != row_ids:
            raise ValueError("rows do not match the snapshot's row ids")
        return cls.from_holds(
            row_ids, tuple(header["projects"]), holds, tuple(rows) if rows is not None else None
        )


def compute_matrix(rows: Sequence[Row]) -> MatrixResult:
    """Every pairwise verdict of `rows`, agreeing exactly with oracle.pair_verdicts."""
    ids = tuple(r.id for r in rows)
    if len(set(ids)) != len(ids):
        raise ValueError("row ids must be unique")
    return MatrixResult.from_holds(
        ids, tuple(r.project for r in rows), holds_flags(rows), tuple(rows)
    )
