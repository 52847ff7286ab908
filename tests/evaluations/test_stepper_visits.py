"""The stepper ticks only stages the person has been to (issue 42 item 5): the comparison and
the recommendations, which nothing is saved on, get their ✓ once opened, not before."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from tests.evaluations.factories import fill_steps, make_cast, make_evaluation, small_catalog

pytestmark = pytest.mark.django_db


@pytest.fixture
def cast(db):
    small_catalog()
    return make_cast()


def ticked(html: str) -> set[str]:
    return set(re.findall(r'class="eval-progress-step is-done[^"]*" data-stage="([^"]+)"', html))


def test_recommendations_are_not_ticked_before_they_are_visited(client, cast):
    evaluation = fill_steps(make_evaluation(cast), cast.bob)
    client.force_login(cast.bob)

    html = client.get(reverse("evaluations:step", args=[evaluation.pk, 1])).content.decode()

    assert {"step-1", "step-2", "step-3", "step-4"} <= ticked(html)
    assert not {"comparison", "recommendations"} & ticked(html)


def test_a_visited_recommendations_page_is_ticked_afterwards(client, cast):
    evaluation = fill_steps(make_evaluation(cast), cast.bob)
    client.force_login(cast.bob)
    client.get(reverse("evaluations:recommendations", args=[evaluation.pk]))

    html = client.get(reverse("evaluations:step", args=[evaluation.pk, 1])).content.decode()

    assert "recommendations" in ticked(html)
    assert "comparison" not in ticked(html)
