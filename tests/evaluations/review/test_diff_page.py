"""The diff page: two revisions compared in words, reachable from the overview and, for a
reviewer of a re-submitted evaluation, from the review form."""

from __future__ import annotations

import pytest
from django.urls import reverse

from evaluations.models import Evaluation
from evaluations.review.services import evaluation_submit
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


@pytest.fixture
def cast(db):
    small_catalog()
    return make_cast()


@pytest.fixture
def resubmitted(cast):
    """Approved, then changed (jitter tolerance, a candidate removed) and submitted again."""
    evaluation = approved_evaluation(cast)
    evaluation_step_save(
        evaluation=evaluation,
        actor=cast.bob,
        step="profile",
        data={**MIXED_PROFILE, "jitter_tolerance": "high"},
    )
    evaluation_step_save(
        evaluation=evaluation,
        actor=cast.bob,
        step="candidates",
        data={"candidates": [{"row": "hami/device-plugin", "points_confirmed": True}]},
    )
    evaluation_submit(evaluation=evaluation, actor=cast.bob)
    return Evaluation.objects.get(pk=evaluation.pk)


def test_the_page_shows_the_changes_in_words_not_keys(client, cast, resubmitted):
    client.force_login(cast.dave)

    response = client.get(reverse("evaluations:diff", args=[resubmitted.pk]))

    assert response.status_code == 200
    page = response.content.decode()
    assert "Jitter" in page or "jitter" in page
    assert "jitter_tolerance" not in page.replace('data-field="jitter_tolerance"', "")
    assert "<del" in page and "<ins" in page
    assert "Volcano" in page and "removed" in page
    assert "bob-editor" in page


def test_the_page_speaks_chinese(client, cast, resubmitted):
    client.force_login(cast.dave)
    client.cookies["django_language"] = "zh-hans"

    response = client.get(reverse("evaluations:diff", args=[resubmitted.pk]))

    assert response.status_code == 200
    assert 'lang="zh-hans"' in response.content.decode()


def test_a_reversed_pair_is_refused_on_the_page(client, cast, resubmitted):
    client.force_login(cast.dave)

    response = client.get(reverse("evaluations:diff", args=[resubmitted.pk]), {"from": 5, "to": 2})

    assert response.status_code == 400
    assert "comes after" in response.content.decode()


def test_another_team_cannot_see_the_diff(client, cast, resubmitted):
    client.force_login(cast.charlie)

    assert client.get(reverse("evaluations:diff", args=[resubmitted.pk])).status_code == 404


def test_the_overview_links_to_compare_revisions(client, cast, resubmitted):
    client.force_login(cast.dave)

    page = client.get(reverse("evaluations:detail", args=[resubmitted.pk])).content.decode()

    assert reverse("evaluations:diff", args=[resubmitted.pk]) in page
    assert "Compare revisions" in page


def test_a_reviewer_sees_the_changes_since_the_last_approval_on_the_review_form(
    client, cast, resubmitted
):
    client.force_login(cast.carol)

    page = client.get(reverse("evaluations:detail", args=[resubmitted.pk])).content.decode()

    assert "Changes since the last approval" in page
    approved = resubmitted.reviews.get().revision
    assert f"?from={approved}&amp;to={resubmitted.revision}" in page
