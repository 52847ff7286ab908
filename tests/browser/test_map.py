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
    # attached, not visible: on a phone the figure is hidden and the list shown instead.
    page.wait_for_selector("#map-figure[data-node-count]", state="attached")


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


def payload_of(page) -> dict:
    return page.evaluate("JSON.parse(document.getElementById('map-payload').textContent)")


def test_choosing_a_project_shows_its_neighbourhood_row_by_row(
    signed_in_page, live_server, catalog_loaded, console_errors, screenshot
):
    open_map(signed_in_page, live_server)

    signed_in_page.select_option("select[name=near]", "hami")
    signed_in_page.wait_for_url("**/map/?near=hami")
    signed_in_page.wait_for_selector("#map-figure[data-node-count]")

    shown = set(payload_of(signed_in_page)["nodes"]["id"])
    hami = {row.ref for row in PlacementRow.objects.filter(project__slug="hami")}
    # Documented in tests/catalog/documented_relations.yaml: each composes with a HAMi row.
    assert hami | {"kueue/controller", "hami-core/libvgpu"} <= shown
    assert node_count(signed_in_page) == len(shown) < catalog_loaded
    assert "The neighbourhood of HAMi" in signed_in_page.inner_text("#map-focus")
    screenshot(signed_in_page, "map-neighbourhood.en", full_page=True)
    assert console_errors == []


def test_an_evaluations_candidates_are_drawn_alone(
    signed_in_page, live_server, catalog_loaded, console_errors, screenshot
):
    candidates = ["hami/device-plugin", "hami/scheduler-extender", "kueue/controller",
                  "volcano/scheduler", "nvidia-device-plugin/whole-gpu"]  # fmt: skip
    open_map(signed_in_page, live_server, "?rows=" + ",".join(candidates))

    assert sorted(payload_of(signed_in_page)["nodes"]["id"]) == sorted(candidates)
    assert node_count(signed_in_page) == len(candidates)
    screenshot(signed_in_page, "map-candidates.en", full_page=True)
    assert console_errors == []


def test_conflicts_are_drawn_only_after_ticking_the_toggle(
    signed_in_page, live_server, catalog_loaded, console_errors
):
    open_map(signed_in_page, live_server)
    traces = "document.getElementById('map-figure').data.map((t) => t.uid || '')"
    assert not [uid for uid in signed_in_page.evaluate(traces) if "conflicts" in uid]

    signed_in_page.check("input[name=conflicts]")
    signed_in_page.wait_for_url("**/map/?conflicts=1")
    signed_in_page.wait_for_selector("#map-figure[data-node-count]")

    assert [uid for uid in signed_in_page.evaluate(traces) if "conflicts" in uid]
    assert "Conflicts with" in signed_in_page.inner_text("#map-table-body thead")
    assert console_errors == []


def test_the_table_is_one_click_away_and_opens_a_card_from_the_keyboard(
    signed_in_page, live_server, catalog_loaded, console_errors, screenshot
):
    open_map(signed_in_page, live_server)

    signed_in_page.click("[data-map-view=table]")
    assert not signed_in_page.is_visible("#map-figure")
    rows = signed_in_page.locator("#map-table-body tbody tr")
    assert rows.count() == catalog_loaded

    link = signed_in_page.locator("[data-map-row='kueue/controller']")
    link.focus()
    signed_in_page.keyboard.press("Enter")
    panel = signed_in_page.locator("#map-panel")
    panel.locator(".map-contracts").first.wait_for()
    # Documented: Kueue uses HAMi's vGPU memory resource.
    assert "HAMi" in panel.inner_text()
    assert signed_in_page.evaluate("document.activeElement.tagName") == "H2"
    screenshot(signed_in_page, "map-table-card.en")
    signed_in_page.keyboard.press("Escape")
    assert panel.is_hidden()
    assert signed_in_page.evaluate("document.activeElement.dataset.mapRow") == "kueue/controller"
    assert console_errors == []


def test_the_skip_link_takes_the_keyboard_past_the_figure(
    signed_in_page, live_server, catalog_loaded, console_errors
):
    open_map(signed_in_page, live_server)

    skip = signed_in_page.locator('.skip-link[href="#map-table-section"]')
    skip.focus()
    assert skip.is_visible()  # shown when focused
    signed_in_page.keyboard.press("Enter")

    assert signed_in_page.evaluate("document.activeElement.id") == "map-table-section"
    assert console_errors == []


def test_the_csv_download_holds_the_figures_rows_and_contracts(
    signed_in_page, live_server, catalog_loaded, console_errors
):
    open_map(signed_in_page, live_server, "?rows=hami/device-plugin,kueue/controller")

    with signed_in_page.expect_download() as download:
        signed_in_page.click("#map-download-csv")
    text = open(download.value.path(), encoding="utf-8").read()  # noqa: SIM115

    assert text.splitlines()[0].startswith("row,project,component,layer")
    assert "hami/device-plugin" in text and "provides_to,kueue/controller" in text
    assert console_errors == []


def test_on_a_phone_the_map_is_the_list(
    signed_in_page, live_server, catalog_loaded, console_errors, screenshot
):
    signed_in_page.set_viewport_size({"width": 390, "height": 844})
    open_map(signed_in_page, live_server)

    assert not signed_in_page.is_visible(".map-stage")
    assert signed_in_page.locator(NODES).count() == 0  # not drawn at all
    items = signed_in_page.locator("#map-table-body tbody tr")
    assert items.count() == catalog_loaded
    assert items.first.is_visible()
    width = signed_in_page.evaluate("document.documentElement.scrollWidth")
    assert width <= 390
    screenshot(signed_in_page, "map-phone.en")
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
