"""GET /api/v1/kubernetes-features/: the feature facts, and their stage at a stated version."""

from __future__ import annotations

import pytest
from rest_framework.test import APIClient

pytestmark = pytest.mark.django_db
URL = "/api/v1/kubernetes-features/"


@pytest.fixture
def reader_api(bob):
    client = APIClient()
    client.force_authenticate(bob)
    return client


def test_it_lists_each_gate_with_its_stages_source_and_interface(reader_api):
    body = reader_api.get(URL).json()

    gates = {item["feature"]: item for item in body["features"]}
    assert body["version"] is None
    extended = gates["DRAExtendedResource"]
    assert extended["stages"]["1.34"] == "alpha"
    assert extended["default_on_since"] == "1.36"
    assert extended["interface"] == "api:kubernetes/feature/DRAExtendedResource"
    assert extended["source"].startswith("https://")
    assert "available" not in extended


def test_at_a_version_each_gate_says_its_stage_and_whether_it_is_on(reader_api):
    body = reader_api.get(URL, {"version": "v1.34.2"}).json()

    gates = {item["feature"]: item for item in body["features"]}
    assert body["version"] == "1.34"
    assert gates["DRAExtendedResource"]["stage"] == "alpha"
    assert gates["DRAExtendedResource"]["available"] is False
    assert gates["DynamicResourceAllocation"]["available"] is True


def test_a_version_that_is_not_one_is_a_400_naming_it(reader_api):
    response = reader_api.get(URL, {"version": "latest"})

    assert response.status_code == 400
    assert [error["path"] for error in response.json()["errors"]] == ["version"]


def test_anonymous_requests_are_refused():
    assert APIClient().get(URL).status_code == 401


def test_the_endpoint_is_in_the_openapi_schema(reader_api):
    schema = reader_api.get("/api/schema/?format=json").json()

    assert "/api/v1/kubernetes-features/" in schema["paths"]
