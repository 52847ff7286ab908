"""The map as the report prints it: labels sized to the room under each node, a legend that
prints, nothing the screen hides behind a click."""

from __future__ import annotations

from types import SimpleNamespace

from evaluations.reports.map_picture import label_room, node_label, print_figure, tick_label

PLOT_HEIGHT = 624
PX_PER_X = 93  # 30 candidates: 13.7 x units across 1,280 px


def node(row_id: str, x: float, y: float) -> SimpleNamespace:
    return SimpleNamespace(row_id=row_id, x=x, y=y)


def test_a_node_with_room_below_gets_three_label_lines_and_a_crowded_column_fewer():
    nodes = [node("a/x", 1.5, 0.82), node("b/x", 1.5, 0.5), node("c/x", 3.0, 0.82)]
    crowded = [node(f"p{i}/x", 0.5, y) for i, y in enumerate((0.82, 0.61, 0.39, 0.18))]

    lines = {row: room[0] for row, room in label_room(nodes, PLOT_HEIGHT, PX_PER_X).items()}
    # a/x sits a third of a band (65 px) above b/x: a name line and its key
    assert lines == {"a/x": 2, "b/x": 3, "c/x": 3}
    lines = {row: room[0] for row, room in label_room(crowded, PLOT_HEIGHT, PX_PER_X).items()}
    assert lines["p0/x"] == 1  # 0.21 of a band (43 px) above the next node
    assert lines["p3/x"] == 1  # near the bottom of the plot


def test_labels_of_neighbours_on_a_lane_are_no_wider_than_the_gap_between_them():
    lane = [node("a/x", 0.5, 0.82), node("b/x", 1.5, 0.82), node("c/x", 4.5, 0.5)]

    room = label_room(lane, PLOT_HEIGHT, PX_PER_X)

    assert room["a/x"][1] == room["b/x"][1] < 20
    assert room["a/x"][1] * 6.2 <= PX_PER_X  # one x unit apart
    assert room["c/x"][1] == 20  # alone on its lane


def test_a_column_name_wider_than_its_column_takes_two_lines():
    assert tick_label("Whole GPU", 140) == "Whole GPU"
    assert tick_label("Memory + compute quota", 90) == "Memory +<br>compute quota"
    assert tick_label("显存 + 算力配额", 60).count("<br>") == 1


def test_a_long_name_wraps_whole_words_and_is_cut_only_where_the_lines_run_out():
    name = "NVIDIA Multi-Instance GPU (MIG) with MIG Manager"

    assert node_label(name, "mig-manager", with_key=False, lines=3) == (
        "NVIDIA Multi-<br>Instance GPU (MIG)<br>with MIG Manager"
    )
    one_line = node_label(name, "mig-manager", with_key=True, lines=2)
    assert one_line.startswith("NVIDIA Multi-…<br>")
    assert one_line.endswith("mig-manager</span>")
    assert node_label("HAMi", "device-plugin", with_key=True, lines=1) == "HAMi"


def test_a_label_is_escaped_for_plotly():
    assert "<b>" not in node_label("<b>Evil</b>", "k", with_key=False, lines=3)


def _screen_figure() -> dict:
    return {
        "data": [
            {"uid": "edges-requires", "mode": "lines", "name": "composes", "opacity": 0.12,
             "line": {"color": "#2563eb", "width": 1.2}, "showlegend": True},
            {"uid": "edges-requires-lit", "mode": "lines", "name": "composes", "opacity": 0.95,
             "line": {"color": "#2563eb", "width": 2.4}, "showlegend": False},
            {"uid": "edges-accepts", "mode": "lines", "name": "optional", "opacity": 0.3,
             "visible": "legendonly", "line": {"width": 1}},
            {"uid": "nodes", "mode": "markers+text", "text": ["HAMi"],
             "textfont": {"size": 9.5, "color": ["#b6bfcc"]},
             "marker": {"opacity": [0.18]}},
        ],
        "layout": {
            "xaxis": {"range": [-0.9, 8.9], "title": {"text": "unit", "font": {"size": 11}}},
            "annotations": [{"text": "Data plane", "font": {"size": 13}}],
            "legend": {"y": -0.2},
            "height": 600,
        },
    }  # fmt: skip


def test_the_printed_legend_draws_each_line_style_at_full_strength():
    row = SimpleNamespace(id="hami/device-plugin", project="hami", key="device-plugin")

    figure = print_figure(_screen_figure(), [row], {row.id: "HAMi"}, [node(row.id, 4.5, 0.82)])

    samples = [t for t in figure["data"] if t.get("showlegend") and t.get("mode") == "lines"]
    assert [(t["name"], t["opacity"]) for t in samples] == [("composes", 1)]
    assert samples[0]["line"]["width"] >= 2
    drawn = [t for t in figure["data"] if t.get("uid", "").startswith("edges-")]
    assert not any(t.get("showlegend") for t in drawn)
    assert not any(t.get("visible") == "legendonly" for t in figure["data"])
    assert min(t["opacity"] for t in drawn) >= 0.2


def test_printed_labels_are_whole_and_faded_ones_still_legible():
    row = SimpleNamespace(id="hami/device-plugin", project="hami", key="device-plugin")

    figure = print_figure(_screen_figure(), [row], {row.id: "HAMi"}, [node(row.id, 4.5, 0.82)])

    nodes = next(t for t in figure["data"] if t.get("uid") == "nodes")
    assert nodes["text"] == ["HAMi"]
    assert nodes["textfont"]["size"] > 9.5
    assert nodes["textfont"]["color"] != ["#b6bfcc"]
    assert nodes["marker"]["opacity"][0] >= 0.4
    assert "height" not in figure["layout"]  # the page's proportions decide
