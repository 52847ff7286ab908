"""The map past CATALOG_PAGE_MAX_ROWS (issue 41 H1), on the built-in catalog with a low limit:
counts per layer and resource unit when the view selects too many rows, the selected rows alone
when they fit, the same rows the whole-catalog map would draw, and the page saying which."""

from __future__ import annotations

import csv
import io

import pytest
from django.core.management import call_command
from django.urls import reverse

from catalog.map.card import CARD_PARTNERS_UP_TO
from catalog.models import PlacementRow

pytestmark = pytest.mark.django_db


@pytest.fixture
def builtin(db):
    call_command("load_catalog", verbosity=0)


def data(client, **query) -> dict:
    response = client.get(reverse("map:data"), query)
    assert response.status_code == 200
    return response.json()


def test_past_the_limit_the_whole_catalog_is_counted_per_layer_and_unit(
    bob_client, builtin, settings
):
    settings.CATALOG_PAGE_MAX_ROWS = 20

    payload = data(bob_client)

    assert payload["overview"] is True
    assert payload["counted"] == payload["total"] == PlacementRow.objects.count()
    bubbles = payload["figure"]["data"][0]
    assert bubbles["uid"] == "overview"
    # Each bubble opens its layer and unit: a row with two units counts in both.
    data_plane_gpus = PlacementRow.objects.filter(
        layer__key="data_plane", resource_units__key="whole_gpu"
    ).count()
    at = bubbles["customdata"].index("layer=data_plane&unit=whole_gpu")
    assert bubbles["text"][at] == str(data_plane_gpus)


def test_the_page_says_in_both_languages_that_it_counts_and_how_to_draw_rows(
    bob_client, builtin, settings
):
    settings.CATALOG_PAGE_MAX_ROWS = 20
    total = PlacementRow.objects.count()

    english = bob_client.get(reverse("map:page")).content.decode()
    bob_client.cookies["django_language"] = "zh-hans"
    chinese = bob_client.get(reverse("map:page")).content.decode()

    assert "Too many rows to draw one by one." in english
    assert f"This catalog has {total} placement rows" in english
    assert "?layer=data_plane&amp;unit=whole_gpu" in english  # the table's way to the rows
    assert "行数太多，无法逐行绘制。" in chinese
    assert f"此目录有 {total} 个放置行" in chinese
    assert "Too many rows" not in chinese


@pytest.mark.parametrize(
    ("query", "english_says", "chinese_says"),
    [
        (
            "?near=hami",
            "its rows and every row one contract away, too many to draw",
            "行数太多，无法逐行绘制：每个气泡统计一个层与资源单位中的行数。",
        ),
        (
            "?layer=control_plane",
            "too many rows to draw: each bubble counts those of one resource unit.",
            "行数太多，无法逐行绘制：每个气泡统计一个资源单位中的行数。",
        ),
    ],
)
def test_a_focused_view_that_is_counted_does_not_say_row_by_row(
    bob_client, builtin, settings, query, english_says, chinese_says
):
    settings.CATALOG_PAGE_MAX_ROWS = 3

    english = bob_client.get(reverse("map:page") + query).content.decode()
    bob_client.cookies["django_language"] = "zh-hans"
    chinese = bob_client.get(reverse("map:page") + query).content.decode()

    assert "Too many rows to draw one by one." in english
    assert english_says in english and "row by row" not in english
    assert chinese_says in chinese and "逐行显示" not in chinese


def test_a_view_that_fits_is_drawn_row_by_row_and_says_it_is_a_part(bob_client, builtin, settings):
    settings.CATALOG_PAGE_MAX_ROWS = 20
    platform = set(
        PlacementRow.objects.filter(layer__key="platform").values_list("project__slug", "key")
    )
    assert len(platform) <= 20

    payload = data(bob_client, layer="platform")
    page = bob_client.get(reverse("map:page"), {"layer": "platform"}).content.decode()

    assert "overview" not in payload
    assert {tuple(i.split("/")) for i in payload["nodes"]["id"]} == platform
    assert payload["total"] == PlacementRow.objects.count()
    assert f"this view draws the {len(platform)} rows it selects" in page


@pytest.mark.parametrize(
    "query",
    [{"near": "hami"}, {"near": "kueue", "layer": "data_plane"}, {"q": "hami device"}],
    ids=["neighbourhood", "neighbourhood-in-a-layer", "search-across-name-and-key"],
)
def test_a_big_catalog_draws_the_rows_the_whole_catalog_map_draws(
    bob_client, builtin, settings, query
):
    whole = data(bob_client, **query)["nodes"]["id"]
    settings.CATALOG_PAGE_MAX_ROWS = 60  # under the built-in catalog's rows: the large branch

    part = data(bob_client, **query)

    assert part["large"] is True and "overview" not in part
    assert sorted(part["nodes"]["id"]) == sorted(whole)
    assert whole


def test_the_csv_of_a_counted_view_streams_every_selected_row(bob_client, builtin, settings):
    settings.CATALOG_PAGE_MAX_ROWS = 20

    response = bob_client.get(reverse("map:csv"))

    assert response.streaming
    lines = list(csv.DictReader(io.StringIO(b"".join(response.streaming_content).decode())))
    expected = {
        f"{slug}/{key}" for slug, key in PlacementRow.objects.values_list("project__slug", "key")
    }
    assert {line["row"] for line in lines} == expected
    assert len(lines) == len(expected)  # one line a row: no contracts in a counted view
    assert [line["layer"] for line in lines[:1]] == ["platform"]  # the table's order


def test_the_card_of_a_big_catalog_lists_partners_up_to_the_cap_and_counts_the_rest(
    bob_client, builtin, settings
):
    small = bob_client.get(reverse("map:card", args=["nvidia-device-plugin"])).content.decode()
    settings.CATALOG_PAGE_MAX_ROWS = 10

    big = bob_client.get(reverse("map:card", args=["nvidia-device-plugin"])).content.decode()

    assert "rows of this large catalog may bind to this project" in big
    assert "rows of this large catalog" not in small
    assert big.count("map-rel-provides") <= CARD_PARTNERS_UP_TO * big.count("map-card ")
