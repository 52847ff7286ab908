"""Evidence freshness: the decision page shows when each decided row was last verified, and the
report lists the rows verified more than 12 months before the decision (or never)."""

from __future__ import annotations

import datetime as dt

import pytest
from django.template.loader import render_to_string
from django.urls import reverse

from catalog.models import PlacementRow
from evaluations.reports.content import TEMPLATE, report_context
from evaluations.reports.freshness import decision_freshness, months_before, stale_evidence
from tests.evaluations.factories import fill_steps, make_cast, make_evaluation, small_catalog

pytestmark = pytest.mark.django_db


@pytest.fixture
def decided(db):
    small_catalog()
    cast = make_cast()
    evaluation = fill_steps(make_evaluation(cast), cast.bob)
    day = evaluation.decision.decided_at.date()
    # HAMi re-read a month before the decision; Volcano more than a year before it.
    PlacementRow.objects.filter(project__slug="hami").update(
        verified_at=day - dt.timedelta(days=30)
    )
    PlacementRow.objects.filter(project__slug="volcano").update(verified_at=months_before(day, 13))
    return cast, evaluation, day


def test_each_decided_row_has_its_verified_date_and_only_old_ones_are_stale(decided):
    _cast, evaluation, day = decided

    rows = {item.ref: item for item in decision_freshness(evaluation)}

    assert rows["hami/device-plugin"].verified_at == day - dt.timedelta(days=30)
    assert not rows["hami/device-plugin"].stale
    assert rows["volcano/scheduler"].stale
    assert [item.ref for item in stale_evidence(evaluation)] == ["volcano/scheduler"]


def test_a_row_never_verified_counts_as_stale(decided):
    _cast, evaluation, _day = decided
    PlacementRow.objects.filter(project__slug="hami").update(verified_at=None)

    assert {item.ref for item in stale_evidence(evaluation)} == {
        "hami/device-plugin",
        "volcano/scheduler",
    }


def test_exactly_twelve_months_before_is_not_yet_stale():
    assert months_before(dt.date(2026, 12, 1), 12) == dt.date(2025, 12, 1)
    assert months_before(dt.date(2028, 2, 29), 12) == dt.date(2027, 2, 28)


def test_the_decision_page_shows_verified_dates_and_marks_the_unverified(client, decided):
    cast, evaluation, day = decided
    PlacementRow.objects.filter(project__slug="volcano").update(verified_at=None)
    client.force_login(cast.bob)

    content = client.get(reverse("evaluations:decision", args=[evaluation.pk])).content.decode()

    hami_day = (day - dt.timedelta(days=30)).isoformat()
    assert "Evidence freshness" in content
    assert f"verified {hami_day}" in content
    stale = '<li class="freshness-stale"><span class="freshness-name">Volcano</span>'
    assert f"{stale} <code>volcano/scheduler</code>" in content
    assert "not verified" in content


def test_the_report_lists_only_the_rows_verified_more_than_a_year_before(decided):
    _cast, evaluation, day = decided

    html = render_to_string(TEMPLATE, report_context(evaluation=evaluation, with_map=False))

    section = html.split("Evidence older than 12 months", 1)[1].split("</table>", 1)[0]
    assert "volcano/scheduler" in section
    assert months_before(day, 13).isoformat() in section
    assert "hami/device-plugin" not in section


def test_the_report_says_so_when_every_row_is_fresh(decided):
    _cast, evaluation, day = decided
    PlacementRow.objects.update(verified_at=day)

    html = render_to_string(TEMPLATE, report_context(evaluation=evaluation, with_map=False))

    assert "Every decided row was verified within 12 months before the decision." in html
