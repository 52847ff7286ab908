"""Issue 28 H1: the heatmap, its totals and the pair listing read the sparse pairs and equal a
dense reference (the readers before the sparse format) on random catalogs."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import catalog.matrix.blocks as blocks_module
from catalog.engine.compatibility import compute_matrix
from catalog.engine.oracle import VERDICTS
from catalog.matrix.blocks import Selection, blocks
from catalog.matrix.selectors import CellFilter, pair_count, pair_positions, selected_indices
from tests.catalog.engine.test_compatibility import catalogs


def _dense_cells(verdict, y, x, hidden):
    counts = np.zeros((len(y), len(x), len(VERDICTS)), dtype=np.int64)
    for a, group_y in enumerate(y):
        for b, group_x in enumerate(x):
            for i in group_y.members:
                for j in group_x.members:
                    v = verdict[i, j]
                    if i != j and v >= 0 and v not in hidden:
                        counts[a, b, v] += 1
            if group_y.key == group_x.key and np.array_equal(group_y.members, group_x.members):
                counts[a, b] //= 2
    return counts


def _dense_totals(verdict, y_rows, x_rows):
    seen, tally = set(), np.zeros(len(VERDICTS), dtype=np.int64)
    for i in y_rows:
        for j in x_rows:
            if i != j and (min(i, j), max(i, j)) not in seen:
                seen.add((min(i, j), max(i, j)))
                tally[verdict[i, j]] += 1
    return tally


@pytest.mark.parametrize("limit", [3, 150])
@settings(max_examples=40, deadline=None)
@given(rows=catalogs(), data=st.data())
def test_cell_counts_and_totals_equal_a_dense_reference(rows, data, limit):
    with pytest.MonkeyPatch.context() as patch:
        # a small limit groups rows by project or layer x function, as at thousands of rows
        patch.setattr(blocks_module, "ROW_LIMIT", limit)
        patch.setattr(blocks_module, "ROWS_SHOWN_UP_TO", limit)
        patch.setattr(blocks_module, "GROUP_LIMIT", limit)
        _check_blocks(rows, data)


def _check_blocks(rows, data):
    matrix = compute_matrix(rows)
    verdicts = tuple(data.draw(st.lists(st.sampled_from(VERDICTS), max_size=3, unique=True)))
    layers = tuple(data.draw(st.lists(st.sampled_from(["data_plane", "platform"]), max_size=1)))
    selection = Selection(layers=layers, verdicts=verdicts)
    shown = blocks(matrix, selection)
    hidden = {VERDICTS.index(v) for v in VERDICTS if verdicts and v not in verdicts}
    expected = _dense_cells(matrix.verdict, shown.y, shown.x, hidden)
    assert shown.counts.tolist() == expected.tolist()
    everything = np.unique(np.concatenate([g.members for g in shown.y] or [np.zeros(0, int)]))
    totals = _dense_totals(matrix.verdict, everything, everything)
    assert [shown.totals[v] for v in VERDICTS] == totals.tolist()


@settings(max_examples=40, deadline=None)
@given(rows=catalogs(), data=st.data())
def test_the_pair_listing_pages_equal_the_dense_listing(rows, data):
    matrix = compute_matrix(rows)
    verdicts = tuple(data.draw(st.lists(st.sampled_from(VERDICTS), max_size=2, unique=True)))
    selection = CellFilter(verdicts=verdicts)
    order = selected_indices(matrix, selection)
    dense = matrix.verdict
    expected = [
        (order[p], order[q])
        for p in range(len(order))
        for q in range(p + 1, len(order))
        if not verdicts or VERDICTS[dense[order[p], order[q]]] in verdicts
    ]
    assert pair_count(matrix, selection) == len(expected)
    offset = data.draw(st.integers(min_value=0, max_value=len(expected) + 2))
    limit = data.draw(st.integers(min_value=1, max_value=30))
    i, j = pair_positions(matrix, selection, offset=offset, limit=limit)
    assert list(zip(i.tolist(), j.tolist(), strict=True)) == expected[offset : offset + limit]
