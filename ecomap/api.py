"""API plumbing: the domain errors mapped to HTTP once, and the API's URL tree."""

from __future__ import annotations

from typing import Any

from csp.decorators import csp_update
from django.core.exceptions import RequestDataTooBig
from django.urls import include, path
from drf_spectacular.views import (
    SpectacularAPIView,
    SpectacularRedocView,
    SpectacularSwaggerSplitView,
)
from rest_framework import status
from rest_framework.exceptions import ParseError, ValidationError
from rest_framework.response import Response
from rest_framework.views import exception_handler

from catalog.engine.bundle import BundleInvalid
from ecomap.middleware import NUL_MESSAGE

# The one origin outside this site a page may load anything from: Redoc's logo image.
REDOC_LOGO_ORIGIN = "https://cdn.redoc.ly"


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
    if isinstance(exc, ParseError):  # a body the parser refused (ecomap.parsers)
        message = str(exc.detail)
        return Response(
            {"detail": message, "errors": [{"path": "$", "message": message}]},
            status=status.HTTP_400_BAD_REQUEST,
        )
    if isinstance(exc, ValidationError):  # one error shape for every 400: detail + errors
        return Response(
            {"detail": "invalid input", "errors": error_items(exc.detail)},
            status=status.HTTP_400_BAD_REQUEST,
        )
    return exception_handler(exc, context)


def empty_query_values(result, generator, request, public):
    """Schema hook: an empty query value (`?state=`) means "no filter" everywhere in the API, as
    django-filter reads it; every query parameter with a list of values says so, and so does
    every numeric one (an empty page, limit or revision is the default)."""
    for path_item in result.get("paths", {}).values():
        for operation in path_item.values():
            if not isinstance(operation, dict):
                continue
            for parameter in operation.get("parameters", []):
                schema = parameter.get("schema", {})
                values = schema.get("items", {}) if schema.get("type") == "array" else schema
                if parameter.get("in") == "query" and "" not in values.get("enum", [""]):
                    values["enum"] = [*values["enum"], ""]
                elif parameter.get("in") == "query" and schema.get("type") in NUMBERS:
                    # `?page=`, `?limit=`: left out, as DRF's paginator and our views read it
                    parameter["schema"] = {"anyOf": [schema, {"type": "string", "enum": [""]}]}
    return result


NUMBERS = ("integer", "number")


# What ecomap.middleware.RejectNulMiddleware refuses everywhere, said in the schema's terms.
NO_NUL = "^[^\\x00]*$"


def no_nul_parameters(result, generator, request, public):
    """Schema hook: no path or query value may hold a NUL character (the middleware answers 400
    for one anywhere), so every free-text string parameter says so with a pattern."""
    for path_item in result.get("paths", {}).values():
        for operation in path_item.values():
            if not isinstance(operation, dict):
                continue
            for parameter in operation.get("parameters", []):
                schema = parameter.get("schema", {})
                values = schema.get("items", {}) if schema.get("type") == "array" else schema
                if values.get("type") == "string" and not (
                    {"enum", "pattern", "format"} & set(values)
                ):
                    values["pattern"] = NO_NUL
    return result


def every_operation_refuses_nul(result, generator, request, public):
    """Schema hook: RejectNulMiddleware answers 400 (the one error shape, detail + errors) for a
    NUL character in any path or query value, before a view runs, so every operation can answer
    400 and says so."""
    if "Error" not in result.get("components", {}).get("schemas", {}):
        return result
    refused = {
        "description": NUL_MESSAGE,
        "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}},
    }
    for path_item in result.get("paths", {}).values():
        for operation in path_item.values():
            if isinstance(operation, dict) and "responses" in operation:
                operation["responses"].setdefault("400", refused)
    return result


def error_items(detail: Any, path: str = "") -> list[dict[str, str]]:
    """DRF's nested error detail as a flat list of {path, message}."""
    if isinstance(detail, dict):
        return [
            error
            for key, value in detail.items()
            for error in error_items(value, f"{path}.{key}" if path else str(key))
        ]
    if isinstance(detail, list):
        if all(not isinstance(item, dict | list) for item in detail):
            return [{"path": path or "$", "message": str(item)} for item in detail]
        return [
            error for i, item in enumerate(detail) for error in error_items(item, f"{path}[{i}]")
        ]
    return [{"path": path or "$", "message": str(detail)}]


urlpatterns = [
    path("v1/", include(("catalog.api.urls", "api"), namespace="api")),
    path("v1/", include(("evaluations.api.urls", "evaluations-api"), namespace="evaluations-api")),
    path("schema/", SpectacularAPIView.as_view(), name="schema"),
    # The split view serves Swagger UI's start-up script as a file, which the CSP allows.
    # OPTIONS on the HTML pages answers 405: DRF's metadata answer has no template to render in.
    path(
        "docs/",
        SpectacularSwaggerSplitView.as_view(url_name="schema", metadata_class=None),
        name="api-docs",
    ),
    # Redoc under the site's CSP (issue 28): our template starts it from its <redoc> element,
    # without drf-spectacular's inline script and Google Fonts. Scripts stay 'self'; only the
    # "API docs by Redocly" logo, which the bundle always draws, is an image from their CDN.
    path(
        "redoc/",
        csp_update({"img-src": REDOC_LOGO_ORIGIN})(
            SpectacularRedocView.as_view(
                url_name="schema", template_name="api/redoc.html", metadata_class=None
            )
        ),
        name="api-redoc",
    ),
]
