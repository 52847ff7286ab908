"""The matrix heatmap in a real browser: row by row on the built-in catalog, blocks that open
on click at scale, a cell that opens its pair, no console errors."""

from __future__ import annotations

from importlib import import_module
from urllib.parse import parse_qs, urlparse

import pytest
from django.apps import apps as django_apps
from django.core.management import call_command

from catalog.matrix.services import matrix_refresh_request, matrix_snapshot_compute
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


def test_the_built_in_catalog_is_drawn_row_by_row_and_a_cell_opens_its_pair(
    signed_in_page, live_server, builtin, console_errors, screenshot
):
    payload = open_matrix(signed_in_page, f"{live_server.url}/matrix/")
    assert payload["rows_only"]
    screenshot(signed_in_page, "matrix.builtin.en", full_page=True)

    click_cell(signed_in_page, "row:hami/device-plugin", "row:kueue/controller", payload)
    signed_in_page.wait_for_url("**/matrix/pair/**")

    query = parse_qs(urlparse(signed_in_page.url).query)
    assert {query["a"][0], query["b"][0]} == {"hami/device-plugin", "kueue/controller"}
    assert "composes" in signed_in_page.inner_text("main")
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
