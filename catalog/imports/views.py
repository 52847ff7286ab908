"""Import pages: the job list with its upload form, one job's progress and result, and the
work queue of projects that still await placement."""

from __future__ import annotations

import math

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.core.paginator import Paginator
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from django.views.decorators.http import require_GET, require_POST

from catalog.api.permissions import MAINTAIN_CATALOG
from catalog.forms import CatalogFilterForm
from catalog.imports.forms import ImportUploadForm
from catalog.imports.models import ImportJob
from catalog.imports.selectors import (
    catalog_maintainers,
    import_job_changes,
    import_job_get,
    import_job_list,
    unplaced_projects,
    unplaced_tag_counts,
)
from catalog.imports.services import ImportRejected, import_progress, import_submit
from ecomap.outage import page_rate_limit_wait

JOBS_PER_PAGE = 25
CHANGES_PER_PAGE = 100
PROJECTS_PER_PAGE = 50


def _list_page(request: HttpRequest, form: ImportUploadForm | None, status: int = 200):
    page = Paginator(import_job_list(), JOBS_PER_PAGE).get_page(request.GET.get("page"))
    can_import = request.user.has_perm(MAINTAIN_CATALOG)
    if can_import and form is None:
        form = ImportUploadForm()
    return render(
        request,
        "catalog/import_list.html",
        {
            "page": page,
            "form": form if can_import else None,
            "formats": ImportJob.Format,
            # Without the permission the page says why there is no form and whom to ask.
            "maintainers": None if can_import else catalog_maintainers(),
        },
        status=status,
    )


@login_required
@require_GET
def import_list_view(request: HttpRequest) -> HttpResponse:
    return _list_page(request, form=None)


@login_required
@require_POST
def import_upload_view(request: HttpRequest) -> HttpResponse:
    if not request.user.has_perm(MAINTAIN_CATALOG):
        raise PermissionDenied(_("Importing needs the catalog-maintainer permission."))
    form = ImportUploadForm(request.POST, request.FILES)
    # The API's `import` rate and budget (one count per account, page and API together).
    wait = page_rate_limit_wait(request, scope="import")
    if wait is not None:
        seconds = math.ceil(wait)
        form.add_error(
            None,
            ngettext(
                "Too many imports in a short time: nothing was imported. "
                "Try again in %(seconds)d second.",
                "Too many imports in a short time: nothing was imported. "
                "Try again in %(seconds)d seconds.",
                seconds,
            )
            % {"seconds": seconds},
        )
        response = _list_page(request, form=form, status=429)
        response["Retry-After"] = str(seconds)
        return response
    if not form.is_valid():
        return _list_page(request, form=form, status=400)
    data = form.cleaned_data
    try:
        job = import_submit(
            text=form.text,
            actor=request.user,
            source=data["source"] or data["file"].name or "upload",
            dry_run=data["dry_run"],
            format_hint=data["format"],
            content_type=form.content_type,
            mode="replace" if data["replace"] else "merge",
        )
    except ImportRejected as rejected:
        messages.error(
            request,
            _("The import was rejected and nothing was written: %(count)d error(s), listed below.")
            % {"count": len(rejected.job.errors)},
        )
        return redirect("imports:detail", pk=rejected.job.pk)
    if job.finished:
        messages.success(
            request,
            _("Dry run done: nothing was written.") if job.dry_run else _("Import applied."),
        )
    else:
        messages.info(request, _("The import is queued; this page follows its progress."))
    return redirect("imports:detail", pk=job.pk)


@login_required
@require_GET
def import_detail_view(request: HttpRequest, pk) -> HttpResponse:
    try:
        job = import_job_get(job_id=pk)
    except ImportJob.DoesNotExist:
        raise Http404("No such import") from None
    done, total = import_progress(job)
    changes = Paginator(import_job_changes(job=job), CHANGES_PER_PAGE).get_page(
        request.GET.get("page")
    )
    return render(
        request,
        "catalog/import_detail.html",
        {
            "job": job,
            "done": done,
            "total": total,
            "percent": round(100 * done / total) if total else (100 if job.finished else 0),
            "changes": changes,
            "poll_url": reverse("api:import-detail", args=[job.pk]),
        },
    )


@login_required
@require_GET
def unplaced_view(request: HttpRequest) -> HttpResponse:
    form = CatalogFilterForm(request.GET or None)
    filters = form.filters()
    projects = unplaced_projects(text=filters.text, tag=filters.tag)
    page = Paginator(projects, PROJECTS_PER_PAGE).get_page(request.GET.get("page"))
    query = request.GET.copy()
    query.pop("page", None)
    return render(
        request,
        "catalog/unplaced.html",
        {
            "page": page,
            "filters": filters,
            "tags": unplaced_tag_counts(),
            "query": query.urlencode(),
            "can_import": request.user.has_perm(MAINTAIN_CATALOG),
        },
    )
