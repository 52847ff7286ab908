"""Profile v2 through the API and the shell: step 1's PUT takes and returns node groups, named
tenants and installed components, the schema documents their shapes and bounds, and
`recommend PROFILE.json --json` takes them."""

from __future__ import annotations

import json

import pytest
from django.core.management import CommandError, call_command
from rest_framework.test import APIClient

from tests.evaluations.factories import make_cast, make_evaluation
from tests.evaluations.steps.test_profile_fleet_step import GROUPS, INSTALLED, TENANTS

pytestmark = pytest.mark.django_db

HOSPITAL = {
    "isolation": "hard",
    "kubernetes_version": "1.31",
    "node_groups": GROUPS,
    "tenants": TENANTS,
    "installed": INSTALLED,
}


@pytest.fixture
def cast(db):
    return make_cast()


@pytest.fixture
def evaluation(cast):
    return make_evaluation(cast)


def put_profile(user, evaluation, body):
    client = APIClient()
    client.force_authenticate(user)
    url = f"/api/v1/evaluations/{evaluation.pk}/"
    revision = client.get(url).json()["revision"]
    return client.put(f"{url}steps/profile/", {**body, "revision": revision}, format="json")


def test_a_put_of_step_one_takes_and_returns_the_hospital(cast, evaluation):
    response = put_profile(cast.bob, evaluation, HOSPITAL)

    assert response.status_code == 200
    profile = response.json()["profile"]
    assert profile["node_groups"] == GROUPS
    assert profile["tenants"] == TENANTS
    assert profile["installed"] == INSTALLED


def test_a_put_that_leaves_the_three_out_clears_them(cast, evaluation):
    put_profile(cast.bob, evaluation, HOSPITAL)

    response = put_profile(cast.bob, evaluation, {"isolation": "hard"})

    profile = response.json()["profile"]
    assert (profile["node_groups"], profile["tenants"], profile["installed"]) == (None,) * 3


def test_a_tenant_name_that_is_not_a_kubernetes_name_answers_400(cast, evaluation):
    tenants = [{**TENANTS[0], "name": "Clinical Team"}]

    response = put_profile(cast.bob, evaluation, {**HOSPITAL, "tenants": tenants})

    assert response.status_code == 400
    assert "tenants" in json.dumps(response.json())


def test_a_demand_for_work_the_tenant_does_not_run_answers_400_naming_the_entry(cast, evaluation):
    line = {"workload": "training", "gpus": 4}
    tenants = [{**TENANTS[0], "demand": [line]}, *TENANTS[1:]]

    response = put_profile(cast.bob, evaluation, {**HOSPITAL, "tenants": tenants})

    assert response.status_code == 400
    assert "tenants[0].demand[0].workload" in response.json()["detail"]


def test_a_single_model_beside_mixed_groups_answers_400(cast, evaluation):
    response = put_profile(cast.bob, evaluation, {**HOSPITAL, "gpu_model": "A100 40GB"})

    assert response.status_code == 400
    assert "gpu_model" in response.json()["detail"]


def test_the_schema_documents_the_nested_shapes_and_their_bounds(client):
    schema = client.get("/api/schema/?format=json").json()
    shapes = schema["components"]["schemas"]

    profile = shapes["Profile"]["properties"]
    assert profile["node_groups"]["maxItems"] == 32
    assert profile["tenants"]["maxItems"] == 1000
    assert profile["installed"]["maxItems"] == 100
    group = shapes["NodeGroup"]["properties"]
    assert group["gpus_per_node"]["maximum"] == 64
    assert "pattern" in group["name"]
    demand = shapes["Demand"]["properties"]
    assert demand["replicas"]["maximum"] == 100_000
    assert shapes["Tenant"]["properties"]["demand"]["maxItems"] == 16


# The shell


@pytest.fixture
def profile_file(tmp_path):
    def write(data) -> str:
        path = tmp_path / "profile.json"
        path.write_text(json.dumps(data))
        return str(path)

    return write


def test_recommend_takes_the_hospital_profile(builtin_catalog, profile_file, capsys):
    call_command("recommend", profile_file(HOSPITAL), "--json", limit=2)

    json.loads(capsys.readouterr().out)  # one JSON document (its shape is the ranking's)


def test_recommend_refuses_a_bad_tenant_naming_it(db, profile_file):
    bad = {**HOSPITAL, "tenants": [{**TENANTS[0], "name": "Clinical Team"}]}

    with pytest.raises(CommandError, match=r"tenants\[0\]\.name"):
        call_command("recommend", profile_file(bad), "--json")
