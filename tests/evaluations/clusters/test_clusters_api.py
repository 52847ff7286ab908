"""The cluster snapshot API: uploads (untrusted input), team scoping, history, and the
comparison with an evaluation's decision."""

from __future__ import annotations

import json

import pytest
from rest_framework.test import APIClient

from catalog.engine.cluster import MAX_BODY_BYTES, MAX_DEPTH
from evaluations.clusters.models import ClusterSnapshot
from tests.evaluations.cluster_factories import (
    body,
    conflicting_snapshot,
    sign_small_catalog,
    snapshot,
)
from tests.evaluations.factories import fill_steps, make_cast, make_evaluation, small_catalog

pytestmark = pytest.mark.django_db

BASE = "/api/v1/clusters/"


@pytest.fixture
def cast(db):
    small_catalog()
    sign_small_catalog()
    return make_cast()


def api(user=None) -> APIClient:
    client = APIClient()
    if user is not None:
        client.force_authenticate(user)
    return client


def upload(user, document, *, team: str = "platform", raw: bytes | None = None, **extra):
    return api(user).generic(
        "POST",
        f"{BASE}?team={team}",
        raw if raw is not None else body(document),
        content_type="application/json",
        **extra,
    )


def test_an_editor_uploads_a_snapshot_and_gets_its_check(cast):
    response = upload(cast.bob, snapshot())

    assert response.status_code == 201, response.content
    data = response.json()
    assert data["cluster"] == "prod-gpu"
    assert data["team"] == "platform"
    assert data["kubernetes_version"] == "v1.33.2"
    assert [row["row"] for row in data["summary"]["detected"]] == ["hami/device-plugin"]
    stored = ClusterSnapshot.objects.get()
    assert stored.uploaded_by == cast.bob
    assert stored.size_bytes == len(body(snapshot()))
    assert stored.document["cluster"] == "prod-gpu"


def test_two_device_plugins_on_the_same_nodes_are_an_error_finding(cast):
    response = upload(cast.bob, conflicting_snapshot())

    assert response.status_code == 201
    severities = {f["severity"] for f in response.json()["summary"]["findings"]}
    assert "error" in severities


def test_every_upload_is_kept_and_the_list_shows_the_latest_per_cluster(cast):
    upload(cast.bob, snapshot(collected_at="2026-11-01T10:00:00Z"))
    newest = upload(cast.bob, snapshot(collected_at="2026-12-01T10:00:00Z")).json()
    upload(cast.bob, snapshot("staging", collected_at="2026-10-01T10:00:00Z"))

    listed = api(cast.dave).get(BASE).json()["results"]

    assert ClusterSnapshot.objects.count() == 3
    assert [(item["cluster"], item["snapshot_count"]) for item in listed] == [
        ("prod-gpu", 2),
        ("staging", 1),
    ]
    assert listed[0]["id"] == newest["id"]
    detail = api(cast.dave).get(f"{BASE}{newest['id']}/").json()
    assert len(detail["history"]) == 2


def test_a_viewer_may_read_but_not_upload(cast):
    response = upload(cast.dave, snapshot())

    assert response.status_code == 403
    assert ClusterSnapshot.objects.count() == 0


def test_another_teams_snapshot_and_team_are_not_found(cast):
    mine = upload(cast.bob, snapshot()).json()

    assert api(cast.charlie).get(f"{BASE}{mine['id']}/").status_code == 404
    assert api(cast.charlie).get(BASE).json()["results"] == []
    assert upload(cast.charlie, snapshot(), team="platform").status_code == 404
    assert ClusterSnapshot.objects.count() == 1


def test_the_team_may_be_left_out_by_someone_in_one_team_only(cast):
    response = api(cast.charlie).generic(
        "POST", BASE, body(snapshot()), content_type="application/json"
    )

    assert response.status_code == 201
    assert response.json()["team"] == "research"


def test_signed_out_requests_are_refused(cast):
    assert api().get(BASE).status_code in (401, 403)
    assert upload(None, snapshot()).status_code in (401, 403)


def test_a_declared_length_over_the_limit_is_refused_before_reading(cast):
    response = upload(cast.bob, None, raw=b"{}", CONTENT_LENGTH=str(MAX_BODY_BYTES + 1))

    assert response.status_code == 413
    assert response.json()["errors"][0]["path"] == "$"
    assert ClusterSnapshot.objects.count() == 0


def test_a_body_over_the_limit_is_refused_with_413(cast):
    document = snapshot()
    document["nodes"]["items"][0]["metadata"]["annotations"] = {"pad": "x" * MAX_BODY_BYTES}

    response = upload(cast.bob, document)

    assert response.status_code == 413
    assert ClusterSnapshot.objects.count() == 0


def test_a_document_nested_too_deep_is_refused_with_its_path(cast):
    document = snapshot()
    deep: dict = {}
    cursor = deep
    for _level in range(MAX_DEPTH + 5):
        cursor["a"] = {}
        cursor = cursor["a"]
    document["nodes"]["items"][0]["metadata"]["annotations"] = deep

    response = upload(cast.bob, document)

    assert response.status_code == 400
    paths = [error["path"] for error in response.json()["errors"]]
    assert any(path.startswith("nodes.items[0].metadata.annotations") for path in paths), paths
    assert ClusterSnapshot.objects.count() == 0


def test_thousands_of_levels_are_refused_not_a_server_error(cast):
    raw = b'{"format": "ecomap.cluster/v1", "cluster": "x", "nodes": ' + b"[" * 100_000

    response = upload(cast.bob, None, raw=raw + b"]" * 100_000 + b"}")

    assert response.status_code == 400
    assert ClusterSnapshot.objects.count() == 0


def test_a_nul_character_is_refused(cast):
    raw = body(snapshot()).replace(b'"prod-gpu"', b'"prod\\u0000gpu"')

    response = upload(cast.bob, None, raw=raw)

    assert response.status_code == 400
    assert "NUL" in json.dumps(response.json())
    assert ClusterSnapshot.objects.count() == 0


def test_a_document_that_is_not_a_snapshot_names_the_failing_paths(cast):
    document = snapshot()
    del document["nodes"]
    document["format"] = "ecomap.bundle/v1"

    response = upload(cast.bob, document)

    assert response.status_code == 400
    data = response.json()
    assert data["detail"].startswith("The snapshot was refused")
    assert data["errors"] and all({"path", "message"} <= set(e) for e in data["errors"])
    assert ClusterSnapshot.objects.count() == 0


def test_text_that_is_not_json_is_refused(cast):
    response = upload(cast.bob, None, raw=b"nodes: [")

    assert response.status_code == 400
    assert ClusterSnapshot.objects.count() == 0


def test_an_empty_body_is_refused_with_400_not_a_server_error(cast):
    response = upload(cast.bob, None, raw=b"")

    assert response.status_code == 400
    data = response.json()
    assert data["errors"] == [{"path": "$", "message": data["errors"][0]["message"]}]
    assert "empty" in data["errors"][0]["message"]
    assert ClusterSnapshot.objects.count() == 0


def test_an_integer_of_thousands_of_digits_is_refused_not_a_server_error(cast):
    raw = body(snapshot()).replace(b'"format"', b'"padding": ' + b"9" * 5000 + b', "format"')

    response = upload(cast.bob, None, raw=raw)

    assert response.status_code == 400
    assert "more than 4300 digits" in response.json()["errors"][0]["message"]
    assert ClusterSnapshot.objects.count() == 0


def test_comparing_with_an_evaluation_shows_decided_rows_that_are_absent(cast):
    evaluation = fill_steps(make_evaluation(cast), cast.bob)  # HAMi + Volcano decided
    stored = upload(cast.bob, snapshot()).json()  # only HAMi runs

    response = api(cast.dave).get(f"{BASE}{stored['id']}/?evaluation={evaluation.pk}")

    assert response.status_code == 200
    data = response.json()
    assert data["evaluation"] == evaluation.pk
    about_volcano = [f for f in data["report"]["findings"] if "volcano/scheduler" in f["rows"]]
    assert about_volcano, data["report"]["findings"]


def test_comparing_with_another_teams_evaluation_is_not_found(cast):
    theirs = make_evaluation(cast)
    theirs.team = cast.other_team
    theirs.save(update_fields=["team"])
    stored = upload(cast.bob, snapshot()).json()

    response = api(cast.bob).get(f"{BASE}{stored['id']}/?evaluation={theirs.pk}")

    assert response.status_code == 404


def test_the_snapshot_format_schema_is_served(cast):
    response = api(cast.dave).get("/api/v1/schema/cluster/")

    assert response.status_code == 200
    assert response.json()["properties"]["format"]["const"] == "ecomap.cluster/v1"


def test_the_openapi_schema_documents_the_cluster_endpoints(cast):
    schema = api(cast.dave).get("/api/schema/?format=json").json()

    assert "/api/v1/clusters/" in schema["paths"]
    assert "413" in schema["paths"]["/api/v1/clusters/"]["post"]["responses"]
    assert "/api/v1/schema/cluster/" in schema["paths"]
