"""A stage's ✓ means it has no error and is complete (issue 31: step 1 showed "✓ complete"
beside a field error, the comparison and recommendations never got a ✓)."""

from __future__ import annotations

import pytest
from django.urls import reverse

from tests.evaluations.factories import fill_steps, make_cast, make_evaluation, small_catalog
from tests.evaluations.steps.test_profile_step import FILLED, post

pytestmark = pytest.mark.django_db


@pytest.fixture
def cast(db):
    small_catalog()
    return make_cast()


def _done_stages(page: str) -> set[str]:
    import re

    return set(re.findall(r'class="eval-progress-step is-done[^"]*" data-stage="([^"]+)"', page))


def test_step_one_with_a_field_error_has_no_mark(client, cast):
    evaluation = make_evaluation(cast)
    post(client, cast.bob, evaluation, FILLED)  # complete and saved
    evaluation.refresh_from_db()

    response = post(client, cast.bob, evaluation, {**FILLED, "p99_target_ms": "-5"})

    page = response.content.decode()
    assert response.status_code == 400
    assert "Step 1 is complete." not in page.split("data-missing")[1].split("</p>")[0]
    assert "step-1" not in _done_stages(page)


def test_the_autosave_with_a_field_error_says_the_step_is_not_done(client, cast):
    evaluation = make_evaluation(cast)
    post(client, cast.bob, evaluation, FILLED)
    evaluation.refresh_from_db()

    answer = post(client, cast.bob, evaluation, {**FILLED, "p99_target_ms": "-5"}, autosave=True)

    assert answer.json()["done"] is False
    assert answer.json()["errors"]


def test_step_one_complete_and_without_error_has_its_mark(client, cast):
    evaluation = make_evaluation(cast)
    post(client, cast.bob, evaluation, FILLED)
    client.force_login(cast.bob)

    page = client.get(reverse("evaluations:step", args=[evaluation.pk, 1])).content.decode()

    assert "step-1" in _done_stages(page)


def test_the_comparison_and_recommendations_are_marked_once_complete(client, cast):
    evaluation = fill_steps(make_evaluation(cast), cast.bob)
    client.force_login(cast.bob)
    # Ticked once complete and visited (issue 42): nothing is saved on these two pages.
    client.get(reverse("evaluations:recommendations", args=[evaluation.pk]))

    page = client.get(reverse("evaluations:comparison", args=[evaluation.pk])).content.decode()

    assert {"comparison", "recommendations"} <= _done_stages(page)


def test_an_empty_evaluation_marks_neither(client, cast):
    evaluation = make_evaluation(cast)
    client.force_login(cast.bob)

    page = client.get(reverse("evaluations:comparison", args=[evaluation.pk])).content.decode()

    assert not {"comparison", "recommendations"} & _done_stages(page)
