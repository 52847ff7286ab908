"""Who may do what in the API: reads need a signed-in user, writes the maintainer permission."""

from __future__ import annotations

from rest_framework.permissions import SAFE_METHODS, BasePermission
from rest_framework.throttling import ScopedRateThrottle

MAINTAIN_CATALOG = "catalog.maintain_catalog"


class CatalogPermission(BasePermission):
    message = "Changing the catalog needs the catalog-maintainer permission."

    def has_permission(self, request, view) -> bool:
        user = request.user
        if not (user and user.is_authenticated):
            return False
        return request.method in SAFE_METHODS or user.has_perm(MAINTAIN_CATALOG)


class WriteThrottle(ScopedRateThrottle):
    """Scoped rate limit applied to unsafe methods only; reads are not throttled."""

    def allow_request(self, request, view) -> bool:
        if request.method in SAFE_METHODS:
            return True
        return super().allow_request(request, view)
