"""The site's URLs plus pages that crash, refuse or reject, to see the 500, 403 and 400 pages a
visitor gets."""

from django.core.exceptions import PermissionDenied, SuspiciousOperation
from django.urls import path

from ecomap.urls import handler400, handler403, handler404, handler500, urlpatterns


def crashing_view(request):
    raise RuntimeError("a bug")


def refusing_view(request):
    raise PermissionDenied("Only a team admin can do this.")


def rejecting_view(request):
    raise SuspiciousOperation("a malformed request")


urlpatterns = [
    *urlpatterns,
    path("crash/", crashing_view),
    path("api/v1/crash/", crashing_view),
    path("forbidden/", refusing_view),
    path("bad-request/", rejecting_view),
]

__all__ = ["handler400", "handler403", "handler404", "handler500", "urlpatterns"]
