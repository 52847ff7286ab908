"""What the catalog API's endpoints share in their OpenAPI description: error responses, bundle
request bodies documented with the bundle's own JSON Schema."""

from __future__ import annotations

from drf_spectacular.openapi import AutoSchema
from drf_spectacular.utils import OpenApiResponse

from catalog.api.serializers import ErrorSerializer
from catalog.engine.bundle import base_schema

ERRORS = {
    400: OpenApiResponse(ErrorSerializer, description="invalid input, with every error's path"),
    401: OpenApiResponse(ErrorSerializer, description="not signed in"),
    403: OpenApiResponse(ErrorSerializer, description="needs the catalog-maintainer permission"),
    404: OpenApiResponse(ErrorSerializer, description="no such object"),
}
READ_ERRORS = {code: ERRORS[code] for code in (401, 403)}
DETAIL_ERRORS = {code: ERRORS[code] for code in (401, 403, 404)}
# A bad filter value: the API's one error shape, the parameter as the error's path.
FILTER_ERRORS = OpenApiResponse(ErrorSerializer, description="a filter value is not valid")
LIST_ERRORS = {
    400: FILTER_ERRORS,
    **READ_ERRORS,
    404: OpenApiResponse(ErrorSerializer, description="no such page"),
}
WRITE_ERRORS = {
    **ERRORS,
    429: OpenApiResponse(ErrorSerializer, description="too many writes; retry later"),
}


def _openapi_schema(schema: dict, defs: dict | None = None) -> dict:
    """A JSON Schema (2020-12, with `$defs`) inlined into the OpenAPI 3.0 dialect."""
    defs = schema.get("$defs", {}) if defs is None else defs

    def convert(node):
        if isinstance(node, list):
            return [convert(item) for item in node]
        if not isinstance(node, dict):
            return node
        if "$ref" in node:
            return convert(defs[node["$ref"].rsplit("/", 1)[-1]])
        converted = {}
        for key, value in node.items():
            if key in ("$schema", "$id", "$defs", "$comment"):
                continue
            if key == "const":
                converted["enum"] = [value]
            elif key == "propertyNames":
                # OpenAPI 3.0 has no propertyNames: the key rule is said in words instead.
                keys = value.get("pattern") if isinstance(value, dict) else None
                if keys:
                    said = node.get("description", "")
                    converted["description"] = f"{said} (keys match {keys})".strip()
            elif key == "description" and "description" in converted:
                continue
            else:
                converted[key] = convert(value)
        return converted

    return convert(schema)


# Request bodies documented with the bundle's own JSON Schema (the seeded vocabulary).
BUNDLE_REQUEST_SCHEMA = _openapi_schema(base_schema())
PROJECT_REQUEST_SCHEMA = _openapi_schema(
    base_schema()["$defs"]["project"], defs=base_schema()["$defs"]
)
# PUT takes the slug from the URL; a body may repeat it.
PROJECT_UPDATE_SCHEMA = {
    **PROJECT_REQUEST_SCHEMA,
    "required": [key for key in PROJECT_REQUEST_SCHEMA["required"] if key != "slug"],
}


class BundleBodySchema(AutoSchema):
    """Bodies documented with a raw JSON Schema are required (drf-spectacular assumes not)."""

    def _get_request_for_media_type(self, serializer, direction="request"):
        schema, required = super()._get_request_for_media_type(serializer, direction)
        return schema, required or isinstance(serializer, dict)
