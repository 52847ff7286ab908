"""Projects, placements, vocabulary and export through the API."""

import pytest
from rest_framework.test import APIClient

from catalog.models import CatalogChange, Project
from tests.factories import (
    apply,
    bundle,
    placement,
    project,
    streamed_json,
    synthetic_bundle,
)

pytestmark = pytest.mark.django_db


@pytest.fixture
def maintainer_api(alice):
    client = APIClient()
    client.force_authenticate(alice)
    return client


@pytest.fixture
def reader_api(bob):
    client = APIClient()
    client.force_authenticate(bob)
    return client


def test_projects_are_listed_with_their_placement_rows(reader_api):
    apply(
        bundle(project("hami", placement("device-plugin", provides=["resource:nvidia.com/gpumem"])))
    )

    body = reader_api.get("/api/v1/projects/").json()

    [hami] = body["results"]
    assert hami["slug"] == "hami"
    assert hami["placements"][0]["provides"] == ["resource:nvidia.com/gpumem"]
    assert hami["placements"][0]["layer"] == "data_plane"


def test_projects_filter_by_layer_unit_tag_and_text(reader_api):
    apply(
        bundle(
            project(
                "volcano",
                placement("scheduler", "control_plane", resource_units=["whole_gpu"]),
                tags=["batch"],
            ),
            project("mig", placement("m", resource_units=["mig_slice"]), tags=["partitioning"]),
        )
    )

    def slugs(**params):
        return [p["slug"] for p in reader_api.get("/api/v1/projects/", params).json()["results"]]

    assert slugs(layer="control_plane") == ["volcano"]
    assert slugs(unit="mig_slice") == ["mig"]
    assert slugs(tag="partitioning") == ["mig"]
    assert slugs(q="volc") == ["volcano"]


def test_project_list_queries_do_not_grow_with_the_catalog(
    reader_api, django_assert_max_num_queries
):
    apply(synthetic_bundle(60, rows_per_project=3))

    with django_assert_max_num_queries(12):
        assert reader_api.get("/api/v1/projects/").status_code == 200


def test_a_maintainer_creates_a_project_and_it_is_recorded(maintainer_api, alice):
    response = maintainer_api.post(
        "/api/v1/projects/",
        project("kueue", placement("controller", "control_plane")),
        format="json",
    )

    assert response.status_code == 201
    assert response.json()["placements"][0]["key"] == "controller"
    assert CatalogChange.objects.filter(project_slug="kueue", actor=alice).exists()


def test_unknown_vocabulary_is_a_400_naming_the_path_and_the_allowed_values(maintainer_api):
    body = project("kueue", placement("controller", "control_plane"))
    body["placements"][0]["layer"] = "scheduling_plane"

    response = maintainer_api.post("/api/v1/projects/", body, format="json")

    assert response.status_code == 400
    [error] = response.json()["errors"]
    assert error["path"] == "placements[0].layer"
    assert error["allowed"] == ["platform", "control_plane", "data_plane"]
    assert not Project.objects.filter(slug="kueue").exists()


def test_a_put_replaces_the_project_in_place(maintainer_api):
    apply(bundle(project("kueue", placement("controller", "control_plane", promise="Old."))))

    response = maintainer_api.put(
        "/api/v1/projects/kueue/",
        project("kueue", placement("controller", "control_plane", promise="New.")),
        format="json",
    )

    assert response.status_code == 200
    assert response.json()["placements"][0]["promise"] == "New."


def test_vocabulary_lists_the_bilingual_terms(reader_api):
    body = reader_api.get("/api/v1/vocabulary/").json()

    layers = {term["key"]: term["name_zh"] for term in body["layers"]}
    assert layers == {"data_plane": "数据平面", "control_plane": "控制面", "platform": "平台层"}


def test_placements_filter_by_interface(reader_api):
    apply(
        bundle(
            project("hami", placement("dp", provides=["resource:nvidia.com/gpumem"])),
            project("other", placement("dp", provides=["resource:amd.com/gpu"])),
        )
    )

    body = reader_api.get("/api/v1/placements/", {"interface": "resource:nvidia.com/gpumem"}).json()

    assert [row["project"] for row in body["results"]] == ["hami"]


def test_export_then_import_into_an_empty_catalog_gives_the_identical_document(
    maintainer_api, builtin_catalog
):
    exported = streamed_json(maintainer_api.get("/api/v1/export/"))
    Project.objects.all().delete()

    imported = maintainer_api.post("/api/v1/imports/", exported, format="json")
    again = streamed_json(maintainer_api.get("/api/v1/export/"))

    assert imported.status_code in (201, 202)
    assert again["projects"] == exported["projects"]


def test_the_bundle_schema_carries_the_live_vocabulary(reader_api):
    schema = reader_api.get("/api/v1/schema/bundle/").json()

    assert "mig_slice" in schema["$defs"]["resource_unit"]["enum"]


def test_the_openapi_description_is_valid_openapi(db, tmp_path):
    """Client generators refuse a description that is not valid OpenAPI 3.0 (the bundle's
    JSON Schema keywords that 3.0 lacks, such as propertyNames, must not leak into it)."""
    from django.core.management import call_command

    call_command("spectacular", "--validate", "--fail-on-warn", "--file", str(tmp_path / "s.yaml"))

    assert (tmp_path / "s.yaml").stat().st_size > 10_000
