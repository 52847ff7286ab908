"""Map pages: the interactive map, its frameable embed, its JSON data and the side-panel card."""

from __future__ import annotations

from csp.decorators import csp_update
from django.conf import settings
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse, StreamingHttpResponse
from django.shortcuts import render
from django.urls import reverse
from django.views.decorators.clickjacking import xframe_options_exempt
from django.views.decorators.http import require_GET

from catalog.map.card import project_card
from catalog.map.figure import CACHE_SECONDS, MapFilters, map_page_key, stack_from_query
from catalog.map.large import map_csv_stream, map_page
from catalog.models import Project
from catalog.selectors import project_get
from ecomap.fragments import cached_fragment, fragment_key, render_fragment


def _map_context(request: HttpRequest) -> dict[str, object]:
    filters = MapFilters.from_query(request.GET)
    stack = stack_from_query(request.GET.get("stack", ""))
    # Past CATALOG_PAGE_MAX_ROWS rows, `large` says how many the query selects and `overview`
    # holds their counts per layer and resource unit when they are too many to draw.
    data = map_page(highlight=stack, filters=filters)
    query = request.GET.urlencode()
    return {
        "filters": filters,
        "stack": stack,
        "payload": data["payload"],
        "choices": data["choices"],
        "table": data["table"],
        "table_total": data["table_total"],
        "large": data["large"],
        "overview": data.get("overview"),
        "focus_project_name": dict(data["choices"]["projects"] or ()).get(filters.near, ""),
        "focus_layer_name": dict(data["choices"]["layers"]).get(filters.layer, ""),
        "query": query,
        "embed_url": request.build_absolute_uri(reverse("map:embed"))
        + (f"?{query}" if query else ""),
        "map_config": {
            "dataUrl": reverse("map:data"),
            "tableUrl": reverse("map:table"),
            "csvUrl": reverse("map:csv"),
            "cardUrl": reverse("map:card", args=["__slug__"]),
            "projectUrl": reverse("catalog:project-detail", args=["__slug__"]),
        },
    }


@login_required
@require_GET
def map_page_view(request: HttpRequest) -> HttpResponse:
    # Everything below the page's head (filters, table, the figure's data) is the same for every
    # reader of a query: drawn once per catalog revision, language and query.
    key = map_page_key(
        highlight=stack_from_query(request.GET.get("stack", "")),
        filters=MapFilters.from_query(request.GET),
    )
    body = cached_fragment(
        request,
        fragment_key("map-body", key),
        lambda: render_fragment("catalog/_map_body.html", _map_context(request)),
        timeout=CACHE_SECONDS,
    )
    query = request.GET.urlencode()
    embed_url = request.build_absolute_uri(reverse("map:embed")) + (f"?{query}" if query else "")
    return render(
        request, "catalog/map.html", {"map_body": body, "query": query, "embed_url": embed_url}
    )


# Wikis frame this page, so it alone may be shown in a frame, by the origins named in
# EMBED_FRAME_ANCESTORS (CSP frame-ancestors; X-Frame-Options cannot name origins, so it is left
# off here). It requires a signed-in session like every page, which a wiki on the same site shares.
@csp_update({"frame-ancestors": settings.EMBED_FRAME_ANCESTORS})
@xframe_options_exempt
@require_GET
def map_embed_view(request: HttpRequest) -> HttpResponse:
    if not request.user.is_authenticated:
        # A redirect would land on the login page, which refuses to be framed.
        return render(request, "catalog/map_embed.html", {"signed_out": True}, status=401)
    return render(request, "catalog/map_embed.html", _map_context(request))


@login_required
@require_GET
def map_data_view(request: HttpRequest) -> JsonResponse:
    data = map_page(
        highlight=stack_from_query(request.GET.get("stack", "")),
        filters=MapFilters.from_query(request.GET),
    )
    return JsonResponse(data["payload"])


@login_required
@require_GET
def map_table_view(request: HttpRequest) -> HttpResponse:
    """The table under the figure for a query: the script swaps it in after a filter change."""
    return render(request, "partials/map_table.html", _map_context(request))


@login_required
@require_GET
def map_csv_view(request: HttpRequest) -> StreamingHttpResponse:
    """The figure's data (rows × contracts) as CSV, every row of the query (the page lists
    the first few hundred), streamed."""
    lines = map_csv_stream(filters=MapFilters.from_query(request.GET))
    response = StreamingHttpResponse(lines, content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = 'attachment; filename="ecomap-map.csv"'
    return response


@login_required
@require_GET
def map_card_view(request: HttpRequest, slug: str) -> HttpResponse:
    try:
        project = project_get(slug=slug)
    except Project.DoesNotExist:
        raise Http404("No such project") from None
    card = project_card(project=project, first=request.GET.get("row", ""))
    return render(request, "partials/map_panel.html", {"project": project, "card": card})
