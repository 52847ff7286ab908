"""The map in a real browser: one node per row, hover cards, filters, the panel, no errors."""

from __future__ import annotations

from importlib import import_module

import pytest
from django.apps import apps as django_apps
from django.core.management import call_command

from catalog.models import PlacementRow

seed = import_module("catalog.migrations.0002_seed_vocabulary").seed

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

NODES = ".scatterlayer .trace.tracenodes path.point"


@pytest.fixture
def catalog_loaded(db):
    # A transactional test flushes every table when it ends, the vocabulary that the migrations
    # seed included; seeding again (idempotent) keeps each test independent of the order.
    seed(django_apps, None)
    call_command("load_catalog", verbosity=0)
    return PlacementRow.objects.count()


def open_map(page, live_server, query: str = "") -> None:
    page.goto(f"{live_server.url}/map/{query}")
    page.wait_for_selector("#map-figure[data-node-count]")


def node_count(page) -> int:
    return page.locator(NODES).count()


def test_the_map_draws_one_node_per_placement_row(
    signed_in_page, live_server, catalog_loaded, console_errors, screenshot
):
    open_map(signed_in_page, live_server)

    assert node_count(signed_in_page) == catalog_loaded
    assert signed_in_page.get_attribute("#map-figure", "data-node-count") == str(catalog_loaded)
    screenshot(signed_in_page, "map.en", full_page=True)
    assert console_errors == []


def node_centre(page, index: int) -> tuple[float, float]:
    """Where the node is on screen (scrolled into view: the mouse cannot leave the viewport)."""
    node = page.locator(NODES).nth(index)
    node.scroll_into_view_if_needed()
    box = node.bounding_box()
    return box["x"] + box["width"] / 2, box["y"] + box["height"] / 2


def index_of(page, row_id: str) -> int:
    return page.evaluate(
        "(id) => JSON.parse(document.getElementById('map-payload').textContent).nodes.id"
        ".indexOf(id)",
        row_id,
    )


def test_hovering_a_node_shows_its_placement_card_summary(
    signed_in_page, live_server, catalog_loaded, console_errors, screenshot
):
    row = PlacementRow.objects.select_related("project").get(
        project__slug="hami", key="device-plugin"
    )
    open_map(signed_in_page, live_server)

    signed_in_page.mouse.move(*node_centre(signed_in_page, index_of(signed_in_page, row.ref)))

    card = signed_in_page.locator("#map-hovercard")
    card.wait_for(state="visible")
    assert row.promise[:60] in card.inner_text()
    assert "hami/device-plugin" in card.inner_text()
    screenshot(signed_in_page, "map-hover.en")
    assert console_errors == []


def test_a_filter_reduces_the_nodes_to_the_matching_rows(
    signed_in_page, live_server, catalog_loaded, console_errors, screenshot
):
    expected = PlacementRow.objects.filter(resource_units__key="mig_slice").distinct().count()
    open_map(signed_in_page, live_server)

    signed_in_page.select_option("select[name=unit]", "mig_slice")
    signed_in_page.wait_for_selector(f"#map-figure[data-node-count='{expected}']")

    assert 0 < node_count(signed_in_page) == expected < catalog_loaded
    assert "unit=mig_slice" in signed_in_page.url
    screenshot(signed_in_page, "map-filtered.en", full_page=True)
    assert console_errors == []


def test_clicking_a_node_opens_the_projects_card_in_the_side_panel(
    signed_in_page, live_server, catalog_loaded, console_errors, screenshot
):
    open_map(signed_in_page, live_server)

    index = index_of(signed_in_page, "volcano/scheduler")
    signed_in_page.mouse.click(*node_centre(signed_in_page, index))

    panel = signed_in_page.locator("#map-panel")
    panel.locator(".card.placement").first.wait_for()
    assert "Volcano" in panel.locator("h2").inner_text()
    assert panel.locator("a[href='/catalog/projects/volcano/']").count() == 1
    screenshot(signed_in_page, "map-panel.en")
    assert console_errors == []


def test_a_stack_from_the_url_is_highlighted_and_the_rest_faded(
    signed_in_page, live_server, catalog_loaded, console_errors, screenshot
):
    open_map(signed_in_page, live_server, "?stack=hami,volcano/scheduler,kueue")

    assert "Highlighted stack" in signed_in_page.inner_text(".map-stack")
    assert "rows of the stack highlighted" in signed_in_page.inner_text("#map-status")
    screenshot(signed_in_page, "map-stack.en", full_page=True)
    assert console_errors == []


def test_only_what_composes_with_a_project_can_be_shown(
    signed_in_page, live_server, catalog_loaded, console_errors
):
    open_map(signed_in_page, live_server)

    signed_in_page.select_option("select[name=with]", "volcano")
    # An attribute selector, not wait_for_function: the page's CSP forbids evaluating strings.
    signed_in_page.wait_for_selector(
        f"#map-figure[data-node-count]:not([data-node-count='{catalog_loaded}'])"
    )

    assert 1 < node_count(signed_in_page) < catalog_loaded
    assert console_errors == []


def test_the_chinese_map_uses_the_chinese_layer_names(
    signed_in_page, live_server, catalog_loaded, console_errors, screenshot
):
    signed_in_page.context.add_cookies(
        [{"name": "django_language", "value": "zh-hans", "url": live_server.url}]
    )
    open_map(signed_in_page, live_server)

    text = signed_in_page.inner_text("#map-figure")
    for name in ("数据平面", "控制面", "平台层"):
        assert name in text
    screenshot(signed_in_page, "map.zh-hans", full_page=True)
    assert console_errors == []


def test_the_embed_view_draws_the_same_map_without_the_site_chrome(
    signed_in_page, live_server, catalog_loaded, console_errors, screenshot
):
    signed_in_page.goto(f"{live_server.url}/map/embed/?unit=vgpu")
    signed_in_page.wait_for_selector("#map-figure[data-node-count]")

    assert signed_in_page.locator(".topbar").count() == 0
    expected = PlacementRow.objects.filter(resource_units__key="vgpu").distinct().count()
    assert node_count(signed_in_page) == expected
    screenshot(signed_in_page, "map-embed.en")
    assert console_errors == []
