"""The coverage page."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.core.paginator import Paginator
from django.shortcuts import render
from django.utils import timezone

from catalog.coverage.selectors import (
    coverage_summary,
    row_verifications,
    rows_least_recently_verified,
    stale_row_count,
)

# The two long tables (a project or a row per line) come a page at a time.
PER_PAGE = 50


@login_required
def coverage_view(request):
    coverage = coverage_summary()
    layer_names = dict(coverage.layers)
    projects = Paginator(coverage.projects, PER_PAGE).get_page(request.GET.get("projects_page"))
    # The rows' table is read a page at a time from the database (issue 41 H1).
    rows = Paginator(rows_least_recently_verified(), PER_PAGE).get_page(
        request.GET.get("rows_page")
    )
    rows.object_list = row_verifications(list(rows.object_list))
    today = timezone.localdate()
    return render(
        request,
        "catalog/coverage.html",
        {
            "coverage": coverage,
            "stale": {row.ref for row in rows.object_list if row.stale(today)},
            "stale_count": stale_row_count(today),
            "layer_names": layer_names,
            "projects_page": projects,
            "rows_page": rows,
        },
    )
