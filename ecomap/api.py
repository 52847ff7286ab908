"""API plumbing: the domain errors mapped to HTTP once, and the API's URL tree."""

from __future__ import annotations

from django.core.exceptions import RequestDataTooBig
from django.urls import include, path
from drf_spectacular.views import SpectacularAPIView, SpectacularRedocView, SpectacularSwaggerView
from rest_framework import status
from rest_framework.response import Response
from rest_framework.views import exception_handler

from catalog.engine.bundle import BundleInvalid


def api_exception_handler(exc, context):
    if isinstance(exc, BundleInvalid):
        return Response(
            {"detail": str(exc), "errors": [error.to_dict() for error in exc.errors]},
            status=status.HTTP_400_BAD_REQUEST,
        )
    if isinstance(exc, RequestDataTooBig):
        return Response(
            {"detail": "The request body is larger than the import limit."},
            status=status.HTTP_413_REQUEST_ENTITY_TOO_LARGE,
        )
    return exception_handler(exc, context)


urlpatterns = [
    path("v1/", include(("catalog.api.urls", "api"), namespace="api")),
    path("v1/", include(("evaluations.api.urls", "evaluations-api"), namespace="evaluations-api")),
    path("schema/", SpectacularAPIView.as_view(), name="schema"),
    path("docs/", SpectacularSwaggerView.as_view(url_name="schema"), name="api-docs"),
    path("redoc/", SpectacularRedocView.as_view(url_name="schema"), name="api-redoc"),
]
