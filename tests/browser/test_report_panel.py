"""The evaluation page's report panel in a real browser: what a built report's line says."""

from __future__ import annotations

import pytest
from django.core.files.base import ContentFile
from django.utils import timezone
from playwright.sync_api import expect

from evaluations import services
from evaluations.models import Evaluation
from evaluations.reports.models import Report
from evaluations.steps.services import evaluation_step_save
from evaluations.teams.services import team_create

pytestmark = [
    pytest.mark.browser,
    pytest.mark.django_db(transaction=True, serialized_rollback=True),
]


@pytest.fixture(autouse=True)
def _media(settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path / "media"


def _built_report(evaluation: Evaluation, *, with_cards: bool) -> Report:
    """A succeeded build of the evaluation as it is now (the build itself is tested elsewhere)."""
    evaluation.refresh_from_db()
    report = Report.objects.create(
        evaluation=evaluation,
        status=Report.Status.SUCCEEDED,
        progress=100,
        pages=9,
        seconds=1.2,
        with_cards=with_cards,
        evaluation_revision=evaluation.revision,
        evaluation_updated_at=evaluation.updated_at,
        finished_at=timezone.now(),
    )
    report.file.save("report.pdf", ContentFile(b"%PDF-1.7\n"))
    return report


@pytest.fixture
def evaluation(bob) -> Evaluation:
    team = team_create(name="Platform", slug="platform", admin=bob)
    return services.evaluation_create(actor=bob, team=team, title="GPU sharing")


def test_a_fresh_report_shows_no_stale_badge(signed_in_page, live_server, evaluation):
    _built_report(evaluation, with_cards=False)

    signed_in_page.goto(f"{live_server.url}/evaluations/{evaluation.pk}/")

    panel = signed_in_page.locator("#reports")
    expect(panel.locator("[data-report-download]")).to_be_visible()
    # .state is an inline-block badge: the hidden attribute must still win
    expect(panel.locator("[data-report-stale]")).to_be_hidden()
    expect(panel.locator("[data-report-contents]")).to_have_text("· without the placement cards")


def test_a_changed_evaluation_shows_the_stale_badge_and_what_the_report_holds(
    signed_in_page, live_server, evaluation, bob
):
    _built_report(evaluation, with_cards=True)
    evaluation_step_save(
        evaluation=evaluation, actor=bob, step="profile", data={"tenancy": "single"}
    )

    signed_in_page.goto(f"{live_server.url}/evaluations/{evaluation.pk}/")

    panel = signed_in_page.locator("#reports")
    expect(panel.locator("[data-report-stale]")).to_be_visible()
    expect(panel.locator("[data-report-contents]")).to_have_text(
        "· with the placement cards as an appendix"
    )
