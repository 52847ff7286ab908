"""`/api/v1/evaluations/{id}/capacity/`: the state before and after a run, the result's shape as
the OpenAPI schema documents it, and every refusal a 4xx with the reason (never a 500)."""

from __future__ import annotations

import pytest
from django.core.management import call_command
from rest_framework.test import APIClient

from evaluations.simulations.api import CapacitySerializer
from evaluations.steps.services import evaluation_step_save
from tests.evaluations.factories import make_cast, make_evaluation
from tests.evaluations.simulations.test_capacity_pages import BOARD_PROFILE


@pytest.fixture
def cast(db):
    call_command("load_catalog", verbosity=0)
    return make_cast()


def api(user=None) -> APIClient:
    client = APIClient()
    if user is not None:
        client.force_authenticate(user)
    return client


def url(evaluation) -> str:
    return f"/api/v1/evaluations/{evaluation.pk}/capacity/"


def test_get_says_not_run_then_post_runs_it_and_get_returns_the_documented_result(
    cast, django_capture_on_commit_callbacks
):
    evaluation = make_evaluation(cast, profile=BOARD_PROFILE)

    before = api(cast.dave).get(url(evaluation))
    with django_capture_on_commit_callbacks(execute=True):
        posted = api(cast.dave).post(url(evaluation))
    after = api(cast.dave).get(url(evaluation))

    assert before.status_code == 200
    assert before.json()["status"] == "none"
    assert before.json()["result"] is None
    assert posted.status_code == 202
    assert after.status_code == 200
    body = after.json()
    # The body is what the schema publishes: the documenting serializer accepts it whole.
    documented = CapacitySerializer(data=body)
    assert documented.is_valid(), documented.errors
    assert body["status"] == "succeeded"
    result = body["result"]
    assert result["cluster"] == {
        "gpu_model": "NVIDIA H100 80GB",
        "nodes": 24,
        "gpus_per_node": 8,
        "gpus": 192,
        "tenants": [f"tenant-{n}" for n in range(1, 7)],
    }
    assert result["mix_source"] == "default"
    for stack in result["stacks"]:
        assert sum(pool["gpus"] for pool in stack["pools"]) == 192
        assert len(stack["alloc_curve"]) == 131
        assert 0 <= stack["frag_at_100"] <= 100
        assert stack["unplaced"] <= stack["tasks"]


def test_the_result_speaks_the_readers_language(cast, django_capture_on_commit_callbacks):
    evaluation = make_evaluation(cast, profile=BOARD_PROFILE)
    with django_capture_on_commit_callbacks(execute=True):
        api(cast.bob).post(url(evaluation))

    body = api(cast.bob).get(url(evaluation), HTTP_ACCEPT_LANGUAGE="zh-hans").json()

    notes = [stack["policy_note"] for stack in body["result"]["stacks"]]
    assert all(any("\u4e00" <= char <= "\u9fff" for char in note) for note in notes), notes


def test_a_profile_without_nodes_is_missing_on_get_and_refused_on_post(cast):
    profile = {key: value for key, value in BOARD_PROFILE.items() if key != "node_count"}
    evaluation = make_evaluation(cast, profile=profile)

    state = api(cast.bob).get(url(evaluation))
    refused = api(cast.bob).post(url(evaluation))

    assert state.json()["status"] == "missing"
    assert state.json()["reason"] == "Say how many GPU nodes there are in step 1 to size the pools."
    assert refused.status_code == 400
    assert refused.json()["errors"][0]["path"] == "profile"


def test_more_tenants_than_sizing_covers_is_a_400_not_a_hung_worker(cast):
    evaluation = make_evaluation(cast, profile={**BOARD_PROFILE, "tenant_count": 50_000})

    refused = api(cast.bob).post(url(evaluation))

    assert refused.status_code == 400
    assert "at most 256 tenants" in refused.json()["detail"]


# A NUL in the path is refused by the site's guard before any view (ecomap.middleware).
@pytest.mark.parametrize(("pk", "code"), [("999999", 404), ("abc", 404), ("1%00", 400)])
def test_an_unknown_or_malformed_evaluation_is_a_4xx(cast, pk, code):
    assert api(cast.bob).get(f"/api/v1/evaluations/{pk}/capacity/").status_code == code


def test_another_teams_evaluation_is_a_404_and_anonymous_is_refused(cast):
    evaluation = make_evaluation(cast, profile=BOARD_PROFILE)

    assert api(cast.charlie).get(url(evaluation)).status_code == 404
    assert api(cast.charlie).post(url(evaluation)).status_code == 404
    assert api().get(url(evaluation)).status_code in (401, 403)


def test_the_profile_api_refuses_a_bad_mix_with_the_entry_named(cast):
    evaluation = make_evaluation(cast, profile=BOARD_PROFILE)
    body = {
        **BOARD_PROFILE,
        "revision": evaluation.revision,
        "workload_mix": [{"workload": "training", "tasks": 4, "gpus": 8, "tenant": 9}],
    }

    refused = api(cast.bob).put(
        f"/api/v1/evaluations/{evaluation.pk}/steps/profile/", body, format="json"
    )

    assert refused.status_code == 400
    assert "entry 1: tenant must be a whole number from 1 to 6" in refused.json()["detail"]


def test_a_mix_saved_through_the_profile_api_is_the_mix_replayed(
    cast, django_capture_on_commit_callbacks
):
    evaluation = make_evaluation(cast, profile=BOARD_PROFILE)
    mix = [
        {"tenant": 1, "workload": "training", "tasks": 10, "gpus": 8},
        {"workload": "online_inference", "tasks": 100, "gpus": 1, "gpu_milli": 250},
    ]
    evaluation_step_save(
        evaluation=evaluation,
        actor=cast.bob,
        step="profile",
        data={**BOARD_PROFILE, "workload_mix": mix},
    )
    with django_capture_on_commit_callbacks(execute=True):
        api(cast.bob).post(url(evaluation))

    result = api(cast.bob).get(url(evaluation)).json()["result"]

    assert result["mix_source"] == "profile"
    assert [(line["workload"], line["tasks"]) for line in result["mix"]] == [
        ("training", 10),
        ("online_inference", 100),
    ]


def test_a_mix_sent_as_a_multipart_part_is_read_and_a_bad_one_refused(cast):
    """A form body carries the mix as one part of JSON text: it is read, never taken as empty."""
    evaluation = make_evaluation(cast, profile=BOARD_PROFILE)
    path = f"/api/v1/evaluations/{evaluation.pk}/steps/profile/"
    good = '[{"workload": "batch", "tasks": 3, "gpu_milli": 500}]'

    refused = api(cast.bob).put(
        path,
        {"revision": evaluation.revision, "workload_mix": '[{"workload": "interactive"}]'},
        format="multipart",
    )
    saved = api(cast.bob).put(
        path, {"revision": evaluation.revision, "workload_mix": good}, format="multipart"
    )

    assert refused.status_code == 400
    assert "workload_mix" in str(refused.json())
    assert saved.status_code == 200
    assert saved.json()["profile"]["workload_mix"][0]["gpu_milli"] == 500


@pytest.mark.parametrize(
    ("entry", "field"),
    [
        ({"workload": "training", "tasks": -4}, "tasks"),
        ({"workload": "training", "tasks": 4, "gpus": 2, "gpu_milli": 500}, "several GPUs"),
        ({"workload": "training", "tasks": 4, "gpu_types": ["Voodoo5"]}, "unknown GPU type"),
        ({"workload": "training", "tasks": 4, "tenant": 0}, "tenant"),
        ({"workload": "cooking", "tasks": 4}, "workload"),
        ({"workload": "training", "tasks": 10_000_000}, "tasks"),
    ],
)
def test_a_bad_mix_through_the_api_is_a_400_naming_what_is_wrong(cast, entry, field):
    evaluation = make_evaluation(cast, profile=BOARD_PROFILE)
    body = {**BOARD_PROFILE, "revision": evaluation.revision, "workload_mix": [entry]}

    refused = api(cast.bob).put(
        f"/api/v1/evaluations/{evaluation.pk}/steps/profile/", body, format="json"
    )

    assert refused.status_code == 400
    assert field in str(refused.json())


def test_more_mix_entries_than_the_cap_are_a_400(cast):
    evaluation = make_evaluation(cast, profile=BOARD_PROFILE)
    mix = [{"workload": "batch", "tasks": 1}] * 201
    body = {**BOARD_PROFILE, "revision": evaluation.revision, "workload_mix": mix}

    refused = api(cast.bob).put(
        f"/api/v1/evaluations/{evaluation.pk}/steps/profile/", body, format="json"
    )

    assert refused.status_code == 400
    assert "workload_mix" in str(refused.json())
