"""The map pages, their data endpoint and the report SVG: filters, stack, languages, queries."""

from __future__ import annotations

import json

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from catalog.engine.map_layout import BANDS
from catalog.engine.oracle import links_between
from catalog.map.figure import MapFilters, map_catalog, map_figure, map_payload, map_svg
from tests.factories import apply, bundle, placement, project, synthetic_bundle

pytestmark = pytest.mark.django_db


@pytest.fixture
def small_stack(db):
    apply(
        bundle(
            project(
                "dp",
                placement(
                    "plugin",
                    resource_units=["mig_slice"],
                    provides=["resource:nvidia.com/mig-1g.10gb"],
                    exclusive=["owner:node/nvidia-gpu"],
                    non_promise="Does not pick pods.",
                ),
                tags=["device-plugin"],
            ),
            project(
                "other-dp",
                placement("plugin", exclusive=["owner:node/nvidia-gpu"]),
                tags=["device-plugin"],
            ),
            project(
                "sched",
                placement("queue", "control_plane", requires=["resource:nvidia.com/mig-*"]),
                tags=["queueing"],
            ),
            project("portal", placement("ui", "platform", promise="Self-service GPU requests.")),
        )
    )


def shown_ids(payload) -> list[str]:
    return payload["nodes"]["id"]


def test_anonymous_visitors_are_sent_to_sign_in(client):
    response = client.get(reverse("map:page"))

    assert response.status_code == 302
    assert response["Location"].startswith(reverse("login"))


def test_the_map_page_draws_every_row_with_plotly_from_static(bob_client, small_stack):
    response = bob_client.get(reverse("map:page"))

    content = response.content.decode()
    assert response.status_code == 200
    assert "/static/vendor/plotly/plotly.min.js" in content
    assert "cdn.plot.ly" not in content
    assert response.context["payload"]["shown"] == 4
    assert response["X-Frame-Options"] == "DENY"


def test_plotly_js_is_served_from_the_installed_package(bob_client):
    from django.contrib.staticfiles import finders

    assert finders.find("vendor/plotly/plotly.min.js")


def test_the_embed_view_can_be_framed_and_takes_the_same_parameters(bob_client, small_stack):
    response = bob_client.get(reverse("map:embed"), {"tag": "device-plugin"})

    assert response.status_code == 200
    assert "X-Frame-Options" not in response
    assert sorted(shown_ids(response.context["payload"])) == ["dp/plugin", "other-dp/plugin"]
    assert b'class="topbar"' not in response.content


def test_a_signed_out_embed_asks_to_sign_in_in_a_new_tab_instead_of_redirecting(client):
    response = client.get(reverse("map:embed"))

    assert response.status_code == 401
    assert "X-Frame-Options" not in response
    assert b'target="_blank"' in response.content


def test_the_data_endpoint_filters_by_unit_point_tag_and_text(bob_client, small_stack):
    url = reverse("map:data")

    assert shown_ids(bob_client.get(url, {"unit": "mig_slice"}).json()) == [
        "dp/plugin",
        "sched/queue",
    ]
    assert shown_ids(bob_client.get(url, {"point": "platform"}).json()) == ["portal/ui"]
    assert shown_ids(bob_client.get(url, {"tag": "queueing"}).json()) == ["sched/queue"]
    assert shown_ids(bob_client.get(url, {"q": "self-service"}).json()) == ["portal/ui"]


def test_only_what_composes_with_a_project_can_be_shown(bob_client, small_stack):
    payload = bob_client.get(reverse("map:data"), {"with": "sched"}).json()

    assert shown_ids(payload) == ["dp/plugin", "sched/queue"]


def test_a_stack_is_highlighted_and_the_rest_faded(small_stack):
    figure = map_figure(highlight=("dp", "sched/queue"))

    nodes = next(trace for trace in figure.data if trace.uid == "nodes")
    ids = [row.id for row in map_catalog().rows]
    opacity = dict(zip(ids, nodes.marker.opacity, strict=True))
    assert opacity["dp/plugin"] == opacity["sched/queue"] == 1.0
    assert opacity["other-dp/plugin"] < 0.5
    lit = [trace for trace in figure.data if (trace.uid or "").endswith("-lit")]
    assert [trace.uid for trace in lit] == ["edges-requires-lit"]


def test_the_figure_draws_three_bands_and_two_labelled_boundaries(small_stack):
    figure = map_figure()

    bands = [shape for shape in figure.layout.shapes if shape.type == "rect"]
    boundaries = [shape for shape in figure.layout.shapes if shape.type == "line" and shape.xref]
    assert [(band.y0, band.y1) for band in bands] == [(0, 1), (1, 2), (2, 3)]
    assert sorted(line.y0 for line in boundaries) == [1, 2]
    texts = [annotation.text for annotation in figure.layout.annotations]
    assert sum("boundary" in text for text in texts) == 2
    assert {"<b>Data plane</b>", "<b>Control plane</b>", "<b>Platform</b>"} <= set(texts)


def test_each_node_sits_in_its_layers_band(small_stack):
    catalog = map_catalog()
    nodes = next(trace for trace in map_figure(rows=catalog).data if trace.uid == "nodes")

    for row, y in zip(catalog.rows, nodes.y, strict=True):
        band = BANDS.index(row.layer)
        assert band < y < band + 1


def test_edge_hover_texts_name_the_provider_consumer_and_interface(small_stack):
    catalog = map_catalog()
    rows = {row.id: row for row in catalog.rows}
    [link] = links_between(rows["dp/plugin"], rows["sched/queue"])

    figure = map_figure(rows=catalog)

    markers = next(trace for trace in figure.data if trace.uid == "edge-markers-requires")
    assert any(link.interface in text and "→" in text for text in markers.hovertext)


def test_the_chinese_figure_names_the_layers_in_chinese(small_stack):
    figure = map_figure(language="zh-hans")

    texts = " ".join(annotation.text for annotation in figure.layout.annotations)
    for name in ("数据平面", "控制面", "平台层"):
        assert name in texts


def test_an_empty_catalog_still_draws_the_bands_and_says_so(bob_client):
    payload = bob_client.get(reverse("map:data")).json()

    assert payload["shown"] == 0
    texts = [annotation["text"] for annotation in payload["figure"]["layout"]["annotations"]]
    assert "The catalog is empty" in texts


def test_the_card_fragment_shows_the_projects_rows_and_links_to_its_page(bob_client, small_stack):
    response = bob_client.get(reverse("map:card", args=["dp"]))

    content = response.content.decode()
    assert 'href="/catalog/projects/dp/"' in content
    assert "Does not pick pods." in content


def test_an_unknown_projects_card_is_404(bob_client):
    assert bob_client.get(reverse("map:card", args=["nope"])).status_code == 404


def _queries(fn) -> int:
    with CaptureQueriesContext(connection) as queries:
        fn()
    return len(queries)


def test_the_map_data_takes_the_same_number_of_queries_for_10_and_300_projects():
    apply(synthetic_bundle(10, rows_per_project=2))
    small = _queries(lambda: map_payload(filters=MapFilters(text="project")))

    apply(synthetic_bundle(300, rows_per_project=2))
    large = _queries(lambda: map_payload(filters=MapFilters(text="project")))

    assert small == large <= 10


def test_the_map_page_takes_the_same_number_of_queries_for_10_and_300_projects(bob_client):
    bob_client.get(reverse("inbox:index"))  # the nav's unread count is cached from here on
    apply(synthetic_bundle(10, rows_per_project=2))
    small = _queries(lambda: bob_client.get(reverse("map:page")))

    apply(synthetic_bundle(300, rows_per_project=2))
    large = _queries(lambda: bob_client.get(reverse("map:page")))

    assert small == large


def test_a_big_catalog_draws_its_nodes_with_webgl_in_a_single_trace():
    apply(synthetic_bundle(200, rows_per_project=2))

    figure = map_figure()

    webgl = [trace.uid for trace in figure.data if trace.type == "scattergl"]
    assert "nodes" in webgl
    assert len(webgl) <= 2
    assert len(json.dumps(map_payload(), default=str)) < 1_500_000


@pytest.mark.slow
def test_the_report_svg_is_the_same_figure_rendered_by_kaleido(small_stack):
    svg = map_svg(highlight=("dp",), language="zh-hans")

    assert svg.lstrip().startswith("<svg")
    assert "数据平面" in svg


def test_the_map_is_drawn_by_the_matrix_job_before_its_first_reader(
    bob_client, django_capture_on_commit_callbacks, monkeypatch
):
    from catalog.map import figure

    with django_capture_on_commit_callbacks(execute=True):
        apply(bundle(project("hami", placement("device-plugin"))))
    drawn = []
    monkeypatch.setattr(figure, "map_catalog", lambda: drawn.append(1))

    for language in ("en", "zh-hans"):
        bob_client.cookies["django_language"] = language
        assert bob_client.get(reverse("map:page")).status_code == 200

    assert drawn == []  # both languages came from the cache the job filled
