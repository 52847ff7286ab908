"""The matrix at any size: axes of rows, projects or layer × function blocks, and drill-down."""

import numpy as np
import pytest

from catalog.engine.compatibility import compute_matrix
from catalog.engine.oracle import VERDICTS
from catalog.matrix.blocks import GROUP_LIMIT, NO_VERDICT, ROW_LIMIT, Selection, blocks
from tests.factories import builtin_rows, scaled_rows


@pytest.fixture(scope="module")
def builtin():
    return compute_matrix(list(builtin_rows().values()))


@pytest.fixture(scope="module")
def big():
    return compute_matrix(scaled_rows(2000, 500))


def test_the_built_in_catalog_is_shown_by_project_with_every_pair_counted(builtin):
    shown = blocks(builtin, Selection())

    projects = {row.project for row in builtin.rows}
    assert {g.kind for g in shown.y} == {"project"}
    assert len(shown.y) == len(shown.x) == len(projects)
    assert shown.totals == builtin.counts()
    hami = [g.key for g in shown.y].index("project:hami")
    kueue = [g.key for g in shown.x].index("project:kueue")
    pairs = sum(
        1
        for i, row in enumerate(builtin.rows)
        if row.project == "hami"
        for j, other in enumerate(builtin.rows)
        if other.project == "kueue"
    )
    assert shown.counts[hami, kueue].sum() == pairs  # every pair of their rows, once
    # Documented: HAMi's device plugin composes with Kueue.
    assert shown.counts[hami, kueue, VERDICTS.index("composes")] >= 1


def test_an_expanded_project_shows_its_rows_in_place_and_their_pairs_add_up(builtin):
    folded = blocks(builtin, Selection())
    expanded = blocks(builtin, Selection(expand=("hami",)))

    keys = [g.key for g in expanded.y]
    hami_rows = sorted(r.id for r in builtin.rows if r.project == "hami")
    assert "project:hami" not in keys
    assert sorted(k[4:] for k in keys if k.startswith("row:")) == hami_rows
    assert len(keys) == len(folded.y) - 1 + len(hami_rows)
    # The rows' cells against Kueue add up to the folded project's cell.
    kueue = [g.key for g in expanded.x].index("project:kueue")
    rows = [keys.index(f"row:{row}") for row in hami_rows]
    folded_cell = folded.counts[
        [g.key for g in folded.y].index("project:hami"),
        [g.key for g in folded.x].index("project:kueue"),
    ]
    assert expanded.counts[rows, kueue].sum(axis=0).tolist() == folded_cell.tolist()
    hami, kueue_row = keys.index("row:hami/device-plugin"), builtin.index("kueue/controller")
    assert VERDICTS[expanded.codes[hami, kueue]] == builtin.verdict_of(
        builtin.index("hami/device-plugin"), kueue_row
    )


def test_a_stack_of_a_few_rows_is_shown_row_by_row_with_one_pair_per_cell(builtin):
    stack = ("hami/device-plugin", "kueue/controller", "volcano/scheduler")
    shown = blocks(builtin, Selection(rows=stack))

    assert shown.rows_only
    assert sorted(g.value for g in shown.y) == sorted(stack)
    y = [g.key for g in shown.y].index("row:hami/device-plugin")
    x = [g.key for g in shown.x].index("row:kueue/controller")
    assert VERDICTS[shown.codes[y, x]] == "composes"
    assert shown.codes[y, y] == NO_VERDICT  # a row with itself is not a pair


def test_a_projects_neighbourhood_holds_its_rows_and_what_composes_with_them(builtin):
    shown = blocks(builtin, Selection(near="hami"))

    ids = {builtin.rows[int(i)].id for g in shown.y for i in g.members}
    hami = {r.id for r in builtin.rows if r.project == "hami"}
    composes = {
        builtin.rows[j].id
        for i, row in enumerate(builtin.rows)
        if row.project == "hami"
        for j in range(len(builtin.rows))
        if j != i and "composes" in builtin.holds_of(i, j)
    }
    assert ids == hami | composes
    assert {"kueue/controller", "hami-core/libvgpu"} <= ids  # documented partners


def test_two_thousand_rows_are_shown_as_layer_by_function_blocks_that_count_every_pair(big):
    shown = blocks(big, Selection())

    assert {g.kind for g in shown.y} == {"function"}
    assert len(shown.y) <= 30
    assert shown.totals == big.counts()
    sizes = {g.key: len(g.members) for g in shown.y}
    present = "function:data_plane/present"
    cell = shown.counts[list(sizes).index(present), list(sizes).index(present)]
    n = sizes[present]
    assert cell.sum() == n * (n - 1) // 2  # every pair inside the block, once


def test_a_block_opens_on_its_projects_and_a_project_pair_on_its_rows(big):
    drilled = blocks(
        big, Selection(y="function:data_plane/present", x="function:control_plane/quota")
    )
    assert {g.kind for g in drilled.y} == {g.kind for g in drilled.x} == {"project"}
    assert len(drilled.y) <= GROUP_LIMIT
    assert "project:hami" in [g.key for g in drilled.y]
    assert "project:kueue" in [g.key for g in drilled.x]
    quota_rows = {i for g in drilled.x for i in g.members}
    assert all("quota" in big.rows[i].functions for i in quota_rows)

    rows = blocks(big, Selection(y="project:hami", x="project:kueue"))
    assert rows.rows_only
    y = [g.key for g in rows.y].index("row:hami/device-plugin")
    x = [g.key for g in rows.x].index("row:kueue/controller")
    assert VERDICTS[rows.codes[y, x]] == "composes"


def test_the_layer_filter_narrows_the_axes_and_the_counts(big):
    shown = blocks(big, Selection(layers=("control_plane",)))

    rows = big.rows
    control = [i for i, row in enumerate(rows) if row.layer == "control_plane"]
    assert len(control) > ROW_LIMIT
    assert {g.kind for g in shown.y} == {"project"}
    assert sum(shown.totals.values()) == len(control) * (len(control) - 1) // 2
    assert shown.totals["conflicts"] == 0  # ownership tokens belong to the data plane


def test_the_verdict_filter_recolours_cells_but_keeps_the_counts(builtin):
    everything = blocks(builtin, Selection())
    conflicts = blocks(builtin, Selection(verdicts=("conflicts",)))

    shown = set(np.unique(conflicts.codes)) - {NO_VERDICT}
    assert shown == {VERDICTS.index("conflicts")}
    assert conflicts.totals == everything.totals


def test_an_unknown_group_is_refused_with_the_kinds_it_takes(builtin):
    with pytest.raises(ValueError, match="row:, project: or function:"):
        blocks(builtin, Selection(y="layer:data_plane"))
