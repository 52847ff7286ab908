"""The map layout engine: bands, unique positions, columns by unit, edges equal to the links."""

from __future__ import annotations

import random

import pytest

from catalog.engine.map_layout import BANDS, catalog_contracts, layout_map
from catalog.engine.oracle import links_between
from catalog.engine.rows import Row

UNITS = ("whole_gpu", "mig_slice", "vgpu", "time_slice", "mps_share", "memory_compute_quota")
POINTS = ("driver_hardware", "runtime_interception", "scheduler", "admission", "platform")
GPU_OWNER = "owner:node/nvidia-gpu"


def small_catalog() -> list[Row]:
    return [
        Row.create(
            "nvidia-device-plugin",
            "whole-gpu",
            "data_plane",
            resource_units={"whole_gpu"},
            enforcement_points={"driver_hardware"},
            provides={"resource:nvidia.com/gpu"},
            exclusive={GPU_OWNER},
        ),
        Row.create(
            "nvidia-device-plugin",
            "mig-mixed",
            "data_plane",
            resource_units={"mig_slice"},
            enforcement_points={"driver_hardware"},
            provides={"resource:nvidia.com/mig-1g.10gb"},
            exclusive={GPU_OWNER},
        ),
        Row.create(
            "hami",
            "device-plugin",
            "data_plane",
            resource_units={"vgpu", "memory_compute_quota"},
            enforcement_points={"runtime_interception"},
            provides={"resource:nvidia.com/gpumem", "resource:nvidia.com/gpu"},
            exclusive={GPU_OWNER},
        ),
        Row.create(
            "hami",
            "scheduler-extender",
            "control_plane",
            resource_units={"vgpu"},
            enforcement_points={"scheduler"},
            requires={"resource:nvidia.com/gpumem"},
        ),
        Row.create(
            "volcano",
            "scheduler",
            "control_plane",
            resource_units={"whole_gpu", "mig_slice"},
            enforcement_points={"scheduler", "admission"},
            provides={"capability:gang-scheduling"},
            accepts={"resource:*"},
        ),
        Row.create(
            "kubeflow",
            "trainer",
            "platform",
            resource_units={"whole_gpu"},
            enforcement_points={"platform"},
            requires={"capability:gang-scheduling"},
        ),
    ]


def synthetic_catalog(size: int, seed: int = 7) -> list[Row]:
    rng = random.Random(seed)
    return [
        Row.create(
            f"project-{i // 3:04d}",
            f"row-{i % 3}",
            rng.choice(BANDS),
            resource_units=rng.sample(UNITS, rng.randint(1, 3)),
            enforcement_points=rng.sample(POINTS, 1),
            provides={f"resource:example.com/r{rng.randint(0, 30)}"},
            requires={f"resource:example.com/r{rng.randint(0, 30)}"} if rng.random() < 0.3 else (),
            exclusive={GPU_OWNER} if rng.random() < 0.05 else (),
        )
        for i in range(size)
    ]


def layout_of(rows: list[Row], **options):
    return layout_map(
        rows,
        contracts=catalog_contracts(rows),
        unit_order=UNITS,
        point_order=POINTS,
        **options,
    )


@pytest.mark.parametrize("rows", [small_catalog(), synthetic_catalog(2000)], ids=["small", "2000"])
def test_every_row_is_a_node_inside_its_layers_band(rows):
    layout = layout_of(rows)

    assert sorted(node.row_id for node in layout.nodes) == sorted(row.id for row in rows)
    for node in layout.nodes:
        band = BANDS.index(node.layer)
        assert band < node.y < band + 1


def test_the_platform_band_is_on_top_and_the_data_plane_at_the_bottom():
    layout = layout_of(small_catalog())

    ys = {node.layer: node.y for node in layout.nodes}
    assert ys["platform"] > ys["control_plane"] > ys["data_plane"]


@pytest.mark.parametrize("rows", [small_catalog(), synthetic_catalog(2000)], ids=["small", "2000"])
def test_no_two_nodes_share_a_position(rows):
    layout = layout_of(rows)

    assert len({(node.x, node.y) for node in layout.nodes}) == len(rows)


def test_rows_sit_in_the_column_of_their_coarsest_unit_in_every_band():
    layout = layout_of(small_catalog())

    columns = {column.unit: column for column in layout.columns}
    for node in layout.nodes:
        assert columns[node.unit].x0 < node.x < columns[node.unit].x1
    assert layout.node("volcano/scheduler").unit == "whole_gpu"
    assert layout.node("hami/device-plugin").unit == "vgpu"
    # competitors of one unit share a column: the whole-GPU plugin sits under Volcano
    assert (
        layout.node("nvidia-device-plugin/whole-gpu").unit == layout.node("volcano/scheduler").unit
    )


def test_composes_edges_are_exactly_the_engines_links_from_provider_to_consumer():
    rows = small_catalog()
    layout = layout_of(rows)

    expected = {}
    for provider in rows:
        for consumer in rows:
            links = links_between(provider, consumer) if provider is not consumer else []
            if links:
                expected[(provider.id, consumer.id)] = tuple(
                    sorted({link.interface for link in links})
                )
    drawn = {(e.source, e.target): e.labels for e in layout.edges if e.kind == "composes"}
    assert drawn == expected
    assert drawn[("hami/device-plugin", "hami/scheduler-extender")] == (
        "resource:nvidia.com/gpumem",
    )


def test_a_requires_link_is_marked_as_a_hard_dependency_and_accepts_as_optional():
    layout = layout_of(small_catalog())

    relation = {(e.source, e.target): e.relation for e in layout.edges if e.kind == "composes"}
    assert relation[("volcano/scheduler", "kubeflow/trainer")] == "requires"
    assert relation[("nvidia-device-plugin/whole-gpu", "volcano/scheduler")] == "accepts"


def test_conflicts_are_drawn_between_rows_that_share_an_exclusive_token():
    layout = layout_of(small_catalog())

    conflicts = {
        frozenset((e.source, e.target)): e.labels for e in layout.edges if e.kind == "conflicts"
    }
    assert conflicts == {
        frozenset(pair): (GPU_OWNER,)
        for pair in (
            ("hami/device-plugin", "nvidia-device-plugin/whole-gpu"),
            ("hami/device-plugin", "nvidia-device-plugin/mig-mixed"),
            ("nvidia-device-plugin/mig-mixed", "nvidia-device-plugin/whole-gpu"),
        )
    }


def test_the_rows_of_one_project_are_linked():
    layout = layout_of(small_catalog())

    ties = {frozenset((e.source, e.target)) for e in layout.edges if e.kind == "project"}
    assert ties == {
        frozenset(("hami/device-plugin", "hami/scheduler-extender")),
        frozenset(("nvidia-device-plugin/whole-gpu", "nvidia-device-plugin/mig-mixed")),
    }


def test_filtering_hides_edges_but_never_moves_the_nodes_that_stay():
    rows = small_catalog()
    full = layout_of(rows)
    shown = [row for row in rows if row.project != "volcano"]

    partial = layout_map(
        rows,
        contracts=catalog_contracts(shown),
        unit_order=UNITS,
        point_order=POINTS,
        visible=[row.id for row in shown],
    )

    assert partial.nodes == full.nodes
    assert all("volcano/scheduler" not in (e.source, e.target) for e in partial.edges)


def test_edges_past_the_budget_are_counted_as_hidden_keeping_hard_dependencies_first():
    rows = small_catalog()

    layout = layout_of(rows, max_edges=1)

    composes = [e for e in layout.edges if e.kind == "composes"]
    assert len(composes) == 1
    assert composes[0].relation == "requires"
    assert layout.hidden_edges > 0


def test_edges_inside_one_band_curve_around_the_nodes_between_their_ends():
    layout = layout_of(small_catalog())

    same_band = next(e for e in layout.edges if e.kind == "conflicts")
    assert len(same_band.xs) > 2
    across = next(e for e in layout.edges if e.kind == "composes" and e.relation == "requires")
    assert len(across.xs) == 2


def test_an_empty_catalog_has_an_empty_layout():
    layout = layout_of([])

    assert layout.nodes == ()
    assert layout.edges == ()
