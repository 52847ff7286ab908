"""The matrix as a reader can take it in at any size: axes of rows, projects or functions.

A catalog of 2,000 rows has two million pairs; no page can draw them one by one. Each axis of
the heatmap is therefore a list of groups of rows: projects up to `GROUP_LIMIT` (a project
can be expanded to its rows in place), else the layer × function blocks of METHOD.md's map (a
row with several functions is in several blocks); a selection of a few rows (a stack, one
project) is shown row by row. A cell counts the pairs between its two groups per verdict and is
coloured by the dominant one; choosing a cell narrows both axes to its groups (`drill`), down to
single rows whose cell opens the pair.

Pure NumPy over the matrix's stored (sparse) pairs: a cell's independent pairs are what the
stored ones leave of it, so no n x n array is built at any size. No Django, so the engine
tests can drive it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from catalog.engine.compatibility import MatrixResult, concat_ranges, stored_verdicts
from catalog.engine.oracle import VERDICTS
from catalog.engine.rows import Row

ROW_LIMIT = 150
GROUP_LIMIT = 150
# A selection this small (a decided stack, a project's rows) is shown row by row.
ROWS_SHOWN_UP_TO = 16
LAYER_ORDER = {"platform": 0, "control_plane": 1, "data_plane": 2}
NO_VERDICT = 255  # a cell with no pair to show (a row with itself, or filtered out)
_INDEPENDENT = VERDICTS.index("independent")


@dataclass(frozen=True)
class Selection:
    """Which rows and verdicts to show; `y` and `x` narrow one axis to a group key each."""

    layers: tuple[str, ...] = ()
    projects: tuple[str, ...] = ()
    verdicts: tuple[str, ...] = ()
    y: str = ""
    x: str = ""
    y_page: int = 1
    x_page: int = 1
    expand: tuple[str, ...] = ()  # project slugs shown row by row inside the project view
    rows: tuple[str, ...] = ()  # only these rows (`project/key` ids or project slugs)
    near: str = ""  # only this project's rows and every row one contract away


@dataclass(frozen=True)
class Group:
    """Rows shown as one line of an axis. `key` is `row:<id>`, `project:<slug>` or
    `function:<layer>/<function>`; `members` index the matrix's rows."""

    key: str
    kind: str
    layer: str
    members: np.ndarray

    @property
    def value(self) -> str:
        return self.key.partition(":")[2]


@dataclass(frozen=True)
class Blocks:
    y: list[Group]
    x: list[Group]
    counts: np.ndarray  # uint32 (len(y), len(x), len(VERDICTS)): pairs per verdict per cell
    codes: np.ndarray  # uint8 (len(y), len(x)): the cell's verdict index, NO_VERDICT if none
    totals: dict[str, int]  # pairs per verdict between the two axes' rows (each pair once)
    y_pages: int = 1
    x_pages: int = 1

    @property
    def rows_only(self) -> bool:
        return all(g.kind == "row" for g in self.y) and all(g.kind == "row" for g in self.x)


def selected(rows: Sequence[Row], selection: Selection) -> np.ndarray:
    """Indices of rows kept by the layer and project filters, by layer then id."""
    named = set(selection.rows)
    keep = [
        i
        for i, row in enumerate(rows)
        if (not selection.layers or row.layer in selection.layers)
        and (not selection.projects or row.project in selection.projects)
        and (not named or row.id in named or row.project in named)
    ]
    keep.sort(key=lambda i: (LAYER_ORDER.get(rows[i].layer, 9), rows[i].id))
    return np.array(keep, dtype=np.int64)


def neighbourhood(result: MatrixResult, project: str) -> np.ndarray:
    """Indices of `project`'s rows and of every row one contract away (the pair composes)."""
    rows = result.rows or ()
    own = np.array([i for i, row in enumerate(rows) if row.project == project], dtype=np.int64)
    if not len(own):
        return own
    marked = np.zeros(len(rows), dtype=bool)
    marked[own] = True
    near = set(own.tolist())
    composes = 1 << VERDICTS.index("composes")
    for i, j, flags in result.stored_chunks():
        hit = (flags & composes) != 0
        near.update(j[hit & marked[i]].tolist())
        near.update(i[hit & marked[j]].tolist())
    return np.array(sorted(near), dtype=np.int64)


def members_of(rows: Sequence[Row], indices: np.ndarray, key: str) -> np.ndarray:
    """The rows among `indices` that belong to the group `key` (all of them when empty)."""
    if not key:
        return indices
    kind, _, value = key.partition(":")
    if kind == "row":
        test = lambda row: row.id == value  # noqa: E731
    elif kind == "project":
        test = lambda row: row.project == value  # noqa: E731
    elif kind == "function":
        layer, _, function = value.partition("/")
        test = lambda row: row.layer == layer and function in row.functions  # noqa: E731
    else:
        raise ValueError(f"unknown group {key!r}: use row:, project: or function:")
    return np.array([i for i in indices if test(rows[i])], dtype=np.int64)


def _page(groups: list[Group], page: int, size: int) -> tuple[list[Group], int]:
    pages = max(1, -(-len(groups) // size))
    page = min(max(page, 1), pages)
    return groups[(page - 1) * size : page * size], pages


def _single(rows: Sequence[Row], i: int) -> Group:
    return Group(f"row:{rows[i].id}", "row", rows[i].layer, np.array([i], dtype=np.int64))


def axis(
    rows: Sequence[Row],
    indices: np.ndarray,
    *,
    drilled: str = "",
    page: int = 1,
    expand: Sequence[str] = (),
) -> tuple[list[Group], int]:
    """`indices` as groups, and how many pages of them there are: by project (the projects in
    `expand` row by row, in their place), a few rows or one project's rows one by one, past
    `GROUP_LIMIT` projects by layer × function. An axis narrowed to a group (`drilled` is its
    kind) is always shown finer than that group: a function's rows by project, a project's
    rows one by one."""
    by_project: dict[str, list[int]] = {}
    for i in indices:
        by_project.setdefault(rows[i].project, []).append(int(i))
    one_project = len(by_project) <= 1 and len(indices) <= ROW_LIMIT
    if len(indices) <= ROWS_SHOWN_UP_TO or one_project or drilled in ("project", "row"):
        return _page([_single(rows, i) for i in indices], page, ROW_LIMIT)
    if len(by_project) <= GROUP_LIMIT or drilled == "function":
        order = sorted(
            by_project,
            key=lambda p: (min(LAYER_ORDER.get(rows[i].layer, 9) for i in by_project[p]), p),
        )
        groups: list[Group] = []
        for p in order:
            if p in expand:
                groups += [_single(rows, i) for i in by_project[p]]
            else:
                layer = rows[by_project[p][0]].layer
                groups.append(Group(f"project:{p}", "project", layer, np.array(by_project[p])))
        return _page(groups, page, GROUP_LIMIT)
    by_function: dict[tuple[str, str], list[int]] = {}
    for i in indices:
        row = rows[i]
        for function in sorted(row.functions) or ["-"]:
            by_function.setdefault((row.layer, function), []).append(int(i))
    order = sorted(by_function, key=lambda lf: (LAYER_ORDER.get(lf[0], 9), lf[1]))
    functions = [
        Group(f"function:{layer}/{name}", "function", layer, np.array(by_function[(layer, name)]))
        for layer, name in order
    ]
    return functions, 1


def _group_lists(groups: list[Group], n: int) -> tuple[np.ndarray, np.ndarray]:
    """CSR of row -> the groups it is in: groups of row r are gids[indptr[r]:indptr[r + 1]]."""
    rows = np.concatenate([g.members for g in groups]) if groups else np.zeros(0, np.int64)
    gids = np.repeat(np.arange(len(groups)), [len(g.members) for g in groups])
    order = np.argsort(rows, kind="stable")
    indptr = np.concatenate(([0], np.cumsum(np.bincount(rows, minlength=n))))
    return indptr.astype(np.int64), gids[order]


def _expand(rows: np.ndarray, lists: tuple[np.ndarray, np.ndarray]) -> tuple[np.ndarray, ...]:
    """Each entry of `rows` once per group it is in: (entry position, group id)."""
    indptr, gids = lists
    starts, stops = indptr[rows], indptr[rows + 1]
    which = np.repeat(np.arange(len(rows)), stops - starts)
    return which, gids[concat_ranges(starts, stops)]


def _cell_counts(
    result: MatrixResult, y: list[Group], x: list[Group], hidden: Sequence[int] = ()
) -> np.ndarray:
    """Pairs per verdict between every y group and every x group (a pair of one group once).

    Only the stored pairs are visited; the rest of each cell is `independent` by construction:
    its ordered pairs of distinct rows minus the stored ones.
    """
    k, n = len(VERDICTS), len(result)
    counts = np.zeros((len(y), len(x), k), dtype=np.int64)
    if not y or not x:
        return counts.astype(np.uint32)
    y_lists, x_lists = _group_lists(y, n), _group_lists(x, n)
    y_rows = np.unique(np.concatenate([g.members for g in y]))
    x_rows = np.unique(np.concatenate([g.members for g in x]))
    stored = np.zeros(len(y) * len(x), dtype=np.int64)
    for a, b, flags in result.ordered_chunks(y_rows, x_rows):
        which_y, gy = _expand(a, y_lists)
        which_x, gx = _expand(b[which_y], x_lists)
        cell = gy[which_x] * len(x) + gx
        shown = stored_verdicts(flags)[which_y][which_x].astype(np.int64)
        stored += np.bincount(cell, minlength=len(stored))
        seen = shown >= 0
        counts.reshape(-1, k)[:] += np.bincount(
            cell[seen] * k + shown[seen], minlength=len(stored) * k
        ).reshape(-1, k)
    # ordered pairs of distinct rows per cell: |Y| |X| minus the rows in both
    both = np.intersect1d(y_rows, x_rows)
    which_y, gy = _expand(both, y_lists)
    which_x, gx = _expand(both[which_y], x_lists)
    shared = np.bincount(gy[which_x] * len(x) + gx, minlength=len(stored))
    sizes = np.outer([len(g.members) for g in y], [len(g.members) for g in x]).ravel()
    counts.reshape(-1, k)[:, _INDEPENDENT] += sizes - shared - stored
    counts[..., list(hidden)] = 0
    x_position = {g.key: j for j, g in enumerate(x)}
    for i, group in enumerate(y):
        j = x_position.get(group.key)
        if j is not None and np.array_equal(group.members, x[j].members):
            counts[i, j] //= 2  # both orders of each pair inside one group were counted
    return counts.astype(np.uint32)


def _codes(counts: np.ndarray) -> np.ndarray:
    """The verdict a cell is drawn in: the most frequent one other than `independent`, which
    only shows where nothing else does (it is half of all pairs in a real catalog)."""
    telling = counts.astype(np.int64)
    telling[..., _INDEPENDENT] = 0
    codes = telling.argmax(axis=-1).astype(np.uint8)
    nothing = telling.max(axis=-1) == 0
    codes[nothing] = np.where(counts[nothing][:, _INDEPENDENT] > 0, _INDEPENDENT, NO_VERDICT)
    return codes


def _totals(result: MatrixResult, y_rows: np.ndarray, x_rows: np.ndarray) -> np.ndarray:
    """Pairs per verdict between the two row sets, each unordered pair once."""
    n = len(result)
    in_y, in_x = np.zeros(n, dtype=bool), np.zeros(n, dtype=bool)
    in_y[y_rows], in_x[x_rows] = True, True
    tally = np.zeros(len(VERDICTS), dtype=np.int64)
    stored = 0
    for i, j, flags in result.stored_chunks(np.union1d(y_rows, x_rows)):
        keep = (in_y[i] & in_x[j]) | (in_y[j] & in_x[i])
        shown = stored_verdicts(flags[keep]).astype(np.int64)
        stored += int(keep.sum())
        tally += np.bincount(shown[shown >= 0], minlength=len(VERDICTS))
    both = len(np.intersect1d(y_rows, x_rows))
    pairs = len(y_rows) * len(x_rows) - both - both * (both - 1) // 2
    tally[_INDEPENDENT] += pairs - stored
    return tally


def blocks(result: MatrixResult, selection: Selection) -> Blocks:
    """The heatmap's axes and cells for `selection` (rows must be loaded in `result`)."""
    rows = result.rows or ()
    base = selected(rows, selection)
    if selection.near:
        base = np.intersect1d(base, neighbourhood(result, selection.near), assume_unique=True)
        base = np.array(
            sorted(base.tolist(), key=lambda i: (LAYER_ORDER.get(rows[i].layer, 9), rows[i].id)),
            dtype=np.int64,
        )
    y_rows = members_of(rows, base, selection.y)
    x_rows = members_of(rows, base, selection.x)
    y, y_pages = axis(
        rows, y_rows, drilled=selection.y.partition(":")[0], page=selection.y_page,
        expand=selection.expand,
    )  # fmt: skip
    x, x_pages = axis(
        rows, x_rows, drilled=selection.x.partition(":")[0], page=selection.x_page,
        expand=selection.expand,
    )  # fmt: skip
    hidden = [VERDICTS.index(v) for v in VERDICTS if v not in selection.verdicts]
    counts = _cell_counts(result, y, x, hidden if selection.verdicts else ())
    totals = _totals(result, np.sort(y_rows), np.sort(x_rows))
    return Blocks(
        y=y,
        x=x,
        counts=counts,
        codes=_codes(counts),
        totals={v: int(totals[i]) for i, v in enumerate(VERDICTS)},
        y_pages=y_pages,
        x_pages=x_pages,
    )
