"""Open comments block approval (issue 42 item 1): the approver resolves or explicitly overrides
each; the override is recorded (who, when, which comment); the review panel lists them."""

from __future__ import annotations

import pytest
from django.urls import reverse
from rest_framework.test import APIClient

from evaluations.audit.models import AuditEntry
from evaluations.errors import InvalidInput
from evaluations.models import Evaluation, State
from evaluations.review import comments
from evaluations.review.models import CommentOverride
from evaluations.review.services import evaluation_review
from tests.evaluations.factories import make_cast, small_catalog, submitted

pytestmark = pytest.mark.django_db


@pytest.fixture
def cast(db):
    small_catalog()
    return make_cast()


def _open_comment(cast, evaluation, body="Why not MIG slices?"):
    return comments.comment_add(evaluation=evaluation, actor=cast.bob, anchor="units", body=body)


def test_an_open_comment_blocks_an_approval(cast):
    evaluation = submitted(cast)
    _open_comment(cast, evaluation)

    with pytest.raises(InvalidInput) as refused:
        evaluation_review(evaluation=evaluation, actor=cast.carol, verdict="approve")

    assert "Why not MIG slices?" in refused.value.message
    assert Evaluation.objects.get(pk=evaluation.pk).state == State.IN_REVIEW
    assert not evaluation.reviews.exists()


def test_a_resolved_comment_no_longer_blocks(cast):
    evaluation = submitted(cast)
    comment = _open_comment(cast, evaluation)
    comments.comment_resolve(comment=comment, actor=cast.bob)

    evaluation_review(evaluation=evaluation, actor=cast.carol, verdict="approve")

    assert Evaluation.objects.get(pk=evaluation.pk).state == State.APPROVED


def test_an_explicit_override_approves_and_is_recorded(cast):
    evaluation = submitted(cast)
    comment = _open_comment(cast, evaluation)

    evaluation_review(
        evaluation=evaluation, actor=cast.carol, verdict="approve", override_comments=[comment.pk]
    )

    assert Evaluation.objects.get(pk=evaluation.pk).state == State.APPROVED
    override = CommentOverride.objects.get()
    assert (override.comment, override.approver, override.revision) == (
        comment,
        cast.carol,
        evaluation.revision,
    )
    assert override.created_at is not None
    entry = AuditEntry.objects.filter(evaluation=evaluation, action="approved").get()
    assert entry.changes["overridden_comments"] == [comment.pk]


def test_overriding_one_of_two_open_comments_is_not_enough(cast):
    evaluation = submitted(cast)
    first = _open_comment(cast, evaluation)
    _open_comment(cast, evaluation, body="Who owns the MIG geometry?")

    with pytest.raises(InvalidInput) as refused:
        evaluation_review(
            evaluation=evaluation, actor=cast.carol, verdict="approve", override_comments=[first.pk]
        )

    assert "Who owns the MIG geometry?" in refused.value.message
    assert not CommentOverride.objects.exists()


def test_the_review_panel_lists_open_comments_with_an_override_box(client, cast):
    evaluation = submitted(cast)
    comment = _open_comment(cast, evaluation)
    client.force_login(cast.carol)

    html = client.get(reverse("evaluations:detail", args=[evaluation.pk])).content.decode()

    assert "Why not MIG slices?" in html
    assert f'name="override_comments" value="{comment.pk}"' in html


def test_the_review_form_refuses_with_a_message_and_overrides_when_ticked(client, cast):
    evaluation = submitted(cast)
    comment = _open_comment(cast, evaluation)
    client.force_login(cast.carol)
    url = reverse("evaluations:review", args=[evaluation.pk])

    refused = client.post(url, {"verdict": "approve"}, follow=True)
    assert "Resolve or override each open comment" in refused.content.decode()
    assert Evaluation.objects.get(pk=evaluation.pk).state == State.IN_REVIEW

    client.post(url, {"verdict": "approve", "override_comments": [str(comment.pk)]})
    assert Evaluation.objects.get(pk=evaluation.pk).state == State.APPROVED


def test_the_api_takes_overrides(cast):
    evaluation = submitted(cast)
    comment = _open_comment(cast, evaluation)
    api = APIClient()
    api.force_authenticate(cast.carol)
    url = f"/api/v1/evaluations/{evaluation.pk}/review/"

    refused = api.post(url, {"verdict": "approve"}, format="json")
    assert refused.status_code == 400
    assert refused.json()["errors"][0]["path"] == "override_comments"

    done = api.post(url, {"verdict": "approve", "override_comments": [comment.pk]}, format="json")
    assert done.status_code == 200, done.content
