"""Issue 28 H1: the matrix computed a band of rows at a time and stored sparsely."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from catalog.engine.compatibility import (
    INDEPENDENT_ONLY,
    MatrixResult,
    MatrixTooLarge,
    compute_matrix,
)
from catalog.engine.rows import Row
from tests.catalog.engine.test_compatibility import assert_matches_oracle, catalogs


def _same_pairs(a: MatrixResult, b: MatrixResult) -> None:
    assert a.row_ids == b.row_ids
    assert a.pair_i.tolist() == b.pair_i.tolist()
    assert a.pair_j.tolist() == b.pair_j.tolist()
    assert a.pair_flags.tolist() == b.pair_flags.tolist()


@settings(max_examples=60, deadline=None)
@given(catalogs(), st.integers(min_value=1, max_value=200))
def test_any_band_and_tile_size_gives_the_same_pairs_and_agrees_with_the_oracle(rows, cells):
    # `cells` as small as 1 pair per tile: bands of one row and many column tiles per band.
    banded = compute_matrix(rows, cells=cells)
    _same_pairs(banded, compute_matrix(rows))
    assert_matches_oracle(rows, banded)


@settings(max_examples=40, deadline=None)
@given(catalogs())
def test_only_pairs_that_are_not_exactly_independent_are_stored_in_order(rows):
    matrix = compute_matrix(rows)
    assert (matrix.pair_i < matrix.pair_j).all()
    assert (matrix.pair_flags != INDEPENDENT_ONLY).all()
    keys = matrix.pair_i.astype(np.int64) * max(len(rows), 1) + matrix.pair_j
    assert (np.diff(keys) > 0).all()
    dense = matrix.holds
    upper = np.triu(np.ones(dense.shape, dtype=bool), k=1)
    assert int((upper & (dense != INDEPENDENT_ONLY)).sum()) == len(matrix.pair_flags)


@settings(max_examples=40, deadline=None)
@given(catalogs())
def test_a_v3_snapshot_round_trips_every_pair(rows):
    matrix = compute_matrix(rows, cells=7)
    data = matrix.to_bytes()
    loaded = MatrixResult.from_bytes(data, rows)
    _same_pairs(loaded, matrix)
    assert loaded.counts() == matrix.counts()
    for i in range(len(rows)):
        for j in range(len(rows)):
            assert loaded.flags_of(i, j) == matrix.flags_of(i, j)


def test_a_v2_snapshot_is_refused_so_it_is_recomputed():
    import json
    import struct
    import zlib

    header = json.dumps({"format": "ecomap.matrix/v2", "verdicts": [], "row_ids": []}).encode()
    v2 = b"EMX1" + zlib.compress(struct.pack(">I", len(header)) + header)
    with pytest.raises(ValueError, match="unsupported matrix snapshot format 'ecomap.matrix/v2'"):
        MatrixResult.from_bytes(v2)


def test_a_truncated_snapshot_is_refused():
    rows = [
        Row.create("a", "x", "data_plane", resource_units={"whole_gpu"}, exclusive={"t"}),
        Row.create("b", "x", "data_plane", resource_units={"whole_gpu"}, exclusive={"t"}),
    ]
    data = compute_matrix(rows).to_bytes()
    payload = zlib_payload(data)
    with pytest.raises(ValueError, match="truncated"):
        MatrixResult.from_bytes(b"EMX1" + __import__("zlib").compress(payload[:-1]))


def zlib_payload(data: bytes) -> bytes:
    import zlib

    return zlib.decompress(data[4:])


def test_more_stored_pairs_than_the_budget_stop_the_engine():
    rows = [Row.create(f"p{i}", "x", "data_plane", exclusive={"owner:node/gpu"}) for i in range(50)]
    with pytest.raises(MatrixTooLarge, match="more than 100 pairs"):
        compute_matrix(rows, max_pairs=100, cells=256)
    assert len(compute_matrix(rows, max_pairs=50 * 49 // 2).pair_flags) == 50 * 49 // 2


def test_a_catalog_where_nothing_is_related_stores_no_pair():
    layers = ("data_plane", "control_plane", "platform")
    rows = [Row.create(f"p{i}", "x", layers[i]) for i in range(3)]
    matrix = compute_matrix(rows)
    assert len(matrix.pair_flags) == 0
    assert matrix.counts()["independent"] == 3
    assert matrix.verdict_of(0, 2) == "independent"


def test_index_finds_each_row_and_names_an_unknown_one():
    rows = [Row.create(f"p{i}", "x", "platform") for i in range(500)]
    matrix = compute_matrix(rows)
    assert [matrix.index(f"p{i}/x") for i in range(500)] == list(range(500))
    with pytest.raises(KeyError, match="nope"):
        matrix.index("nope")


def test_a_band_holds_a_bounded_number_of_pairs():
    from catalog.engine.matrix_tiles import tile_rows

    assert tile_rows(100_000, 16 * 2**20) * 100_000 <= 16 * 2**20
    assert tile_rows(1_000_000, 16 * 2**20) >= 1


def test_map_contracts_of_a_catalog_past_the_pair_budget_are_empty_not_a_crash(monkeypatch):
    import catalog.engine.map_layout as map_layout

    rows = [
        Row.create("a", "x", "data_plane", provides={"resource:example.com/gpu"}),
        Row.create("b", "x", "control_plane", accepts={"resource:*"}),
    ]
    assert len(map_layout.catalog_contracts(rows).links) == 1
    monkeypatch.setattr(map_layout, "CONTRACT_MAX_PAIRS", 0)
    assert map_layout.catalog_contracts(rows) == map_layout.Contracts((), ())
