"""What the aggregated map draws and how tangled it is: bundles per project pair, conflicts off
on request, each row's contract list, and the crossing counter on hand-built segments."""

from __future__ import annotations

from catalog.engine.map_focus import (
    contracts_of_project,
    count_crossings,
    focus_rows,
    layout_crossings,
    map_focus_query,
    pool_of,
    row_contracts,
    segments_cross,
)
from catalog.engine.map_layout import catalog_contracts, layout_map
from catalog.engine.rows import Row

GPU_OWNER = "owner:node/nvidia-gpu"


def test_two_segments_that_form_an_x_cross_once():
    assert segments_cross(((0, 0), (2, 2)), ((0, 2), (2, 0)))
    assert count_crossings([[(0, 0), (2, 2)], [(0, 2), (2, 0)]]) == 1


def test_edges_that_meet_at_a_node_do_not_cross():
    # Two edges leaving one node, and a T where one edge ends on the other's end point.
    assert count_crossings([[(0, 0), (2, 2)], [(0, 0), (2, -2)]]) == 0
    assert not segments_cross(((0, 0), (2, 0)), ((2, 0), (2, 2)))


def test_parallel_and_collinear_segments_do_not_cross():
    assert count_crossings([[(0, 0), (4, 0)], [(0, 1), (4, 1)]]) == 0
    assert count_crossings([[(0, 0), (4, 0)], [(1, 0), (3, 0)]]) == 0


def test_segments_whose_boxes_overlap_but_miss_each_other_do_not_cross():
    assert count_crossings([[(0, 0), (4, 4)], [(3, 0), (4, 1)]]) == 0


def test_a_polyline_crossing_a_line_three_times_counts_three_and_never_crosses_itself():
    zigzag = [(0, 0), (1, 2), (2, 0), (3, 2)]
    line = [(0, 1), (3, 1)]
    assert count_crossings([zigzag, line]) == 3
    loop = [(0, 0), (2, 2), (2, 0), (0, 2)]  # crosses itself once
    assert count_crossings([loop]) == 0


def test_three_lines_through_one_grid_count_every_pair():
    # Two horizontal lines and two vertical ones: four crossings.
    lines = [[(0, 1), (3, 1)], [(0, 2), (3, 2)], [(1, 0), (1, 3)], [(2, 0), (2, 3)]]
    assert count_crossings(lines) == 4


def two_projects() -> list[Row]:
    """A device plugin project with two rows, both used by two rows of one scheduler project;
    a second plugin that conflicts with the first."""
    return [
        Row.create(
            "gpu",
            "plugin",
            "data_plane",
            resource_units={"whole_gpu"},
            provides={"resource:example.com/gpu"},
            exclusive={GPU_OWNER},
        ),  # fmt: skip
        Row.create(
            "gpu",
            "exporter",
            "data_plane",
            resource_units={"none"},
            provides={"signal:example/util"},
        ),  # fmt: skip
        Row.create(
            "sched",
            "queue",
            "control_plane",
            resource_units={"whole_gpu"},
            requires={"resource:example.com/gpu"},
            accepts={"signal:example/*"},
        ),  # fmt: skip
        Row.create(
            "sched",
            "admission",
            "control_plane",
            resource_units={"whole_gpu"},
            requires={"resource:example.com/gpu"},
        ),  # fmt: skip
        Row.create(
            "other", "plugin", "data_plane", resource_units={"whole_gpu"}, exclusive={GPU_OWNER}
        ),  # fmt: skip
    ]


def test_the_aggregated_layout_draws_one_edge_per_project_pair_with_its_count():
    rows = two_projects()
    contracts = catalog_contracts(rows)
    # gpu/plugin -> sched/queue, gpu/plugin -> sched/admission, gpu/exporter -> sched/queue
    row_pairs = {(link.provider, link.consumer) for link in contracts.links}
    assert len(row_pairs) == 3

    layout = layout_map(rows, contracts=contracts, bundle=True, conflicts=False)

    composes = [edge for edge in layout.edges if edge.kind == "composes"]
    assert len(composes) == 1
    assert composes[0].count == 3
    assert set(composes[0].pairs) == row_pairs
    assert composes[0].relation == "requires"  # a hard dependency among the bundled links


def test_conflicts_are_left_out_when_not_asked_for():
    rows = two_projects()
    contracts = catalog_contracts(rows)

    without = layout_map(rows, contracts=contracts, conflicts=False)
    with_them = layout_map(rows, contracts=contracts)

    assert not [edge for edge in without.edges if edge.kind == "conflicts"]
    conflicts = [edge for edge in with_them.edges if edge.kind == "conflicts"]
    assert [(e.source, e.target) for e in conflicts] == [("gpu/plugin", "other/plugin")]


def test_bundling_and_dropping_conflicts_leave_fewer_crossings():
    rows = two_projects()
    contracts = catalog_contracts(rows)
    before = layout_map(rows, contracts=contracts, straight=True)
    after = layout_map(rows, contracts=contracts, straight=True, bundle=True, conflicts=False)

    assert layout_crossings(after) <= layout_crossings(before)
    assert len(after.edges) < len(before.edges)


def test_each_row_lists_what_it_uses_provides_and_conflicts_with():
    rows = two_projects()
    lists = row_contracts(rows, catalog_contracts(rows))

    queue = {(c.relation, c.partner) for c in lists["sched/queue"]}
    assert queue == {("uses", "gpu/plugin"), ("uses", "gpu/exporter")}
    exporter = [c for c in lists["gpu/exporter"] if c.relation == "provides_to"]
    assert [(c.partner, c.optional) for c in exporter] == [("sched/queue", True)]
    plugin = {(c.relation, c.partner) for c in lists["gpu/plugin"]}
    assert ("conflicts", "other/plugin") in plugin
    assert [(c.relation, c.partner) for c in lists["other/plugin"]] == [("conflicts", "gpu/plugin")]


def test_a_projects_card_contracts_equal_the_catalog_wide_ones():
    rows = two_projects()
    everything = row_contracts(rows, catalog_contracts(rows))
    card = row_contracts(rows, contracts_of_project(rows, "gpu"))

    for row_id in ("gpu/plugin", "gpu/exporter"):
        assert card[row_id] == everything[row_id]


def test_a_focus_names_rows_or_whole_projects_and_pools_map_rows_to_their_pool():
    rows = two_projects()

    assert focus_rows(rows, ["sched", "gpu/plugin", "nope/x"]) == [
        "gpu/plugin",
        "sched/queue",
        "sched/admission",
    ]
    assert pool_of({"hard": ["gpu/plugin"], "shared": ["sched"]}, rows) == {
        "gpu/plugin": "hard",
        "sched/queue": "shared",
        "sched/admission": "shared",
    }


def test_the_focus_query_carries_rows_and_pools():
    query = map_focus_query(rows=["a/x", "b/y"], pools={"hard": ["a/x"]})
    assert query == "rows=a%2Fx%2Cb%2Fy&pool=hard%3Aa%2Fx"


def test_the_aggregated_layout_folds_conflicts_per_project_pair_too():
    rows = [
        *two_projects(),
        Row.create(
            "other", "plugin-b", "data_plane", resource_units={"whole_gpu"}, exclusive={GPU_OWNER}
        ),  # fmt: skip
    ]
    contracts = catalog_contracts(rows)
    # gpu/plugin conflicts with both of other's plugins (which also conflict with each other).
    layout = layout_map(rows, contracts=contracts, bundle=True)

    conflicts = [
        edge
        for edge in layout.edges
        if edge.kind == "conflicts" and edge.source.split("/")[0] != edge.target.split("/")[0]
    ]
    assert len(conflicts) == 1
    assert set(conflicts[0].pairs) == {
        ("gpu/plugin", "other/plugin"),
        ("gpu/plugin", "other/plugin-b"),
    }
    assert conflicts[0].labels == (GPU_OWNER,)
