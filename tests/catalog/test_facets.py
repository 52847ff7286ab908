"""The count beside each catalog filter value is what choosing it would list: the other active
filters apply, the facet's own does not."""

import re

import pytest

from catalog.selectors import CatalogFilters, facet_counts
from tests.factories import apply, bundle, placement, project

pytestmark = pytest.mark.django_db


@pytest.fixture
def catalog():
    """Three projects: a MIG device plugin, a whole-GPU device plugin and a MIG-aware queue."""
    apply(
        bundle(
            project(
                "mig-plugin",
                placement("plugin", "data_plane", resource_units=["mig_slice"]),
                tags=["nvidia", "mig"],
            ),
            project("gpu-plugin", placement("plugin", "data_plane"), tags=["nvidia"]),
            project(
                "queue",
                placement("queue", "control_plane", resource_units=["mig_slice"]),
                tags=["batch"],
            ),
        )
    )


def counts(facet: list) -> dict[str, int]:
    return {getattr(term, "key", None) or term.slug: term.project_count for term in facet}


def test_without_filters_each_value_counts_every_project_that_has_it(catalog):
    facets = facet_counts()

    assert counts(facets["layers"])["data_plane"] == 2
    assert counts(facets["units"])["mig_slice"] == 2
    assert counts(facets["tags"])["nvidia"] == 2


def test_a_layer_filter_narrows_the_unit_counts(catalog):
    facets = facet_counts(filters=CatalogFilters(layer="control_plane"))

    units = counts(facets["units"])
    assert units["mig_slice"] == 1
    assert units["whole_gpu"] == 0


def test_the_chosen_facet_keeps_counting_its_other_values(catalog):
    facets = facet_counts(filters=CatalogFilters(layer="control_plane"))

    layers = counts(facets["layers"])
    assert layers == {"data_plane": 2, "control_plane": 1, "platform": 0}


def test_a_tag_filter_narrows_the_layer_counts_and_hides_tags_that_list_nothing(catalog):
    facets = facet_counts(filters=CatalogFilters(tag="nvidia"))

    assert counts(facets["layers"])["control_plane"] == 0
    assert counts(facets["units"])["mig_slice"] == 1
    tags = counts(facets["tags"])
    assert tags["nvidia"] == 2 and tags["batch"] == 1  # the tag facet ignores its own filter


def test_a_search_narrows_every_count(catalog):
    facets = facet_counts(filters=CatalogFilters(text="queue"))

    assert counts(facets["layers"]) == {"data_plane": 0, "control_plane": 1, "platform": 0}
    assert set(counts(facets["tags"])) == {"batch"}


def test_each_count_matches_the_list_that_choosing_the_value_shows(catalog, bob_client):
    page = bob_client.get("/catalog/", {"layer": "data_plane"}).content.decode()
    shown = re.search(
        r'href="\?layer=data_plane&amp;unit=mig_slice"[^>]*>\s*<span>[^<]*</span>'
        r'<span class="count">(\d+)</span>',
        page,
    )

    listed = bob_client.get("/catalog/", {"layer": "data_plane", "unit": "mig_slice"})

    assert shown, "the unit facet links to the narrowed list with its count"
    assert listed.context["page"].paginator.count == int(shown.group(1)) == 1


def test_the_catalog_page_counts_facets_in_a_fixed_number_of_queries(
    catalog, bob_client, django_assert_max_num_queries
):
    with django_assert_max_num_queries(20):
        bob_client.get("/catalog/", {"layer": "data_plane", "tag": "nvidia", "q": "plugin"})
