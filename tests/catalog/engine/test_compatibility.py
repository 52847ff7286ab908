"""The vectorised matrix agrees with the pairwise oracle on every pair."""

from __future__ import annotations

import random

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from catalog.engine.compatibility import MatrixResult, compute_matrix
from catalog.engine.oracle import VERDICTS, matrix_oracle, pair_verdicts
from catalog.engine.rows import LAYERS, Row

UNITS = ("whole_gpu", "mig_slice", "vgpu", "time_slice", "none")
IDENTIFIERS = (
    "resource:nvidia.com/gpu",
    "resource:nvidia.com/gpumem",
    "resource:nvidia.com/mig-1g.10gb",
    "resource:nvidia.com/mig-2g.20gb",
    "crd:scheduling.volcano.sh/v1beta1/PodGroup",
    "capability:gang-scheduling",
    "capability:quota",
    "signal:dcgm/DCGM_FI_DEV_GPU_UTIL",
    # Baseline identifiers: they link only when the kubernetes-dra project provides them.
    "api:kubelet/device-plugin/v1beta1",
    "api:kubelet/dra-plugin/v1",
    "api:resource.k8s.io/v1/ResourceClaimTemplate",
    "resource:cpu",
    # Only one scheduler can assign some resources.
    "assigner:hami",
    "assigner:volcano-vgpu",
    # One row ships another project, or one row of it (issue 43).
    "contains:hami",
    "contains:volcano",
    "contains:kueue/row-1",
    "contains:nvidia/row-2",
)
PATTERNS = (
    *IDENTIFIERS,
    "resource:*",
    "resource:nvidia.com/mig-*",
    "capability:*",
    "*",
    "crd:scheduling.volcano.sh/*/PodGroup",
    "signal:dcgm/DCGM_FI_DEV_?PU_UTIL",
    "resource:nvidia.com/gpu[m]em",
    "api:resource.k8s.io/v1/*",
    "assigner:hami",
)
TOKENS = ("owner:node/nvidia-gpu", "owner:node/amd-gpu", "owner:node/nvidia-mig-layout")
PROJECTS = ("hami", "volcano", "kueue", "nvidia", "gpustack", "kubernetes-dra")
POINTS = ("driver_hardware", "runtime_interception", "scheduler", "admission", "platform")
FUNCTIONS = ("present", "observe", "quota", "gang", "device_placement", "allocation", "serving")


def small_set(values: tuple[str, ...], max_size: int = 3) -> st.SearchStrategy[frozenset[str]]:
    return st.frozensets(st.sampled_from(values), max_size=max_size)


@st.composite
def catalogs(draw: st.DrawFn, max_rows: int = 40) -> list[Row]:
    count = draw(st.integers(min_value=0, max_value=max_rows))
    rows = []
    for i in range(count):
        rows.append(
            Row.create(
                draw(st.sampled_from(PROJECTS)),
                f"row-{i}",
                draw(st.sampled_from(LAYERS)),
                resource_units=draw(small_set(UNITS, 2)),
                enforcement_points=draw(small_set(POINTS, 2)),
                functions=draw(small_set(FUNCTIONS, 3)),
                provides=draw(small_set(IDENTIFIERS)),
                requires=draw(small_set(PATTERNS, 2)),
                accepts=draw(small_set(PATTERNS, 2)),
                exclusive=draw(small_set(TOKENS, 2)),
            )
        )
    return rows


def assert_matches_oracle(rows: list[Row], matrix: MatrixResult) -> None:
    n = len(rows)
    assert matrix.verdict.shape == (n, n)
    assert matrix.holds.shape == (n, n)
    assert (matrix.verdict == matrix.verdict.T).all()
    assert (np.diag(matrix.verdict) == -1).all()
    pairs = iter(matrix_oracle(rows))
    for i in range(n):
        for j in range(i + 1, n):
            expected = next(pairs)
            assert matrix.verdict_of(i, j) == expected.verdict, (rows[i], rows[j])
            assert matrix.holds_of(i, j) == expected.holds, (rows[i], rows[j])


@settings(max_examples=100, deadline=None)
@given(catalogs())
def test_engine_verdicts_and_holds_equal_the_oracle_for_every_pair(rows: list[Row]) -> None:
    assert_matches_oracle(rows, compute_matrix(rows))


@settings(max_examples=25, deadline=None)
@given(catalogs())
def test_a_snapshot_round_trips_through_bytes(rows: list[Row]) -> None:
    matrix = compute_matrix(rows)
    loaded = MatrixResult.from_bytes(matrix.to_bytes(), rows)
    assert loaded.row_ids == matrix.row_ids
    assert loaded.projects == matrix.projects
    assert (loaded.holds == matrix.holds).all()
    assert (loaded.verdict == matrix.verdict).all()
    assert loaded.counts() == matrix.counts()


@settings(max_examples=50, deadline=None)
@given(catalogs(max_rows=12))
def test_explaining_a_pair_returns_the_oracle_result(rows: list[Row]) -> None:
    matrix = compute_matrix(rows)
    for i in range(len(rows)):
        for j in range(len(rows)):
            if i != j:
                assert matrix.pair(i, j) == pair_verdicts(rows[i], rows[j])


def test_a_300_row_random_catalog_agrees_with_the_oracle() -> None:
    rng = random.Random(300)
    rows = [
        Row.create(
            rng.choice(PROJECTS),
            f"row-{i}",
            rng.choice(LAYERS),
            resource_units=rng.sample(UNITS, rng.randint(0, 2)),
            enforcement_points=rng.sample(POINTS, rng.randint(0, 2)),
            functions=rng.sample(FUNCTIONS, rng.randint(0, 3)),
            provides=rng.sample(IDENTIFIERS, rng.randint(0, 3)),
            requires=rng.sample(PATTERNS, rng.randint(0, 2)),
            accepts=rng.sample(PATTERNS, rng.randint(0, 2)),
            exclusive=rng.sample(TOKENS, rng.randint(0, 1)),
        )
        for i in range(300)
    ]
    assert_matches_oracle(rows, compute_matrix(rows))


def test_counts_tally_each_pair_once_by_its_shown_verdict() -> None:
    rows = [
        Row.create("a", "x", "data_plane", resource_units={"whole_gpu"}, exclusive={"t"}),
        Row.create("b", "x", "data_plane", resource_units={"whole_gpu"}, exclusive={"t"}),
        Row.create("c", "x", "control_plane"),
    ]
    assert compute_matrix(rows).counts() == {
        "contains": 0,
        "conflicts": 1,
        "composes": 0,
        "competes": 0,
        "incomparable": 0,
        "complements": 0,
        "independent": 2,
    }


def test_the_holds_bits_follow_the_verdicts_tuple() -> None:
    rows = [
        Row.create(
            "a",
            "x",
            "data_plane",
            resource_units={"vgpu"},
            functions={"present"},
            provides={"crd:x/v1/A"},
        ),
        Row.create(
            "b",
            "x",
            "data_plane",
            resource_units={"vgpu"},
            functions={"present"},
            requires={"crd:*"},
        ),
    ]
    matrix = compute_matrix(rows)
    # Issue 27: a consumer and the interface it consumes are not rivals (complements).
    assert matrix.holds[0, 1] == (1 << VERDICTS.index("composes")) | (
        1 << VERDICTS.index("complements")
    )


def test_same_project_is_derivable_from_the_matrix() -> None:
    rows = [
        Row.create("hami", "device-plugin", "data_plane"),
        Row.create("hami", "scheduler", "control_plane"),
        Row.create("volcano", "scheduler", "control_plane"),
    ]
    same = compute_matrix(rows).same_project
    assert same.tolist() == [[False, True, False], [True, False, False], [False, False, False]]


def test_explain_takes_row_ids() -> None:
    rows = [
        Row.create("a", "x", "data_plane", provides={"resource:example.com/gpu"}),
        Row.create("b", "x", "control_plane", accepts={"resource:*"}),
    ]
    assert compute_matrix(rows).explain("b/x", "a/x").verdict == "composes"


def test_a_snapshot_loaded_without_rows_cannot_explain() -> None:
    rows = [Row.create("a", "x", "data_plane"), Row.create("b", "x", "platform")]
    loaded = MatrixResult.from_bytes(compute_matrix(rows).to_bytes())
    assert loaded.verdict_of(0, 1) == "independent"
    with pytest.raises(ValueError, match="without its rows"):
        loaded.pair(0, 1)


def test_bytes_that_are_not_a_snapshot_are_refused() -> None:
    with pytest.raises(ValueError, match="bad magic"):
        MatrixResult.from_bytes(b"not a matrix")


def test_duplicate_row_ids_are_refused() -> None:
    row = Row.create("a", "x", "data_plane")
    with pytest.raises(ValueError, match="unique"):
        compute_matrix([row, row])


def test_an_empty_catalog_has_an_empty_matrix() -> None:
    matrix = compute_matrix([])
    assert matrix.verdict.shape == (0, 0)
    assert sum(matrix.counts().values()) == 0
    assert MatrixResult.from_bytes(matrix.to_bytes()).row_ids == ()


@settings(max_examples=100, deadline=None)
@given(catalogs())
def test_no_pair_whose_only_common_unit_is_none_competes(rows: list[Row]) -> None:
    matrix = compute_matrix(rows)
    for i in range(len(rows)):
        for j in range(i + 1, len(rows)):
            if not (rows[i].resource_units & rows[j].resource_units) - {"none"}:
                assert "competes" not in matrix.holds_of(i, j), (rows[i], rows[j])


@settings(max_examples=100, deadline=None)
@given(catalogs())
def test_a_governance_row_and_a_placement_only_row_never_compete(rows: list[Row]) -> None:
    governance = {"quota", "fair_sharing", "preemption", "gang"}
    matrix = compute_matrix(rows)
    for i in range(len(rows)):
        for j in range(i + 1, len(rows)):
            a, b = rows[i], rows[j]
            if a.layer != "control_plane" or b.layer != "control_plane":
                continue
            for governor, helper in ((a, b), (b, a)):
                if governor.functions & governance and helper.functions <= {"device_placement"}:
                    assert "competes" not in matrix.holds_of(i, j), (a, b)


@settings(max_examples=100, deadline=None)
@given(catalogs())
def test_the_shown_verdict_is_the_first_that_holds_in_display_order(rows: list[Row]) -> None:
    matrix = compute_matrix(rows)
    for i in range(len(rows)):
        for j in range(i + 1, len(rows)):
            holds = matrix.holds_of(i, j)
            assert holds, (rows[i], rows[j])
            assert list(holds) == sorted(holds, key=VERDICTS.index)
            assert matrix.verdict_of(i, j) == holds[0]
            # Exactly one of the layer-level verdicts holds on one layer, none across layers,
            # and none for a part and its whole (issue 43).
            layered = {"competes", "incomparable", "complements"} & set(holds)
            compared = rows[i].layer == rows[j].layer and "contains" not in holds
            assert len(layered) == (1 if compared else 0)


@settings(max_examples=50, deadline=None)
@given(catalogs(max_rows=12))
def test_a_row_is_never_paired_with_itself(rows: list[Row]) -> None:
    matrix = compute_matrix(rows)
    for i, row in enumerate(rows):
        assert matrix.verdict[i, i] == -1
        assert matrix.holds[i, i] == 0
        with pytest.raises(ValueError, match="paired with itself"):
            pair_verdicts(row, row)
        with pytest.raises(ValueError, match="paired with itself"):
            matrix.pair(i, i)
