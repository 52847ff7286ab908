"""The coverage page."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.shortcuts import render

from catalog.coverage.selectors import catalog_coverage


@login_required
def coverage_view(request):
    coverage = catalog_coverage()
    return render(
        request,
        "catalog/coverage.html",
        {"coverage": coverage, "stale": {row.ref for row in coverage.stale_rows()}},
    )
