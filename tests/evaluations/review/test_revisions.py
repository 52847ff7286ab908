"""Each revision of an evaluation keeps what the evaluation said then (for diffs)."""

from __future__ import annotations

import pytest

from evaluations.decisions.cloning import evaluation_clone
from evaluations.decisions.services import evaluation_decide
from evaluations.models import Evaluation
from evaluations.review.models import EvaluationRevision
from evaluations.review.revisions import revision_get, revision_record, revisions_of
from tests.evaluations.factories import fill_steps, make_cast, make_evaluation, small_catalog

pytestmark = pytest.mark.django_db


@pytest.fixture
def cast(db):
    small_catalog()
    return make_cast()


def _contents(evaluation: Evaluation) -> dict[int, dict]:
    return {
        record.revision: record.content
        for record in EvaluationRevision.objects.filter(evaluation=evaluation)
    }


def test_a_new_evaluation_records_revision_one(cast):
    evaluation = make_evaluation(cast)

    record = EvaluationRevision.objects.get(evaluation=evaluation)
    assert record.revision == 1
    assert record.actor == cast.bob
    assert record.content["candidates"] == []
    assert record.content["decision"] is None


def test_every_revision_has_its_content_recorded(cast, settings):
    settings.REVISION_COALESCE_SECONDS = 0  # one save, one revision (coalescing tested apart)
    evaluation = fill_steps(make_evaluation(cast), cast.bob)

    contents = _contents(evaluation)
    assert sorted(contents) == list(range(1, evaluation.revision + 1))
    assert contents[2]["profile"]["jitter_tolerance"] == "low"
    assert contents[2]["units"] == []
    assert contents[3]["units"] == [
        {"unit": "memory_compute_quota", "note": "shared inference pool"}
    ]
    last = contents[evaluation.revision]
    assert [c["row"] for c in last["candidates"]] == ["hami/device-plugin", "volcano/scheduler"]
    hami = last["candidates"][0]
    assert hami["enforcement_points"] == ["runtime_interception"]
    assert hami["points_confirmed"] is True
    assert hami["non_promise"] == "Does not decide who may use GPUs."
    assert last["decision"]["rows"] == ["hami/device-plugin", "volcano/scheduler"]
    assert last["decision"]["rationale"] == "HAMi shares, Volcano governs."
    assert last["labels"]["hami/device-plugin"].startswith("HAMi")


def test_the_decisions_stack_check_findings_are_stored_as_plain_data(cast):
    evaluation = fill_steps(make_evaluation(cast), cast.bob)

    findings = _contents(evaluation)[evaluation.revision]["findings"]
    assert findings, "the mixed profile asks for signals and isolation the stack is checked on"
    assert all(isinstance(item["key"], str) and item["severity"] for item in findings)
    fit = next(item for item in findings if item["kind"] == "fit")
    assert isinstance(fit["message"]["template"], str)


def test_recording_a_revision_again_rewrites_it_in_place(cast):
    evaluation = make_evaluation(cast)
    evaluation.refresh_from_db()

    revision_record(evaluation=evaluation, actor=cast.alice)
    revision_record(evaluation=evaluation, actor=cast.alice)

    records = EvaluationRevision.objects.filter(evaluation=evaluation)
    assert records.count() == 1
    assert records.get().actor == cast.alice


def test_a_save_that_changes_nothing_records_no_revision(cast):
    evaluation = fill_steps(make_evaluation(cast), cast.bob)
    before = EvaluationRevision.objects.filter(evaluation=evaluation).count()

    evaluation_decide(
        evaluation=evaluation,
        actor=cast.bob,
        rows=["hami/device-plugin", "volcano/scheduler"],
        rationale="HAMi shares, Volcano governs.",
    )

    assert EvaluationRevision.objects.filter(evaluation=evaluation).count() == before


def test_a_clone_starts_with_its_own_revision_one(cast):
    source = fill_steps(make_evaluation(cast), cast.bob)

    copy = evaluation_clone(evaluation=source, actor=cast.bob)

    record = EvaluationRevision.objects.get(evaluation=copy)
    assert record.revision == 1
    assert [c["row"] for c in record.content["candidates"]] == [
        "hami/device-plugin",
        "volcano/scheduler",
    ]
    assert record.content["decision"] is None


def test_the_current_revision_is_built_when_it_was_never_recorded(cast):
    evaluation = fill_steps(make_evaluation(cast), cast.bob)
    EvaluationRevision.objects.filter(evaluation=evaluation).delete()  # made before recording

    assert revision_get(evaluation=evaluation, revision=1) is None
    current = revision_get(evaluation=evaluation, revision=evaluation.revision)

    assert current is not None and current.actor is None
    assert current.content["decision"]["rows"] == ["hami/device-plugin", "volcano/scheduler"]
    assert [r.revision for r in revisions_of(evaluation)] == [evaluation.revision]
