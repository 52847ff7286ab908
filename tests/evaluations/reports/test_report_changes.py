"""A re-review's report ends with the changes since the last approval; other reports do not."""

from __future__ import annotations

import subprocess

import pytest

from evaluations.decisions.services import evaluation_decide
from evaluations.models import Evaluation
from evaluations.reports.content import render_report, report_context
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
HEADING = "Appendix: changes since the last approval"


@pytest.fixture
def cast(db):
    small_catalog()
    return make_cast()


@pytest.fixture
def approved(cast):
    evaluation = approved_evaluation(cast)
    return Evaluation.objects.get(pk=evaluation.pk)


def _text(evaluation: Evaluation) -> str:
    pdf = render_report(report_context(evaluation=evaluation, with_map=False)).pdf
    return subprocess.run(  # noqa: S603
        ["/usr/bin/pdftotext", "-layout", "-", "-"],
        input=pdf,
        capture_output=True,
        check=True,
    ).stdout.decode()


def test_a_rereview_report_has_the_changes_since_the_last_approval(cast, approved):
    evaluation_step_save(
        evaluation=approved,
        actor=cast.bob,
        step="profile",
        data={**MIXED_PROFILE, "jitter_tolerance": "high"},
    )
    evaluation_decide(
        evaluation=approved,
        actor=cast.bob,
        rows=["hami/device-plugin", "volcano/scheduler"],
        rationale="Jobs tolerate jitter now.",
    )
    evaluation = Evaluation.objects.get(pk=approved.pk)

    text = _text(evaluation)

    assert HEADING in text
    appendix = text[text.rindex(HEADING) :]
    assert "Jobs tolerate jitter now." in appendix
    assert "HAMi shares, Volcano governs." in appendix
    assert "bob-editor" in appendix


def test_an_approved_unchanged_evaluations_report_has_no_such_appendix(approved):
    context = report_context(evaluation=approved, with_map=False)

    assert context["changes"] is None
    assert HEADING not in _text(approved)
