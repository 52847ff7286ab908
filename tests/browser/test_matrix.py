"""The matrix heatmap in a real browser: row by row on the built-in catalog, blocks that open
on click at scale, a cell that opens its pair, no console errors."""

from __future__ import annotations

from importlib import import_module
from urllib.parse import parse_qs, urlparse

import pytest
from django.apps import apps as django_apps
from django.core.management import call_command

from catalog.matrix.services import matrix_refresh_request, matrix_snapshot_compute
from catalog.models import Project
from tests.factories import apply, bundle, scaled_projects

seed = import_module("catalog.migrations.0002_seed_vocabulary").seed

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def _computed() -> None:
    snapshot = matrix_refresh_request()
    matrix_snapshot_compute(snapshot_id=snapshot.pk)


@pytest.fixture
def builtin(db):
    seed(django_apps, None)
    call_command("load_catalog", verbosity=0)
    _computed()


@pytest.fixture
def big(db):
    seed(django_apps, None)
    apply(bundle(*scaled_projects(rows=400, projects=150)))
    _computed()


def open_matrix(page, url: str) -> dict:
    page.goto(url)
    page.wait_for_selector("#matrix-figure[data-rendered]")
    return page.evaluate("JSON.parse(document.getElementById('matrix-figure-data').textContent)")


def click_cell(page, y_key: str, x_key: str, payload: dict) -> None:
    """Click the centre of the cell (y_key, x_key) where Plotly drew it."""
    i, j = payload["y"]["keys"].index(y_key), payload["x"]["keys"].index(x_key)
    where = """([i, j]) => {
          const layout = document.getElementById('matrix-figure')._fullLayout;
          const plot = document.querySelector('#matrix-figure .nsewdrag').getBoundingClientRect();
          return [plot.left + layout.xaxis.l2p(j), plot.top + layout.yaxis.l2p(i)];
        }"""
    _x, y = page.evaluate(where, [i, j])
    page.evaluate("(y) => window.scrollBy(0, y - 400)", y)  # the mouse stays in the viewport
    x, y = page.evaluate(where, [i, j])
    page.mouse.click(x, y)


def test_the_built_in_catalog_is_drawn_by_project_with_names_and_fits_1366_px(
    signed_in_page, live_server, builtin, console_errors, screenshot
):
    signed_in_page.set_viewport_size({"width": 1366, "height": 900})
    payload = open_matrix(signed_in_page, f"{live_server.url}/matrix/")

    assert {key.split(":")[0] for key in payload["y"]["keys"]} == {"project"}
    assert (
        len(payload["y"]["keys"])
        == Project.objects.filter(placements__isnull=False).distinct().count()
    )
    assert "NVIDIA device plugin for Kubernetes (5)" in payload["y"]["labels"]  # a name
    page_width = signed_in_page.evaluate("document.documentElement.scrollWidth")
    box = signed_in_page.evaluate(
        "(() => { const b = document.getElementById('matrix-figure'); "
        "return [b.scrollWidth, b.clientWidth]; })()"
    )
    assert page_width <= 1366
    assert box[0] <= box[1]  # no sideways scrolling inside the figure either
    screenshot(signed_in_page, "matrix.builtin.en", full_page=True)
    assert console_errors == []


def test_a_projects_own_cell_expands_it_to_its_rows_and_a_row_cell_opens_its_pair(
    signed_in_page, live_server, builtin, console_errors
):
    payload = open_matrix(signed_in_page, f"{live_server.url}/matrix/")

    click_cell(signed_in_page, "project:hami", "project:hami", payload)
    signed_in_page.wait_for_url("**/matrix/?expand=hami")
    expanded = open_matrix(signed_in_page, signed_in_page.url)
    assert "row:hami/device-plugin" in expanded["y"]["keys"]
    assert "project:hami" not in expanded["y"]["keys"]
    assert "project:kueue" in expanded["y"]["keys"]  # the others stay folded

    click_cell(signed_in_page, "row:hami/device-plugin", "project:kueue", expanded)
    signed_in_page.wait_for_url("**/matrix/?*y=*")
    rows = open_matrix(signed_in_page, signed_in_page.url)
    click_cell(signed_in_page, "row:hami/device-plugin", "row:kueue/controller", rows)
    signed_in_page.wait_for_url("**/matrix/pair/**")

    query = parse_qs(urlparse(signed_in_page.url).query)
    assert {query["a"][0], query["b"][0]} == {"hami/device-plugin", "kueue/controller"}
    assert "composes" in signed_in_page.inner_text("main")
    assert console_errors == []


def test_projects_are_chosen_by_typing_in_the_multi_select(
    signed_in_page, live_server, builtin, console_errors, screenshot
):
    open_matrix(signed_in_page, f"{live_server.url}/matrix/")

    search = signed_in_page.locator(".multiselect-search")
    search.fill("kueue")
    visible = signed_in_page.locator(".multiselect-options label:visible")
    assert visible.all_inner_texts() == ["Kueue"]
    search.press("Enter")  # ticks the only match
    search.fill("hami")
    signed_in_page.get_by_label("HAMi-core", exact=True).check()
    assert "2 chosen" in signed_in_page.inner_text(".multiselect-chosen")
    screenshot(signed_in_page, "matrix-multiselect.en")
    signed_in_page.click("#matrix-filters button[type=submit]")
    signed_in_page.wait_for_url("**/matrix/?*project=*")

    query = parse_qs(urlparse(signed_in_page.url).query)
    assert sorted(query["project"]) == ["hami-core", "kueue"]
    assert console_errors == []


def test_the_matrix_as_a_list_is_reachable_from_the_skip_link(
    signed_in_page, live_server, builtin, console_errors
):
    open_matrix(signed_in_page, f"{live_server.url}/matrix/?near=hami")

    signed_in_page.locator('.skip-link[href="#matrix-table"]').focus()
    signed_in_page.keyboard.press("Enter")
    signed_in_page.keyboard.press("Tab")  # onto the list's summary
    signed_in_page.keyboard.press("Enter")  # opens it

    listing = signed_in_page.inner_text("#matrix-table")
    # Documented: HAMi's device plugin composes with Kueue.
    assert "HAMi · device-plugin" in listing and "Kueue · controller" in listing
    assert signed_in_page.locator("#matrix-table a[href*='/matrix/pair/']").count() > 0
    assert console_errors == []


def test_the_chinese_matrix_names_projects_and_verdicts_in_chinese(
    signed_in_page, live_server, builtin, console_errors, screenshot
):
    signed_in_page.context.add_cookies(
        [{"name": "django_language", "value": "zh-hans", "url": live_server.url}]
    )
    signed_in_page.set_viewport_size({"width": 1366, "height": 900})
    payload = open_matrix(signed_in_page, f"{live_server.url}/matrix/")

    assert "组合" in payload["verdicts"]
    assert signed_in_page.evaluate("document.documentElement.scrollWidth") <= 1366
    screenshot(signed_in_page, "matrix.builtin.zh-hans", full_page=True)
    assert console_errors == []


def test_a_big_catalog_opens_on_blocks_that_open_on_their_rows(
    signed_in_page, live_server, big, console_errors, screenshot
):
    payload = open_matrix(signed_in_page, f"{live_server.url}/matrix/")
    assert not payload["rows_only"]
    keys = payload["y"]["keys"]
    assert all(key.startswith(("project:", "function:")) for key in keys)
    screenshot(signed_in_page, "matrix.blocks.en", full_page=True)

    click_cell(signed_in_page, keys[-1], keys[0], payload)
    signed_in_page.wait_for_url("**/matrix/?*y=*")
    drilled = open_matrix(signed_in_page, signed_in_page.url)

    query = parse_qs(urlparse(signed_in_page.url).query)
    assert query["y"] == [keys[-1]] and query["x"] == [keys[0]]
    assert len(drilled["y"]["keys"]) < 150
    assert "Back to the overview" in signed_in_page.inner_text("main")
    screenshot(signed_in_page, "matrix.drilled.en", full_page=True)
    assert console_errors == []
