"""Catalog pages: the filterable list and the project page with its placement cards."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.core.paginator import Paginator
from django.http import Http404
from django.shortcuts import render
from django.utils.functional import SimpleLazyObject

from catalog.forms import CatalogFilterForm
from catalog.models import Project
from catalog.selectors import (
    catalog_revision_for_pages,
    catalog_totals,
    facet_counts,
    project_get,
    project_history,
    project_list,
)

PAGE_SIZE = 30


@login_required
def project_list_view(request):
    form = CatalogFilterForm(request.GET or None)
    filters = form.filters()
    paginator = Paginator(project_list(filters=filters), PAGE_SIZE)
    query = request.GET.copy()
    query.pop("page", None)
    # The page body is cached per catalog revision, language and query (the template's
    # {% cache %}): the tiles, facets and totals are read only when it is not.
    return render(
        request,
        "catalog/project_list.html",
        {
            "form": form,
            "filters": filters,
            "revision": catalog_revision_for_pages(),
            "page": SimpleLazyObject(lambda: paginator.get_page(request.GET.get("page"))),
            "facets": SimpleLazyObject(lambda: facet_counts(filters=filters)),
            "totals": SimpleLazyObject(catalog_totals),
            "query": query.urlencode(),
            "filtered": any(
                (
                    filters.layer,
                    filters.unit,
                    filters.enforcement_point,
                    filters.tag,
                    filters.text,
                    filters.unplaced,
                )
            ),
        },
    )


@login_required
def project_detail_view(request, slug: str):
    try:
        project = project_get(slug=slug)
    except Project.DoesNotExist:
        raise Http404("No such project") from None
    return render(
        request,
        "catalog/project_detail.html",
        {"project": project, "history": project_history(project=project)},
    )
