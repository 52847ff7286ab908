"""The coverage page."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.core.paginator import Paginator
from django.shortcuts import render

from catalog.coverage.selectors import catalog_coverage

# The two long tables (a project or a row per line) come a page at a time.
PER_PAGE = 50


@login_required
def coverage_view(request):
    coverage = catalog_coverage()
    stale = coverage.stale_rows()
    layer_names = dict(coverage.layers)
    projects = Paginator(coverage.projects, PER_PAGE).get_page(request.GET.get("projects_page"))
    rows = Paginator(coverage.rows, PER_PAGE).get_page(request.GET.get("rows_page"))
    return render(
        request,
        "catalog/coverage.html",
        {
            "coverage": coverage,
            "stale": {row.ref for row in stale if row in rows.object_list},
            "stale_count": len(stale),
            "layer_names": layer_names,
            "projects_page": projects,
            "rows_page": rows,
        },
    )
