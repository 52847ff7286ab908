"""POST /api/v1/imports/: every format, dry runs, all-or-nothing, bad input of every kind."""

import json

import pytest
import yaml
from django.test import override_settings
from rest_framework.test import APIClient

from catalog.engine.formats import csv_template
from catalog.imports.models import ImportJob
from catalog.models import CatalogChange, PlacementRow, Project
from tests.factories import apply, bundle, placement, project, synthetic_bundle

pytestmark = pytest.mark.django_db


@pytest.fixture
def api(alice):
    client = APIClient()
    client.force_authenticate(alice)
    return client


def post(api, body, content_type, **params):
    query = "&".join(f"{key}={value}" for key, value in params.items())
    return api.generic("POST", f"/api/v1/imports/?{query}", body, content_type=content_type)


def test_a_json_bundle_is_applied_and_recorded(api, alice):
    document = bundle(project("hami", placement("device-plugin")))

    response = post(api, json.dumps(document), "application/json", source="vendor")

    assert response.status_code == 201
    body = response.json()
    assert body["status"] == "succeeded"
    assert body["counts"]["rows"]["created"] == 1
    job = ImportJob.objects.get(id=body["id"])
    assert (job.created_by, job.source) == (alice, "vendor")


def test_a_yaml_bundle_is_applied(api):
    document = bundle(project("hami", placement("device-plugin")))

    response = post(api, yaml.safe_dump(document), "application/yaml")

    assert response.status_code == 201
    assert Project.objects.filter(slug="hami").exists()


def test_importing_the_same_bundle_twice_changes_nothing_the_second_time(api):
    text = json.dumps(bundle(project("hami", placement("device-plugin"))))
    post(api, text, "application/json")

    second = post(api, text, "application/json").json()

    assert second["counts"]["rows"] == {"created": 0, "updated": 0, "unchanged": 1}
    assert second["changes"] == []


def test_a_dry_run_reports_field_changes_and_writes_nothing(api):
    apply(bundle(project("hami", placement("device-plugin", promise="Before."))))
    changes_before = CatalogChange.objects.count()
    text = json.dumps(bundle(project("hami", placement("device-plugin", promise="After."))))

    body = post(api, text, "application/json", dry_run=1).json()

    assert body["dry_run"] is True
    [change] = body["changes"]
    assert change["changes"]["promise"] == {"old": "Before.", "new": "After."}
    assert PlacementRow.objects.get().promise == "Before."
    assert CatalogChange.objects.count() == changes_before


def test_one_bad_row_among_a_thousand_is_a_400_with_its_path_and_nothing_is_written(api):
    document = synthetic_bundle(250, rows_per_project=4)
    document["projects"][137]["placements"][2]["resource_units"] = ["half_gpu"]

    response = post(api, json.dumps(document), "application/json")

    assert response.status_code == 400
    [error] = response.json()["errors"]
    assert error["path"] == "projects[137].placements[2].resource_units[0]"
    assert "mig_slice" in error["allowed"]
    assert Project.objects.count() == 0
    assert ImportJob.objects.get().status == "failed"


def test_malformed_json_is_a_400_with_the_parsers_position(api):
    response = post(api, '{"format": "ecomap.bundle/v1", "projects": [}', "application/json")

    assert response.status_code == 400
    message = response.json()["errors"][0]["message"]
    assert "line 1, column" in message


def test_malformed_yaml_is_a_400_with_the_parsers_position(api):
    response = post(
        api, "format: ecomap.bundle/v1\nprojects: [\n  - slug: a\n  bad", "application/yaml"
    )

    assert response.status_code == 400
    assert "line" in response.json()["errors"][0]["message"]


def test_yaml_is_loaded_safely(api):
    hostile = "!!python/object/apply:os.system ['echo pwned']"

    response = post(api, hostile, "application/yaml")

    assert response.status_code == 400


def test_an_unsupported_content_type_is_a_415(api):
    response = post(api, "<xml/>", "application/xml")

    assert response.status_code == 415


@override_settings(IMPORT_MAX_BYTES=1000)
def test_a_body_over_the_limit_is_a_413_and_nothing_is_written(api):
    document = synthetic_bundle(20)

    response = post(api, json.dumps(document), "application/json")

    assert response.status_code == 413
    assert Project.objects.count() == 0


def test_a_csv_import_creates_rows_and_errors_name_the_csv_line(api):
    ok = post(api, csv_template(), "text/csv")
    assert ok.status_code == 201
    assert PlacementRow.objects.filter(project__slug="example-plugin").exists()

    bad = csv_template().replace(",data_plane,", ",gpu_plane,")
    response = post(api, bad, "text/csv")

    assert response.status_code == 400
    [error] = response.json()["errors"]
    assert error["where"].startswith("line 2")
    assert error["path"] == "projects[0].placements[0].layer"


def test_a_csv_with_unknown_columns_is_rejected_naming_them(api):
    response = post(
        api, "project_slug,key,layer,resource_units,enforcement_points,promise,colour\n", "text/csv"
    )

    assert response.status_code == 400
    assert "colour" in response.json()["errors"][0]["message"]


def test_the_csv_template_round_trips(api):
    template = api.get("/api/v1/imports/csv-template/")

    assert template["Content-Type"].startswith("text/csv")
    assert post(api, template.content.decode(), "text/csv").status_code == 201


def test_an_uploaded_file_is_imported(api):
    from django.core.files.uploadedfile import SimpleUploadedFile

    upload = SimpleUploadedFile("vendor.csv", csv_template().encode(), content_type="text/csv")

    response = api.post("/api/v1/imports/", {"file": upload}, format="multipart")

    assert response.status_code == 201
    assert response.json()["source"] == "vendor.csv"


@override_settings(IMPORT_INLINE_MAX_ITEMS=5)
def test_a_large_import_is_queued_as_a_job_and_applied_by_the_worker(
    api, django_capture_on_commit_callbacks
):
    document = synthetic_bundle(10, rows_per_project=2)

    with django_capture_on_commit_callbacks(execute=True):
        response = post(api, json.dumps(document), "application/json")

    assert response.status_code == 202
    job = ImportJob.objects.get(id=response.json()["id"])
    assert job.status == "succeeded"
    assert job.counts["rows"]["created"] == 20
    assert job.payload is None
    detail = api.get(f"/api/v1/imports/{job.id}/").json()
    assert detail["progress"] == {"done": 30, "total": 30, "percent": 100}


def test_a_failure_while_rows_stream_into_the_database_writes_nothing(api, monkeypatch):
    """Rows are produced while COPY sends them: an error half-way through one must still leave
    the catalog exactly as it was, stored projects included."""
    import catalog.services

    post(api, json.dumps(synthetic_bundle(2, rows_per_project=2)), "application/json")
    before = (
        Project.objects.count(),
        PlacementRow.objects.count(),
        CatalogChange.objects.count(),
        sorted(PlacementRow.objects.values_list("promise", flat=True)),
    )
    document = synthetic_bundle(6, rows_per_project=2)
    document["projects"][0]["placements"][0]["promise"] = "Changed."
    calls = 0
    real_row_fields = catalog.services._row_fields

    def failing_row_fields(placement, layer_ids):
        nonlocal calls
        calls += 1
        if calls == 5:  # the fifth of the eight new rows, while the COPY is under way
            raise RuntimeError("the database went away")
        return real_row_fields(placement, layer_ids)

    monkeypatch.setattr(catalog.services, "_row_fields", failing_row_fields)

    with pytest.raises(RuntimeError, match="went away"):
        post(api, json.dumps(document), "application/json")

    assert calls == 5
    after = (
        Project.objects.count(),
        PlacementRow.objects.count(),
        CatalogChange.objects.count(),
        sorted(PlacementRow.objects.values_list("promise", flat=True)),
    )
    assert after == before
    assert not Project.objects.filter(slug="project-00005").exists()
