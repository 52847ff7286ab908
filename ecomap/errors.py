"""Error pages: the API answers in JSON even when no API view was reached (an id that no
route matches, a crash before DRF's handler); pages get the site's own branded pages (header,
message in the reader's language, a way back), DEBUG or not."""

from __future__ import annotations

from django.http import JsonResponse
from django.shortcuts import render
from django.views import defaults

API_PREFIX = "/api/"


def _is_api(request) -> bool:
    return request.path.startswith(API_PREFIX)


def bad_request(request, exception):
    if _is_api(request):
        return JsonResponse({"detail": "Bad request."}, status=400)
    return render(request, "400.html", status=400)


def permission_denied(request, exception):
    if _is_api(request):
        return JsonResponse(
            {"detail": "You do not have permission to perform this action."}, status=403
        )
    message = str(exception) if exception and str(exception) else ""
    return render(request, "403.html", {"reason": message}, status=403)


def not_found(request, exception):
    if _is_api(request):
        return JsonResponse({"detail": "Not found."}, status=404)
    return defaults.page_not_found(request, exception)


def server_error(request):
    # Rendered without the request context on purpose: whatever broke may break that too.
    if _is_api(request):
        return JsonResponse({"detail": "Server error."}, status=500)
    return defaults.server_error(request)


def csrf_failure(request, reason: str = ""):
    """A form sent without a valid CSRF token (an expired page, blocked cookies): say what to do
    instead of Django's plain page (settings.CSRF_FAILURE_VIEW)."""
    if _is_api(request):
        return JsonResponse({"detail": f"CSRF Failed: {reason}"}, status=403)
    return render(request, "403_csrf.html", status=403)
