"""Autosave saves every field as it is typed: one editor's saves within a minute are one
recorded revision, and a submission, an approval and a request for changes each keep the
revision they saw (issue 31: "27 revisions in 5 minutes")."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.db.models import F
from django.urls import reverse

from evaluations.models import Evaluation
from evaluations.review.diffs.selectors import default_pair
from evaluations.review.models import EvaluationRevision
from evaluations.review.services import evaluation_review, evaluation_submit
from evaluations.steps.services import evaluation_step_save
from tests.evaluations.factories import (
    MIXED_PROFILE,
    fill_steps,
    make_cast,
    make_evaluation,
    small_catalog,
)

pytestmark = pytest.mark.django_db


@pytest.fixture
def cast(db):
    small_catalog()
    return make_cast()


def _save_profile(evaluation, actor, p99: int) -> Evaluation:
    evaluation_step_save(
        evaluation=evaluation,
        actor=actor,
        step="profile",
        data={**MIXED_PROFILE, "p99_target_ms": p99},
    )
    return Evaluation.objects.get(pk=evaluation.pk)


def _a_minute_passes(evaluation) -> None:
    EvaluationRevision.objects.filter(evaluation=evaluation).update(
        created_at=F("created_at") - timedelta(seconds=61)
    )


def _recorded(evaluation) -> list[int]:
    return list(
        EvaluationRevision.objects.filter(evaluation=evaluation)
        .order_by("revision")
        .values_list("revision", flat=True)
    )


def test_an_editors_saves_within_a_minute_are_one_revision(cast):
    evaluation = make_evaluation(cast)
    _a_minute_passes(evaluation)
    for p99 in (100, 110, 120, 130, 140):
        evaluation = _save_profile(evaluation, cast.bob, p99)

    assert evaluation.revision == 6  # the counter still moves: stale saves are still refused
    assert _recorded(evaluation) == [1, 6]
    latest = EvaluationRevision.objects.get(evaluation=evaluation, revision=6)
    assert latest.content["profile"]["p99_target_ms"] == 140


def test_saves_more_than_a_minute_apart_are_two_revisions(cast):
    evaluation = make_evaluation(cast)
    _a_minute_passes(evaluation)
    evaluation = _save_profile(evaluation, cast.bob, 100)
    _a_minute_passes(evaluation)
    evaluation = _save_profile(evaluation, cast.bob, 200)

    assert _recorded(evaluation) == [1, 2, 3]


def test_another_editors_save_is_a_revision_of_its_own(cast):
    evaluation = make_evaluation(cast)
    evaluation = _save_profile(evaluation, cast.bob, 100)
    evaluation = _save_profile(evaluation, cast.alice, 200)

    assert _recorded(evaluation) == [2, 3]
    assert EvaluationRevision.objects.get(evaluation=evaluation, revision=3).actor == cast.alice


def test_submission_and_verdicts_name_the_revision_they_saw_and_keep_it(cast):
    evaluation = fill_steps(make_evaluation(cast), cast.bob)
    evaluation_submit(evaluation=evaluation, actor=cast.bob)
    evaluation_review(
        evaluation=evaluation, actor=cast.carol, verdict="request_changes", comment="P99?"
    )
    asked_at = Evaluation.objects.get(pk=evaluation.pk).revision
    evaluation = _save_profile(Evaluation.objects.get(pk=evaluation.pk), cast.bob, 90)

    named = EvaluationRevision.objects.get(evaluation=evaluation, revision=asked_at)
    assert named.name == EvaluationRevision.Name.CHANGES_REQUESTED
    assert _recorded(evaluation)[-2:] == [asked_at, evaluation.revision]  # not coalesced


def test_the_re_review_diff_starts_where_changes_were_requested(client, cast):
    evaluation = fill_steps(make_evaluation(cast), cast.bob)
    evaluation_submit(evaluation=evaluation, actor=cast.bob)
    evaluation_review(
        evaluation=evaluation, actor=cast.carol, verdict="request_changes", comment="P99?"
    )
    asked_at = Evaluation.objects.get(pk=evaluation.pk).revision
    evaluation = _save_profile(Evaluation.objects.get(pk=evaluation.pk), cast.bob, 90)
    evaluation_submit(evaluation=evaluation, actor=cast.bob)

    assert default_pair(evaluation) == (asked_at, evaluation.revision)
    client.force_login(cast.carol)
    page = client.get(reverse("evaluations:diff", args=[evaluation.pk]))
    assert page.context["start"] == asked_at
