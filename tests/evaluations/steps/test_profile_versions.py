"""Step 1's Kubernetes version and pinned component versions: saved from the page and the API,
a bad one marked without losing the rest, and used by the stack check."""

from __future__ import annotations

import pytest
from django.urls import reverse

from evaluations.models import Evaluation
from tests.evaluations.factories import make_cast, make_evaluation

pytestmark = pytest.mark.django_db


@pytest.fixture
def cast(db):
    return make_cast()


@pytest.fixture
def evaluation(cast):
    return make_evaluation(cast)


def post(client, user, evaluation, data):
    client.force_login(user)
    url = reverse("evaluations:step", args=[evaluation.pk, 1])
    return client.post(url, {**data, "revision": evaluation.revision})


def stored(evaluation) -> dict:
    return Evaluation.objects.get(pk=evaluation.pk).profile


def test_the_page_saves_the_kubernetes_version_and_pinned_versions(client, cast, evaluation):
    post(
        client,
        cast.bob,
        evaluation,
        {
            "tenancy": "single",
            "kubernetes_version": "v1.34.2",
            "component_versions": "kueue 0.19.3\r\nkai-scheduler=v0.16.4\r\n",
        },
    )

    profile = stored(evaluation)
    assert profile["kubernetes_version"] == "v1.34.2"
    assert profile["component_versions"] == {"kai-scheduler": "v0.16.4", "kueue": "0.19.3"}
    assert profile["tenancy"] == "single"


def test_the_page_shows_the_stored_versions(client, cast, evaluation):
    post(
        client,
        cast.bob,
        evaluation,
        {"kubernetes_version": "1.35", "component_versions": "kueue 0.19.3"},
    )

    content = client.get(reverse("evaluations:step", args=[evaluation.pk, 1])).content.decode()

    assert 'value="1.35"' in content
    assert "kueue 0.19.3</textarea>" in content


def test_a_bad_kubernetes_version_is_marked_and_the_other_answers_kept(client, cast, evaluation):
    response = post(
        client,
        cast.bob,
        evaluation,
        {"tenancy": "multi", "kubernetes_version": "latest", "component_versions": "kueue 0.19.3"},
    )

    assert response.status_code == 400
    assert list(response.context["form"].errors) == ["kubernetes_version"]
    profile = stored(evaluation)
    assert profile["tenancy"] == "multi"
    assert profile["component_versions"] == {"kueue": "0.19.3"}
    assert not profile.get("kubernetes_version")


def test_a_pinned_line_without_a_version_is_marked(client, cast, evaluation):
    response = post(client, cast.bob, evaluation, {"component_versions": "kueue"})

    assert response.status_code == 400
    assert list(response.context["form"].errors) == ["component_versions"]


def test_the_versions_are_optional(client, cast, evaluation):
    post(client, cast.bob, evaluation, {"tenancy": "single"})

    profile = stored(evaluation)
    assert not profile.get("kubernetes_version")
    assert not profile.get("component_versions")


def test_the_api_takes_the_versions(client, cast, evaluation):
    client.force_login(cast.bob)

    response = client.put(
        f"/api/v1/evaluations/{evaluation.pk}/steps/profile/",
        {
            "kubernetes_version": "1.34",
            "component_versions": {"kueue": "0.19.3"},
            "revision": evaluation.revision,
        },
        content_type="application/json",
    )

    assert response.status_code == 200
    profile = Evaluation.objects.get(pk=evaluation.pk).engine_profile()
    assert profile.kubernetes_version == "1.34"
    assert dict(profile.component_versions) == {"kueue": "0.19.3"}


def test_the_api_refuses_a_version_that_is_not_one(client, cast, evaluation):
    client.force_login(cast.bob)

    response = client.put(
        f"/api/v1/evaluations/{evaluation.pk}/steps/profile/",
        {"kubernetes_version": "soon", "revision": evaluation.revision},
        content_type="application/json",
    )

    assert response.status_code == 400
    assert "kubernetes_version" in str(response.json())
