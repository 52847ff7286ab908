"""The report's capacity chapter: the sized stacks and their curves once the simulation ran, and
what to do when it did not; the decided stack's sized pools in the decision chapter."""

from __future__ import annotations

import shutil
import subprocess

import pytest
from django.core.management import call_command
from django.utils import translation

from evaluations.decisions.services import evaluation_decide
from evaluations.reports.content import render_report, report_context
from evaluations.selectors import recommendations_for
from evaluations.simulations.services import capacity_request
from tests.evaluations.factories import make_cast, make_evaluation
from tests.evaluations.simulations.test_capacity_pages import BOARD_PROFILE

pytestmark = [
    pytest.mark.django_db,
    pytest.mark.skipif(not shutil.which("pdftotext"), reason="needs poppler-utils"),
]


def _text(pdf: bytes, tmp_path) -> str:
    path = tmp_path / "report.pdf"
    path.write_bytes(pdf)
    return subprocess.run(  # noqa: S603
        [shutil.which("pdftotext"), "-layout", str(path), "-"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout


@pytest.fixture
def cast(db):
    call_command("load_catalog", verbosity=0)
    return make_cast()


def test_the_report_shows_each_sized_stack_and_the_decided_stacks_pools(
    cast, tmp_path, django_capture_on_commit_callbacks
):
    evaluation = make_evaluation(cast, profile=BOARD_PROFILE)
    with django_capture_on_commit_callbacks(execute=True):
        run = capacity_request(evaluation=evaluation, actor=cast.bob)
    run.refresh_from_db()
    first = recommendations_for(evaluation=evaluation)[0]
    evaluation_decide(evaluation=evaluation, actor=cast.bob, rows=first.rows, pools=first.pools)
    evaluation.refresh_from_db()

    with translation.override("en"):
        context = report_context(evaluation=evaluation, with_map=False)
        text = _text(render_report(context).pdf, tmp_path)

    stack = run.result["stacks"][0]
    assert "Capacity in numbers" in text
    assert "24 nodes × 8 NVIDIA H100 80GB = 192 GPUs, 6 tenants." in text
    assert context["capacity_uri"].startswith("data:image/svg+xml;base64,")
    assert f"{stack['alloc_at_100']:.1f} %" in text
    assert "Capacity of the decided stack" in text
    (tmp_path / "capacity.pdf").write_bytes(render_report(context).pdf)


def test_without_a_run_the_report_says_where_to_run_it(cast, tmp_path):
    evaluation = make_evaluation(cast, profile=BOARD_PROFILE)

    with translation.override("en"):
        text = _text(render_report(report_context(evaluation=evaluation, with_map=False)).pdf,
                     tmp_path)  # fmt: skip

    assert "Not simulated yet for step 1 as it is now: run it from the recommendations" in text
