"""The coverage page at any catalog size (issue 41 H1): its counts from SQL and one pass over
slim rows agree with the whole coverage that docs/catalog.md is built from, and the lists it
shows are bounded."""

from __future__ import annotations

import pytest
from django.urls import reverse

from catalog.coverage import selectors
from catalog.coverage.selectors import catalog_coverage, coverage_summary, stale_row_count
from catalog.models import PlacementRow

pytestmark = pytest.mark.django_db


def test_the_summary_counts_what_the_whole_coverage_counts(builtin_catalog):
    whole, summary = catalog_coverage(), coverage_summary()

    assert summary.rows_by_layer_unit == whole.rows_by_layer_unit
    assert summary.rows_by_layer == whole.rows_by_layer
    assert summary.projects_by_layer == whole.projects_by_layer
    assert (summary.total_rows, summary.total_projects) == (whole.total_rows, whole.total_projects)
    assert summary.unverified_claims == whole.unverified_claims
    assert summary.projects == whole.projects
    assert summary.unsourced == whole.unsourced
    assert stale_row_count() == len(whole.stale_rows())


def test_the_page_lists_the_first_unsourced_rows_and_counts_the_rest(
    bob_client, builtin_catalog, monkeypatch
):
    PlacementRow.objects.filter(project__slug__in=["hami", "kueue", "volcano"]).update(evidence=[])
    unsourced = PlacementRow.objects.filter(evidence=[]).count()
    monkeypatch.setattr(selectors, "UNSOURCED_LISTED", 2)

    content = bob_client.get(reverse("catalog:coverage")).content.decode()

    listed = content.split("Rows lacking evidence", 1)[1].split("</ul>", 1)[0]
    assert listed.count("<li") == 2
    assert f"The first 2 of {unsourced} are listed." in content
    assert f"{unsourced} rows without evidence" in content
