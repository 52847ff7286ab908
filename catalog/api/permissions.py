"""Who may do what in the API: reads need a signed-in user, writes the maintainer permission."""

from __future__ import annotations

from rest_framework.permissions import SAFE_METHODS, BasePermission

from ecomap.outage import FailOpenScopedRateThrottle

MAINTAIN_CATALOG = "catalog.maintain_catalog"


class CatalogPermission(BasePermission):
    message = "Changing the catalog needs the catalog-maintainer permission."

    def has_permission(self, request, view) -> bool:
        user = request.user
        if not (user and user.is_authenticated):
            return False
        return request.method in SAFE_METHODS or user.has_perm(MAINTAIN_CATALOG)


class WriteThrottle(FailOpenScopedRateThrottle):
    """Scoped rate limit applied to unsafe methods only; reads are not throttled. With the
    cache down it lets the write through (logged): a Redis outage must not stop the catalog."""

    def allow_request(self, request, view) -> bool:
        if request.method in SAFE_METHODS:
            return True
        return super().allow_request(request, view)
