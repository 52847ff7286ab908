"""A save carries the revision it was made on, and only the current one saves (issue 41, L3).

A revision ahead of the current one (2147483647, or just current + 1) used to pass the conflict
check (`revision >= current`), and the browser forms ignored a revision of 10 digits or more or
with a sign: both overwrote another editor's save. Any revision but the current answers 409 (a
person's own saves overtaken by their next one stay no conflict); a revision that is not an
integer in 0..2147483647 answers 400, never a 500 from PostgreSQL."""

from __future__ import annotations

import pytest
from django.test import Client
from django.urls import reverse
from rest_framework.test import APIClient

from evaluations.models import Evaluation
from evaluations.steps.services import evaluation_step_save
from tests.evaluations.decisions.test_decision_form import as_rendered
from tests.evaluations.factories import fill_steps, make_cast, make_evaluation, small_catalog

pytestmark = pytest.mark.django_db

INT_MAX = 2**31 - 1
API_SAVES = [
    ("steps/profile/", {"tenancy": "multi"}),
    ("steps/units/", {"units": [{"unit": "whole_gpu"}]}),
    ("steps/candidates/", {"candidates": [{"row": "volcano/scheduler"}]}),
    ("steps/boundaries/", {"boundaries": []}),
    ("decision/", {"rows": ["hami/device-plugin"]}),
]


@pytest.fixture
def cast(db):
    small_catalog()
    return make_cast()


@pytest.fixture
def evaluation(cast):
    """bob filled it in; alice saved after him, so another editor's save is the latest."""
    evaluation = fill_steps(make_evaluation(cast), cast.bob)
    evaluation_step_save(
        evaluation=evaluation, actor=cast.alice, step="profile", data={"tenancy": "single"}
    )
    return Evaluation.objects.get(pk=evaluation.pk)


def _api_put(user, evaluation, suffix: str, body: dict):
    client = APIClient()
    client.force_authenticate(user)
    return client.put(f"/api/v1/evaluations/{evaluation.pk}/{suffix}", body, format="json")


def _unchanged(evaluation) -> bool:
    fresh = Evaluation.objects.get(pk=evaluation.pk)
    return (fresh.revision, fresh.profile) == (evaluation.revision, evaluation.profile)


# ---- API ----------------------------------------------------------------------------------------


@pytest.mark.parametrize(("suffix", "body"), API_SAVES, ids=[s for s, _ in API_SAVES])
@pytest.mark.parametrize("ahead", [INT_MAX, "next"])
def test_an_api_save_on_a_revision_ahead_of_the_current_is_a_409(
    cast, evaluation, suffix, body, ahead
):
    revision = evaluation.revision + 1 if ahead == "next" else ahead

    response = _api_put(cast.bob, evaluation, suffix, {**body, "revision": revision})

    assert response.status_code == 409, response.content
    assert response.json()["errors"][0]["path"] == "revision"
    assert _unchanged(evaluation)


@pytest.mark.parametrize("revision", [INT_MAX + 1, 10**30, -1, "seven", 1.5])
def test_an_api_revision_that_is_not_a_stored_integer_is_a_400(cast, evaluation, revision):
    body = {"tenancy": "multi", "revision": revision}

    response = _api_put(cast.bob, evaluation, "steps/profile/", body)

    assert response.status_code == 400, response.content
    assert _unchanged(evaluation)


def test_an_api_save_on_the_current_revision_saves(cast, evaluation):
    body = {"tenancy": "multi", "revision": evaluation.revision}

    response = _api_put(cast.bob, evaluation, "steps/profile/", body)

    assert response.status_code == 200
    assert Evaluation.objects.get(pk=evaluation.pk).revision == evaluation.revision + 1


# ---- browser forms ------------------------------------------------------------------------------


def _page(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def _step_1(evaluation, revision, *, autosave=False):
    headers = {"HTTP_X_AUTOSAVE": "1"} if autosave else {}
    return _page(evaluation.created_by).post(
        reverse("evaluations:step", args=[evaluation.pk, 1]),
        {"tenancy": "multi", "isolation": "hard", "revision": revision},
        **headers,
    )


@pytest.mark.parametrize("revision", [str(INT_MAX), "next", "0002147483647"])
@pytest.mark.parametrize("autosave", [False, True], ids=["button", "autosave"])
def test_a_form_save_on_a_revision_ahead_of_the_current_is_a_409(evaluation, revision, autosave):
    if revision == "next":
        revision = str(evaluation.revision + 1)

    response = _step_1(evaluation, revision, autosave=autosave)

    assert response.status_code == 409
    assert _unchanged(evaluation)


@pytest.mark.parametrize("revision", ["99999999999999999999999", "2147483648", "-1", "1e3", "x"])
def test_a_form_revision_that_is_not_a_stored_integer_is_a_400(evaluation, revision):
    response = _step_1(evaluation, revision, autosave=True)

    assert response.status_code == 400
    assert "must be a whole number" in str(response.json()["errors"])
    assert _unchanged(evaluation)


def test_a_form_save_on_the_current_revision_saves(evaluation):
    response = _step_1(evaluation, str(evaluation.revision), autosave=True)

    assert response.status_code == 200
    assert Evaluation.objects.get(pk=evaluation.pk).profile["isolation"] == "hard"


def test_the_decision_form_on_a_revision_ahead_is_a_409(cast, evaluation):
    client = _page(cast.bob)
    url = reverse("evaluations:decision", args=[evaluation.pk])
    posted = as_rendered(client.get(url).content.decode())
    posted["revision"] = [str(INT_MAX)]
    posted["rationale"] = ["bob's rationale, written over alice's save"]

    response = client.post(url, posted)

    assert response.status_code == 409
    assert Evaluation.objects.get(pk=evaluation.pk).decision.rationale != posted["rationale"][0]


def test_adding_a_candidate_on_a_revision_ahead_is_a_409(cast, evaluation):
    response = _page(cast.bob).post(
        reverse("evaluations:candidate-add", args=[evaluation.pk]),
        {"row": "hami/device-plugin", "revision": str(INT_MAX)},
    )

    assert response.status_code == 409
    assert response.json()["revision"] == evaluation.revision
    assert _unchanged(evaluation)
