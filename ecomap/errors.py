"""Error pages: the API answers in JSON even when no API view was reached (an id that no
route matches, a crash before DRF's handler); pages keep Django's HTML ones."""

from __future__ import annotations

from django.http import JsonResponse
from django.views import defaults

API_PREFIX = "/api/"


def _is_api(request) -> bool:
    return request.path.startswith(API_PREFIX)


def not_found(request, exception):
    if _is_api(request):
        return JsonResponse({"detail": "Not found."}, status=404)
    return defaults.page_not_found(request, exception)


def server_error(request):
    if _is_api(request):
        return JsonResponse({"detail": "Server error."}, status=500)
    return defaults.server_error(request)
