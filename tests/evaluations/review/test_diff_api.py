"""GET /api/v1/evaluations/{id}/diff/?from=R&to=S: the diff as JSON, scoped to the team."""

from __future__ import annotations

import pytest
from rest_framework.test import APIClient

from evaluations.decisions.services import evaluation_decide
from evaluations.models import Evaluation
from evaluations.steps.services import evaluation_step_save
from tests.evaluations.factories import (
    MIXED_PROFILE,
    make_cast,
    small_catalog,
)
from tests.evaluations.factories import (
    approved as approved_evaluation,
)

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _every_save_a_revision(settings):
    """These tests compare revisions one save apart: each save keeps its own revision here
    (one editor's saves within a minute are coalesced; tests/evaluations/review/
    test_revision_coalescing.py covers that)."""
    settings.REVISION_COALESCE_SECONDS = 0


@pytest.fixture
def cast(db):
    small_catalog()
    return make_cast()


@pytest.fixture
def changed(cast):
    """An evaluation approved at one revision, then changed in two fields by two people."""
    evaluation = approved_evaluation(cast)
    evaluation_step_save(
        evaluation=evaluation,
        actor=cast.bob,
        step="profile",
        data={**MIXED_PROFILE, "p99_target_ms": 150},
    )
    evaluation_decide(
        evaluation=evaluation,
        actor=cast.alice,
        rows=["hami/device-plugin", "volcano/scheduler"],
        rationale="Tighter target, same stack.",
    )
    return Evaluation.objects.get(pk=evaluation.pk)


def get(user, evaluation, **params):
    client = APIClient()
    client.force_authenticate(user)
    return client.get(f"/api/v1/evaluations/{evaluation.pk}/diff/", params)


def test_the_diff_defaults_to_the_changes_since_the_last_approval(cast, changed):
    response = get(cast.dave, changed)

    assert response.status_code == 200
    body = response.json()
    assert body["from_revision"]["revision"] == body["last_approved_revision"]
    assert body["to_revision"]["revision"] == changed.revision == body["current_revision"]
    changes = [
        (c["section"], c["field"], c["old"], c["new"])
        for s in body["sections"]
        for c in s["changes"]
    ]
    assert changes == [
        ("profile", "p99_target_ms", 200, 150),
        ("decision", "rationale", "HAMi shares, Volcano governs.", "Tighter target, same stack."),
    ]
    assert body["change_count"] == 2
    touched = {s["section"]: [t["actor"] for t in s["touched_by"]] for s in body["sections"]}
    assert touched == {"profile": ["bob-editor"], "decision": ["alice-admin"]}


def test_explicit_revisions_are_compared(cast, changed):
    body = get(cast.bob, changed, **{"from": 1, "to": 2}).json()

    assert (body["from_revision"]["revision"], body["to_revision"]["revision"]) == (1, 2)
    assert {c["field"] for s in body["sections"] for c in s["changes"]} >= {"jitter_tolerance"}


@pytest.mark.parametrize(
    ("params", "words"),
    [
        ({"from": 3, "to": 2}, "comes after"),
        ({"from": 1, "to": 999}, "no revision 999"),
        ({"from": "abc"}, "not a revision number"),
        ({"from": 0}, "no revision 0"),
    ],
)
def test_an_unknown_revision_or_a_reversed_pair_is_a_400_that_says_why(
    cast, changed, params, words
):
    response = get(cast.bob, changed, **params)

    assert response.status_code == 400
    assert words in response.json()["detail"]


def test_another_teams_evaluation_is_not_found(cast, changed):
    assert get(cast.charlie, changed).status_code == 404


def test_the_diff_is_in_the_openapi_schema(cast):
    client = APIClient()
    schema = client.get("/api/schema/", {"format": "json"}).json()

    operation = schema["paths"]["/api/v1/evaluations/{id}/diff/"]["get"]
    assert {p["name"] for p in operation["parameters"]} >= {"from", "to"}
    assert {"200", "400", "404"} <= set(operation["responses"])
