"""The pair codes of a catalog, one tile of rows x rows at a time, in bounded memory.

`compatibility` reduces each pair to seven facts packed as a 7-bit code and maps the code to its
holds flags through one table. This module computes those codes for any rectangle of pairs
without ever holding an n x n array: each row is compiled once into small per-row features
(bitmasks over small vocabularies, sparse index lists over large ones), and a tile of B x C pairs
costs B x C bytes plus two B x width / C x width float32 incidence blocks for the products.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from collections.abc import Iterable, Sequence
from fnmatch import fnmatchcase
from itertools import islice, takewhile

import numpy as np

from catalog.engine.baseline import binds
from catalog.engine.functions import comparable_functions
from catalog.engine.oracle import (
    CONTAINS_KIND,
    NO_UNIT,
    SCHEDULING_POINT,
    contained_names,
    is_pattern,
    presents_no_unit,
)
from catalog.engine.rows import LAYERS, Row

_GLOB_CHARS = re.compile(r"[*?\[]")
MASK_BITS = 64  # a vocabulary this small is one uint64 bitmask per row: one AND per pair
# A set's whole 0/1 float32 incidence (rows x width) is kept once when it is at most this big, so
# each band of rows slices it instead of building its columns again; beyond, tiles build theirs.
CACHE_BYTES = 192 * 2**20


def _index(values: Iterable[str]) -> dict[str, int]:
    return {value: i for i, value in enumerate(sorted(set(values)))}


class _Sets:
    """One set of vocabulary indices per row; `overlap` says which pairs of a tile intersect.

    Up to 64 values: one bitmask per row. Beyond: the sets as CSR lists, and a tile's overlap is
    the product of two small dense 0/1 float32 blocks (counts are exact in float32 up to 2**24).
    """

    def __init__(self, sets: Sequence[Iterable[int]], width: int) -> None:
        self.width = width
        lists = [sorted(set(cols)) for cols in sets]
        self.masks: np.ndarray | None = None
        if width <= MASK_BITS:
            self.masks = np.array([sum(1 << c for c in cols) for cols in lists], dtype=np.uint64)
        lengths = np.array([len(cols) for cols in lists], dtype=np.int64)
        self.indptr = np.concatenate(([0], np.cumsum(lengths))).astype(np.int64)
        self.indices = np.array([c for cols in lists for c in cols], dtype=np.int64)
        self._whole: np.ndarray | None = None
        if 0 < len(lists) * width * 4 <= CACHE_BYTES and width > MASK_BITS // 8:
            self._whole = self._build(0, len(lists))

    def dense(self, start: int, stop: int) -> np.ndarray:
        """Rows start:stop as a 0/1 float32 (rows x width) block."""
        if self._whole is not None:
            return self._whole[start:stop]
        return self._build(start, stop)

    def _build(self, start: int, stop: int) -> np.ndarray:
        block = np.zeros((stop - start, self.width), dtype=np.float32)
        lo, hi = self.indptr[start], self.indptr[stop]
        if hi > lo:
            counts = np.diff(self.indptr[start : stop + 1])
            block[np.repeat(np.arange(stop - start), counts), self.indices[lo:hi]] = 1.0
        return block

    def overlap(self, rows: slice, cols: slice) -> np.ndarray:
        if self.width == 0:
            return np.zeros((rows.stop - rows.start, cols.stop - cols.start), dtype=bool)
        if self.masks is not None:
            return (self.masks[rows, None] & self.masks[None, cols]) != 0
        return self.product(self, rows, cols)

    def product(self, other: _Sets, rows: slice, cols: slice) -> np.ndarray:
        """[r, c]: row r's set here meets row c's set in `other` (same vocabulary)."""
        left = self.dense(rows.start, rows.stop)
        right = other.dense(cols.start, cols.stop)
        return (left @ right.T) > 0.5


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


class _Links:
    """Which pairs compose: a provides of one row matches a requires/accepts pattern of the other.

    A scheduling row's wildcard patterns are kept apart: they bind a provider only when the
    scheduler provides every `assigner:` contract the provider requires (oracle.links_between).
    """

    def __init__(self, rows: Sequence[Row]) -> None:
        offered = [
            [i for i in r.provides if binds(i, r.project) and not i.startswith(CONTAINS_KIND)]
            for r in rows
        ]
        provided = _index(p for ids in offered for p in ids)
        matcher = _PatternMatcher(provided)
        free, restricted = [], []
        for r in rows:
            patterns = r.requires | r.accepts
            scheduler = SCHEDULING_POINT in r.enforcement_points
            wild = {p for p in patterns if scheduler and is_pattern(p)}
            free.append({c for p in patterns - wild for c in matcher.columns(p)})
            restricted.append({c for p in wild for c in matcher.columns(p)})
        # An identifier nobody consumes links nothing; dropping it shrinks the products.
        live = sorted(set().union(*free, *restricted)) if rows else []
        column = {c: k for k, c in enumerate(live)}
        width = len(live)
        self.provides = _Sets(
            [[column[provided[p]] for p in ids if provided[p] in column] for ids in offered], width
        )
        self.consumes = _Sets([[column[c] for c in cols] for cols in free], width)
        self.wildcard = _Sets([[column[c] for c in cols] for cols in restricted], width)
        self.any_wildcard = any(restricted)
        needed = _index(i for r in rows for i in r.requires if i.startswith("assigner:"))
        self.required = _Sets(
            [[needed[i] for i in r.requires if i in needed] for r in rows], len(needed)
        )
        self.assigns = _Sets(
            [[needed[i] for i in r.provides if i in needed] for r in rows], len(needed)
        )

    def _missing(self, rows: slice, cols: slice) -> np.ndarray:
        """[r, c]: row r requires an `assigner:` contract that row c does not provide."""
        shape = (rows.stop - rows.start, cols.stop - cols.start)
        if self.required.width == 0:
            return np.zeros(shape, dtype=bool)
        required = self.required.dense(rows.start, rows.stop)
        lacking = 1.0 - self.assigns.dense(cols.start, cols.stop)
        return (required @ lacking.T) > 0.5

    def _feeds(self, rows: slice, cols: slice) -> np.ndarray:
        """[r, c]: row r provides something row c consumes."""
        feeds = self.provides.product(self.consumes, rows, cols)
        if self.any_wildcard:
            feeds |= self.provides.product(self.wildcard, rows, cols) & ~self._missing(rows, cols)
        return feeds

    def linked(self, rows: slice, cols: slice) -> np.ndarray:
        if self.provides.width == 0:
            return np.zeros((rows.stop - rows.start, cols.stop - cols.start), dtype=bool)
        feeds = self._feeds(rows, cols)
        if (rows.start, rows.stop) == (cols.start, cols.stop):
            return feeds | feeds.T  # a square tile on the diagonal: one product, both directions
        return feeds | self._feeds(cols, rows).T


class _Containment:
    """Which pairs are a whole and its part: a row's `contains:` names meet the other row's own
    names (its project slug and its row id), in either direction, across projects."""

    def __init__(self, rows: Sequence[Row]) -> None:
        shipped = [contained_names(r) for r in rows]
        names = _index(n for ns in shipped for n in ns)
        self.ships = _Sets([[names[n] for n in ns] for ns in shipped], len(names))
        self.is_named = _Sets(
            [[names[n] for n in (r.project, r.id) if n in names] for r in rows], len(names)
        )

    def holds(self, rows: slice, cols: slice, same_project: np.ndarray) -> np.ndarray:
        if self.ships.width == 0:
            return np.zeros((rows.stop - rows.start, cols.stop - cols.start), dtype=bool)
        either = self.ships.product(self.is_named, rows, cols)
        either |= self.ships.product(self.is_named, cols, rows).T
        return either & ~same_project


class PairCodes:
    """The eight facts of every pair (token shared, linked, a common unit other than `none`, same
    layer, a common comparable function, same project, either row presents no unit, one ships
    the other), computed a tile at a time. Bits as in compatibility: 1, 2, 4, ..., 128."""

    def __init__(self, rows: Sequence[Row]) -> None:
        self.n = len(rows)
        tokens = _index(t for r in rows for t in r.exclusive)
        units = _index(u for r in rows for u in r.resource_units if u != NO_UNIT)
        jobs = [comparable_functions(r.layer, r.functions) for r in rows]
        functions = _index(f for fs in jobs for f in fs)
        self.tokens = _Sets([[tokens[t] for t in r.exclusive] for r in rows], len(tokens))
        self.links = _Links(rows)
        self.units = _Sets(
            [[units[u] for u in r.resource_units if u != NO_UNIT] for r in rows], len(units)
        )
        self.layers = np.array([LAYERS.index(r.layer) for r in rows], dtype=np.int8)
        self.jobs = _Sets([[functions[f] for f in fs] for fs in jobs], len(functions))
        projects = _index(r.project for r in rows)
        self.owners = np.array([projects[r.project] for r in rows], dtype=np.int32)
        self.unitless = np.array([presents_no_unit(r) for r in rows], dtype=bool)
        self.containment = _Containment(rows)

    def tile(self, rows: slice, cols: slice) -> np.ndarray:
        """uint8 codes of the pairs rows x cols (a row met with itself included: mask it)."""
        code = self.tokens.overlap(rows, cols).view(np.uint8).copy()
        code |= self.links.linked(rows, cols).view(np.uint8) << 1
        code |= self.units.overlap(rows, cols).view(np.uint8) << 2
        code |= (self.layers[rows, None] == self.layers[None, cols]).view(np.uint8) << 3
        code |= self.jobs.overlap(rows, cols).view(np.uint8) << 4
        same_project = self.owners[rows, None] == self.owners[None, cols]
        code |= same_project.view(np.uint8) << 5
        code |= (self.unitless[rows, None] | self.unitless[None, cols]).view(np.uint8) << 6
        code |= self.containment.holds(rows, cols, same_project).view(np.uint8) << 7
        return code


def tile_rows(n: int, cells: int) -> int:
    """Rows per band so that one band of rows x all columns holds about `cells` pairs."""
    return max(1, min(4096, cells // max(n, 1)))
