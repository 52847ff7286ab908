"""The search documents follow every catalog write: what a row says now is what it is found by."""

from __future__ import annotations

import pytest

from catalog.models import PlacementRow
from catalog.search import selectors
from catalog.search.selectors import catalog_search
from catalog.services import placement_row_delete
from tests.factories import apply, bundle, placement, project

pytestmark = pytest.mark.django_db


def found_rows(text: str) -> list[str]:
    return [hit.row.ref for hit in catalog_search(text=text).rows]


def found_projects(text: str) -> list[str]:
    return [hit.project.slug for hit in catalog_search(text=text).projects]


def test_an_imported_row_is_found_by_its_promise():
    apply(bundle(project("sharer", placement("plugin", promise="Carves GPUs into slivers."))))
    assert found_rows("slivers") == ["sharer/plugin"]


def test_an_updated_row_is_found_by_what_it_says_now():
    apply(bundle(project("sharer", placement("plugin", promise="Carves GPUs into slivers."))))
    apply(bundle(project("sharer", placement("plugin", promise="Hands out whole devices."))))
    assert found_rows("slivers") == []
    assert found_rows("devices") == ["sharer/plugin"]


def test_a_deleted_row_is_no_longer_found():
    apply(
        bundle(
            project(
                "sharer",
                placement("plugin", promise="Carves GPUs into slivers."),
                placement("exporter", promise="Exports metrics."),
            )
        )
    )
    placement_row_delete(row=PlacementRow.objects.get(key="plugin"))
    assert found_rows("slivers") == []
    assert found_projects("slivers") == []


def test_a_row_is_found_by_its_functions_units_and_the_interfaces_it_provides():
    apply(
        bundle(
            project(
                "batcher",
                placement(
                    "queue",
                    "control_plane",
                    functions=["gang"],
                    provides=["crd:scheduling.example.io/v1/PodGroup"],
                ),
            ),
            project("other", placement("plugin")),
        )
    )
    assert found_rows("gang") == ["batcher/queue"]
    assert found_rows("podgroup") == ["batcher/queue"]
    assert found_rows("mig slices") == ["batcher/queue"]  # its mig_slice unit


def test_catalog_text_is_escaped_in_the_results(bob_client):
    apply(
        bundle(
            project(
                "evil",
                placement("row", component="<script>alert(1)</script> gang helper"),
                name='<img src=x onerror="alert(2)"> gang',
            )
        )
    )
    page = bob_client.get("/inbox/search/", {"q": "gang"}).content.decode()
    assert "<script>alert(1)" not in page and "<img src=x" not in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt; <mark>gang</mark> helper" in page


def test_without_postgresql_the_demo_matches_the_words_themselves(monkeypatch):
    apply(
        bundle(
            project("sharer", placement("plugin", promise="Carves GPUs into slivers.")),
            project("other", placement("plugin")),
        )
    )
    monkeypatch.setattr(selectors, "full_text", lambda: False)
    assert found_rows("slivers") == ["sharer/plugin"]
    assert found_projects("SLIVERS") == ["sharer"]
