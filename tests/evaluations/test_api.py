"""The evaluations API: team scoping, roles, the workflow, and the OpenAPI schema."""

from __future__ import annotations

import pytest
from django.urls import include, path
from rest_framework.test import APIClient

from ecomap.urls import urlpatterns as site_urlpatterns
from evaluations.audit.models import AuditEntry
from evaluations.models import Evaluation, State
from tests.evaluations.factories import (
    MIXED_PROFILE,
    fill_steps,
    make_cast,
    make_evaluation,
    small_catalog,
    submitted,
)

# The lead mounts evaluations.api.urls under /api/v1/; this module mounts it the same way so
# the tests do not depend on when that lands.
urlpatterns = [path("api/v1/", include("evaluations.api.urls")), *site_urlpatterns]

pytestmark = [pytest.mark.django_db, pytest.mark.urls(__name__)]

BASE = "/api/v1/evaluations/"


@pytest.fixture
def cast(db):
    small_catalog()
    return make_cast()


@pytest.fixture
def evaluation(cast):
    return fill_steps(make_evaluation(cast), cast.bob)


def api(user=None) -> APIClient:
    client = APIClient()
    if user is not None:
        client.force_authenticate(user)
    return client


def endpoint(evaluation, suffix: str = "") -> str:
    return f"{BASE}{evaluation.pk}/{suffix}"


READS = ["", "comparison/", "recommendations/"]
WRITES = [
    ("put", "steps/profile/", {"tenancy": "multi", "revision": 1}),
    ("put", "steps/units/", {"units": [{"unit": "whole_gpu"}], "revision": 1}),
    ("put", "steps/candidates/", {"candidates": [{"row": "volcano/scheduler"}], "revision": 1}),
    ("put", "steps/boundaries/", {"boundaries": [], "revision": 1}),
    ("put", "decision/", {"rows": ["hami/device-plugin"], "revision": 1}),
    ("post", "submit/", {}),
    ("post", "review/", {"verdict": "approve"}),
    ("post", "archive/", {}),
]


def test_anonymous_requests_are_refused(cast, evaluation):
    assert api().get(BASE).status_code in (401, 403)
    assert api().get(endpoint(evaluation)).status_code in (401, 403)


def test_the_list_holds_only_the_users_teams(cast, evaluation):
    assert [e["id"] for e in api(cast.dave).get(BASE).json()["results"]] == [evaluation.pk]
    assert api(cast.charlie).get(BASE).json()["results"] == []


@pytest.mark.parametrize("suffix", READS)
def test_another_teams_evaluation_answers_404(cast, evaluation, suffix):
    assert api(cast.charlie).get(endpoint(evaluation, suffix)).status_code == 404


@pytest.mark.parametrize(("method", "suffix", "body"), WRITES)
def test_another_team_cannot_write(cast, evaluation, method, suffix, body):
    response = getattr(api(cast.charlie), method)(endpoint(evaluation, suffix), body, format="json")

    assert response.status_code == 404
    assert Evaluation.objects.get(pk=evaluation.pk).revision == evaluation.revision


@pytest.mark.parametrize(("method", "suffix", "body"), WRITES[:6])
def test_a_viewer_cannot_edit(cast, evaluation, method, suffix, body):
    response = getattr(api(cast.dave), method)(endpoint(evaluation, suffix), body, format="json")

    assert response.status_code == 403
    assert "editor role" in response.json()["detail"]


def test_an_editor_creates_an_evaluation_in_their_team(cast):
    response = api(cast.bob).post(BASE, {"title": "Via API", "team": "platform"}, format="json")

    assert response.status_code == 201
    assert response.json()["state"] == "draft"
    assert response.json()["your_role"] == "editor"


def test_creating_in_a_team_you_are_not_in_answers_404(cast):
    response = api(cast.bob).post(BASE, {"title": "No", "team": "research"}, format="json")

    assert response.status_code == 404


def test_a_viewer_cannot_create(cast):
    response = api(cast.dave).post(BASE, {"title": "No", "team": "platform"}, format="json")

    assert response.status_code == 403


def test_the_four_steps_decision_and_review_through_the_api(cast):
    client = api(cast.bob)
    pk = client.post(BASE, {"title": "API flow", "team": "platform"}, format="json").json()["id"]
    url = f"{BASE}{pk}/"
    revision = client.get(url).json()["revision"]  # every save says the revision it was made on

    profile = {**MIXED_PROFILE, "revision": revision}
    response = client.put(f"{url}steps/profile/", profile, format="json")
    assert response.status_code == 200
    body = client.put(
        f"{url}steps/units/",
        {"units": [{"unit": "memory_compute_quota"}], "revision": response.json()["revision"]},
        format="json",
    ).json()
    body = client.put(
        f"{url}steps/candidates/",
        {
            "candidates": [
                {"row": "hami/device-plugin", "points_confirmed": True},
                {"row": "volcano/scheduler", "points_confirmed": True},
            ],
            "revision": body["revision"],
        },
        format="json",
    ).json()
    assert body["candidates"][1]["enforcement_points"] == ["scheduler", "admission"] or set(
        body["candidates"][1]["enforcement_points"]
    ) == {"scheduler", "admission"}
    boundaries = [
        {"row": c["row"], "promise": c["promise"], "non_promise": c["non_promise"]}
        for c in body["candidates"]
    ]
    body = client.put(
        f"{url}steps/boundaries/",
        {"boundaries": boundaries, "revision": body["revision"]},
        format="json",
    ).json()
    assert body["steps_done"] == {
        "profile": True,
        "units": True,
        "candidates": True,
        "boundaries": True,
    }
    decided = client.put(
        f"{url}decision/",
        {
            "rows": ["hami/device-plugin", "volcano/scheduler"],
            "rationale": "compose",
            "revision": body["revision"],
        },
        format="json",
    ).json()
    assert decided["report"]["ok"] is True
    assert client.post(f"{url}submit/").json()["state"] == "in_review"

    assert api(cast.bob).post(f"{url}review/", {"verdict": "approve"}).status_code == 403
    response = api(cast.carol).post(
        f"{url}review/",
        {"verdict": "request_changes", "step_comments": {"units": "MIG too?"}},
        format="json",
    )
    assert response.json()["state"] == "changes_requested"
    assert response.json()["reviews"][0]["step_comments"] == {"units": "MIG too?"}


def test_an_invalid_profile_answers_400_naming_the_field(cast, evaluation):
    response = api(cast.bob).put(
        endpoint(evaluation, "steps/profile/"),
        {"tenancy": "many", "revision": evaluation.revision},
        format="json",
    )

    assert response.status_code == 400
    assert [error["path"] for error in response.json()["errors"]] == ["tenancy"]


def test_an_unknown_candidate_row_answers_400(cast, evaluation):
    response = api(cast.bob).put(
        endpoint(evaluation, "steps/candidates/"),
        {"candidates": [{"row": "nope/nope"}], "revision": evaluation.revision},
        format="json",
    )

    assert response.status_code == 400
    assert "nope/nope" in response.json()["detail"]


def test_submitting_an_incomplete_evaluation_answers_400_with_what_is_missing(cast):
    evaluation = make_evaluation(cast)

    response = api(cast.bob).post(endpoint(evaluation, "submit/"))

    assert response.status_code == 400
    # The one error shape: each message with the path it is about.
    steps = [e["message"] for e in response.json()["errors"] if e["path"] == "steps"]
    assert any("Workload and SLO" in message for message in steps)


def test_an_author_cannot_approve_through_the_api(cast):
    evaluation = make_evaluation(cast, title="Alice's")
    evaluation.created_by = cast.alice
    evaluation.save(update_fields=["created_by"])
    fill_steps(evaluation, cast.alice)
    api(cast.alice).post(endpoint(evaluation, "submit/"))

    response = api(cast.alice).post(endpoint(evaluation, "review/"), {"verdict": "approve"})

    assert response.status_code == 403
    assert Evaluation.objects.get(pk=evaluation.pk).state == State.IN_REVIEW


def test_approving_a_draft_answers_400(cast, evaluation):
    response = api(cast.carol).post(endpoint(evaluation, "review/"), {"verdict": "approve"})

    assert response.status_code == 400


def test_the_detail_carries_the_audit_log(cast):
    evaluation = submitted(cast)

    audit = api(cast.dave).get(endpoint(evaluation)).json()["audit"]

    assert audit[0]["action"] == "submitted"
    assert audit[0]["actor"] == "bob-editor"
    assert len(audit) == AuditEntry.objects.filter(evaluation=evaluation).count()


def test_the_comparison_endpoint_reports_misjudgements(cast):
    evaluation = make_evaluation(cast)
    api(cast.bob).put(
        endpoint(evaluation, "steps/candidates/"),
        {
            "candidates": [
                {"row": "hami/device-plugin", "alternative_group": "x"},
                {"row": "volcano/scheduler", "alternative_group": "x"},
                {"row": "time-slicer/plugin"},
            ],
            "revision": evaluation.revision,
        },
        format="json",
    )

    body = api(cast.dave).get(endpoint(evaluation, "comparison/")).json()

    assert [m["kind"] for m in body["misjudgements"]] == ["cross_layer"]
    assert [(c["a"], c["b"]) for c in body["conflicts"]] == [
        ("hami/device-plugin", "time-slicer/plugin")
    ]
    hami_volcano = [p for p in body["pairs"] if p["projects"] == ["hami", "volcano"]]
    assert hami_volcano[0]["verdict"] == "composes"


def test_the_schema_documents_the_evaluation_endpoints_and_their_errors(cast):
    client = api(cast.bob)

    schema = client.get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json").json()

    paths = schema["paths"]
    assert "/api/v1/evaluations/" in paths
    review = paths["/api/v1/evaluations/{id}/review/"]["post"]
    assert {"200", "400", "403", "404"} <= set(review["responses"])
    assert "/api/v1/evaluations/{id}/steps/profile/" in paths


def test_an_api_edit_on_an_older_revision_is_a_409(cast):
    evaluation = make_evaluation(cast)
    loaded = evaluation.revision
    api(cast.alice).put(
        endpoint(evaluation, "steps/profile/"),
        {"tenancy": "multi", "revision": loaded},
        format="json",
    )

    stale = api(cast.bob).put(
        endpoint(evaluation, "steps/profile/"),
        {"isolation": "hard", "revision": loaded},
        format="json",
    )
    fresh = api(cast.bob).put(
        endpoint(evaluation, "steps/profile/"),
        {"isolation": "hard", "revision": loaded + 1},
        format="json",
    )

    assert stale.status_code == 409
    assert "saved this evaluation" in stale.json()["detail"]
    assert fresh.status_code == 200


def test_the_decision_says_which_pools_serve_one_tenant(cast, evaluation):
    url = endpoint(evaluation, "decision/")
    body = {
        "rows": ["hami/device-plugin", "volcano/scheduler"],
        "pools": {"notebooks": ["hami/device-plugin"]},
        "pool_tenant_sharing": {"notebooks": "within_tenant"},
        "revision": evaluation.revision,
    }

    response = api(cast.bob).put(url, body, format="json")

    assert response.status_code == 200, response.json()
    assert response.json()["decision"]["pool_tenant_sharing"] == {"notebooks": "within_tenant"}


def test_tenant_sharing_outside_the_vocabulary_answers_400_naming_it(cast, evaluation):
    body = {
        "rows": ["hami/device-plugin"],
        "pools": {"notebooks": ["hami/device-plugin"]},
        "pool_tenant_sharing": {"notebooks": "sometimes"},
        "revision": evaluation.revision,
    }

    response = api(cast.bob).put(endpoint(evaluation, "decision/"), body, format="json")

    assert response.status_code == 400
    assert [e["path"] for e in response.json()["errors"]] == ["pool_tenant_sharing.notebooks"]


def test_the_recommendations_schema_documents_pool_details(client):
    schema = client.get("/api/schema/?format=json").json()

    pool = schema["components"]["schemas"]["PoolDetail"]["properties"]
    assert set(pool) == {
        "label",
        "units",
        "isolation",
        "tenant_sharing",
        "workloads",
        "acceptance_checks",
        "node_group",
        "gpu_model",
        "tenants",
        "demand",
    }
    assert "pool_details" in schema["components"]["schemas"]["Recommendation"]["properties"]


# Issue 28 L8: a content save that does not say its revision is refused, never last-writer-wins.
CONTENT_WRITES = WRITES[:5]


@pytest.mark.parametrize(("method", "suffix", "body"), CONTENT_WRITES)
def test_a_save_without_its_revision_answers_428_and_saves_nothing(
    cast, evaluation, method, suffix, body
):
    before = AuditEntry.objects.filter(evaluation=evaluation).count()
    without = {key: value for key, value in body.items() if key != "revision"}

    response = getattr(api(cast.bob), method)(endpoint(evaluation, suffix), without, format="json")

    assert response.status_code == 428
    data = response.json()
    assert data["errors"] == [{"path": "revision", "message": data["detail"]}]
    assert "GET /api/v1/evaluations/{id}/" in data["detail"]
    assert Evaluation.objects.get(pk=evaluation.pk).revision == evaluation.revision
    assert AuditEntry.objects.filter(evaluation=evaluation).count() == before


def test_a_null_revision_is_no_revision(cast, evaluation):
    response = api(cast.bob).put(
        endpoint(evaluation, "steps/profile/"),
        {"tenancy": "multi", "revision": None},
        format="json",
    )

    assert response.status_code == 428


def test_a_viewer_without_a_revision_still_hears_403(cast, evaluation):
    response = api(cast.dave).put(
        endpoint(evaluation, "steps/profile/"), {"tenancy": "multi"}, format="json"
    )

    assert response.status_code == 403


def test_the_second_of_two_saves_from_one_read_is_a_409_not_an_overwrite(cast, evaluation):
    read = api(cast.bob).get(endpoint(evaluation)).json()["revision"]
    first = api(cast.alice).put(
        endpoint(evaluation, "steps/profile/"), {"tenancy": "multi", "revision": read}, "json"
    )

    second = api(cast.bob).put(
        endpoint(evaluation, "steps/profile/"), {"tenancy": "single", "revision": read}, "json"
    )

    assert (first.status_code, second.status_code) == (200, 409)
    assert Evaluation.objects.get(pk=evaluation.pk).engine_profile().tenancy == "multi"


def test_the_schema_requires_the_revision_and_documents_428(cast):
    schema = api(cast.bob).get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json")
    schema = schema.json()

    for _method, suffix, _body in CONTENT_WRITES:
        operation = schema["paths"][f"/api/v1/evaluations/{{id}}/{suffix}"]["put"]
        assert {"409", "428"} <= set(operation["responses"]), suffix
        ref = operation["requestBody"]["content"]["application/json"]["schema"]["$ref"]
        component = schema["components"]["schemas"][ref.rsplit("/", 1)[-1]]
        assert "revision" in component["required"], suffix


def test_a_refused_transition_answers_in_the_one_error_shape(cast, evaluation):
    response = api(cast.alice).post(endpoint(evaluation, "review/"), {"verdict": "approve"})

    assert response.status_code == 400
    data = response.json()
    assert data["errors"] == [{"path": "$", "message": data["detail"]}]


def test_the_decision_record_refuses_a_language_it_does_not_speak(cast):
    evaluation = fill_steps(make_evaluation(cast), cast.bob)

    for suffix in ("adr/", "adr.md"):
        response = api(cast.dave).get(endpoint(evaluation, suffix), {"lang": "COM1"})

        assert response.status_code == 400, suffix
        assert response.json()["errors"][0]["path"] == "lang"


def test_recommendations_are_documented_as_the_ranking_they_are(cast):
    schema = api(cast.bob).get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json")

    operation = schema.json()["paths"]["/api/v1/evaluations/{id}/recommendations/"]["get"]
    body = operation["responses"]["200"]["content"]["application/json"]["schema"]
    ranking = schema.json()["components"]["schemas"][body["$ref"].rsplit("/", 1)[1]]
    assert set(ranking["required"]) >= {"stacks", "left_out", "unknown_models"}
    assert ranking["properties"]["stacks"]["type"] == "array"


def test_recommendations_refuse_a_limit_that_is_not_a_number(cast):
    evaluation = fill_steps(make_evaluation(cast), cast.bob)

    refused = api(cast.dave).get(endpoint(evaluation, "recommendations/"), {"limit": "+\x94x"})

    assert refused.status_code == 400
    assert refused.json()["errors"][0]["path"] == "limit"


def test_the_profile_api_keeps_tenant_sharing_and_isolation_per_workload(cast, evaluation):
    """Step 1's page asks whether GPUs may be shared between tenants and how isolated each
    workload type must be; the API saves and returns the same answers, and says which value
    is wrong rather than dropping it."""
    client = api(cast.bob)
    profile = {
        **MIXED_PROFILE,
        "cross_tenant_sharing": "hard_partitions",
        "workload_isolation": {"training": "hard"},
        "revision": evaluation.revision,
    }

    response = client.put(endpoint(evaluation, "steps/profile/"), profile, format="json")

    assert response.status_code == 200, response.json()
    evaluation.refresh_from_db()
    assert evaluation.profile["cross_tenant_sharing"] == "hard_partitions"
    assert evaluation.profile["workload_isolation"] == {"training": "hard"}
    body = client.get(endpoint(evaluation)).json()
    assert body["profile"]["cross_tenant_sharing"] == "hard_partitions"
    assert body["profile"]["workload_isolation"] == {"training": "hard"}

    bad = client.put(
        endpoint(evaluation, "steps/profile/"),
        {**profile, "workload_isolation": {"training": "total"}, "revision": evaluation.revision},
        format="json",
    )
    assert bad.status_code == 400
    assert [e["path"] for e in bad.json()["errors"]] == ["workload_isolation.training"]
    evaluation.refresh_from_db()
    assert evaluation.profile["workload_isolation"] == {"training": "hard"}


def test_isolation_for_a_workload_type_the_profile_does_not_run_answers_400(cast, evaluation):
    response = api(cast.bob).put(
        endpoint(evaluation, "steps/profile/"),
        {
            **MIXED_PROFILE,
            "workload_isolation": {"interactive": "hard"},
            "revision": evaluation.revision,
        },
        format="json",
    )

    assert response.status_code == 400
    assert "interactive" in response.json()["detail"]
