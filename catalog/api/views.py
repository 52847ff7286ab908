"""Catalog API: projects, placements, vocabulary, interfaces, imports, export, bundle schema."""

from __future__ import annotations

import json

import django_filters
import yaml
from django.conf import settings
from django.http import HttpResponse
from drf_spectacular.openapi import AutoSchema
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import (
    OpenApiParameter,
    OpenApiResponse,
    PolymorphicProxySerializer,
    extend_schema,
    extend_schema_view,
)
from rest_framework import mixins, status, viewsets
from rest_framework.decorators import action
from rest_framework.exceptions import ParseError
from rest_framework.negotiation import DefaultContentNegotiation
from rest_framework.parsers import JSONParser, MultiPartParser
from rest_framework.response import Response
from rest_framework.views import APIView

from catalog.api.parsers import IMPORT_PARSERS, PayloadTooLarge
from catalog.api.permissions import CatalogPermission, WriteThrottle
from catalog.api.serializers import (
    ErrorSerializer,
    ImportJobSerializer,
    InterfaceSerializer,
    PlacementSerializer,
    ProjectSerializer,
    VocabularySerializer,
)
from catalog.engine.bundle import (
    BUNDLE_FORMAT,
    BundleInvalid,
    base_schema,
    schema_with_vocabulary,
)
from catalog.engine.formats import csv_template
from catalog.imports import ImportRejected, import_submit
from catalog.models import (
    EnforcementPoint,
    ImportJob,
    Interface,
    Layer,
    PlacementRow,
    Project,
    ResourceUnit,
)
from catalog.selectors import bundle_export, vocabulary_current
from catalog.services import bundle_apply, placement_row_delete, project_delete

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
            if key in ("$schema", "$id", "$defs"):
                continue
            if key == "const":
                converted["enum"] = [value]
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


def _bounded_filters(filterset) -> list[OpenApiParameter]:
    """The filters' limits, which drf-spectacular leaves out of the schema: a length, and no
    NUL character (Django's form fields refuse it)."""
    return [
        OpenApiParameter(
            name,
            {"type": "string", "maxLength": spec.extra["max_length"], "pattern": "^[^\\x00]*$"},
        )
        for name, spec in filterset.base_filters.items()
        if "max_length" in spec.extra
    ]


class ProjectFilter(django_filters.FilterSet):
    layer = django_filters.CharFilter(method="filter_layer", max_length=40)
    unit = django_filters.CharFilter(method="filter_unit", max_length=40)
    enforcement_point = django_filters.CharFilter(method="filter_point", max_length=40)
    tag = django_filters.CharFilter(method="filter_tag", max_length=80)
    q = django_filters.CharFilter(method="filter_text", max_length=200)
    # A choice, not a BooleanFilter: that one reads any other value (?unplaced=null) as "no
    # filter" where the API should answer 400.
    unplaced = django_filters.ChoiceFilter(
        choices=[(value, value) for value in ("true", "false", "1", "0")],
        method="filter_unplaced",
    )

    class Meta:
        model = Project
        fields = ["layer", "unit", "enforcement_point", "tag", "q", "unplaced"]

    def filter_layer(self, queryset, name, value):
        return queryset.in_layer(value)

    def filter_unit(self, queryset, name, value):
        return queryset.with_unit(value)

    def filter_point(self, queryset, name, value):
        return queryset.with_enforcement_point(value)

    def filter_tag(self, queryset, name, value):
        return queryset.tagged(value)

    def filter_text(self, queryset, name, value):
        return queryset.search(value)

    def filter_unplaced(self, queryset, name, value):
        return queryset.unplaced() if value in ("true", "1") else queryset.placed()


def _strip_prefix(exc: BundleInvalid, prefix: str) -> BundleInvalid:
    """Errors of a one-project bundle, addressed relative to the request body."""
    for error in exc.errors:
        path = error.path
        if path.startswith(prefix):
            path = path[len(prefix) :].lstrip(".") or "$"
        object.__setattr__(error, "path", path)
    return exc


def _apply_project(request, body) -> None:
    if not isinstance(body, dict):
        raise ParseError("the body must be a JSON object: one project in the bundle format")
    if "\\u0000" in json.dumps(body):  # PostgreSQL text cannot hold NUL characters
        raise ParseError("the body contains NUL characters (\\u0000)")
    document = {"format": BUNDLE_FORMAT, "source": "api", "projects": [body]}
    try:
        bundle_apply(document=document, actor=request.user, source="api")
    except BundleInvalid as exc:
        raise _strip_prefix(exc, "projects[0]") from exc


@extend_schema_view(
    list=extend_schema(
        parameters=_bounded_filters(ProjectFilter),
        responses={200: ProjectSerializer(many=True), **LIST_ERRORS},
    ),
    retrieve=extend_schema(responses={200: ProjectSerializer, **DETAIL_ERRORS}),
)
class ProjectViewSet(viewsets.ModelViewSet):
    """Projects with their placement rows. Writes take one project in the bundle format."""

    serializer_class = ProjectSerializer
    schema = BundleBodySchema()
    permission_classes = [CatalogPermission]
    throttle_classes = [WriteThrottle]
    throttle_scope = "catalog_write"
    lookup_field = "slug"
    # Any segment reaches the view, so an unknown slug is a JSON 404 like every API error.
    lookup_value_regex = "[^/]+"
    filterset_class = ProjectFilter
    ordering_fields = ["name", "slug", "updated_at"]
    ordering = ["name"]
    parser_classes = [JSONParser]
    http_method_names = ["get", "post", "put", "delete", "head", "options"]

    def get_queryset(self):
        return Project.objects.with_cards()

    @extend_schema(
        request={"application/json": PROJECT_REQUEST_SCHEMA},
        responses={201: ProjectSerializer, **WRITE_ERRORS},
    )
    def create(self, request, *args, **kwargs):
        _apply_project(request, request.data)
        project = self.get_queryset().get(slug=request.data["slug"])
        return Response(self.get_serializer(project).data, status=status.HTTP_201_CREATED)

    @extend_schema(
        request={"application/json": PROJECT_UPDATE_SCHEMA},
        responses={200: ProjectSerializer, **WRITE_ERRORS},
    )
    def update(self, request, *args, **kwargs):
        project = self.get_object()
        body = request.data
        if isinstance(body, dict):
            if body.get("slug", project.slug) != project.slug:
                raise ParseError("the slug is the URL's; rename a project by importing it anew")
            body = {**body, "slug": project.slug}
        _apply_project(request, body)
        return Response(self.get_serializer(self.get_queryset().get(pk=project.pk)).data)

    @extend_schema(responses={204: None, **WRITE_ERRORS})
    def destroy(self, request, *args, **kwargs):
        project_delete(project=self.get_object(), actor=request.user, source="api")
        return Response(status=status.HTTP_204_NO_CONTENT)


class PlacementFilter(django_filters.FilterSet):
    project = django_filters.CharFilter(field_name="project__slug", max_length=80)
    layer = django_filters.CharFilter(field_name="layer__key", max_length=40)
    unit = django_filters.CharFilter(field_name="resource_units__key", max_length=40)
    enforcement_point = django_filters.CharFilter(
        field_name="enforcement_points__key", max_length=40
    )
    interface = django_filters.CharFilter(
        field_name="contracts__interface__identifier", max_length=220
    )

    class Meta:
        model = PlacementRow
        fields = ["project", "layer", "unit", "enforcement_point", "interface"]


@extend_schema_view(
    list=extend_schema(
        parameters=_bounded_filters(PlacementFilter),
        responses={200: PlacementSerializer(many=True), **LIST_ERRORS},
    ),
    retrieve=extend_schema(responses={200: PlacementSerializer, **DETAIL_ERRORS}),
)
class PlacementViewSet(
    mixins.ListModelMixin,
    mixins.RetrieveModelMixin,
    mixins.DestroyModelMixin,
    viewsets.GenericViewSet,
):
    """Placement rows (the one-page template). Create and edit them through their project."""

    serializer_class = PlacementSerializer
    permission_classes = [CatalogPermission]
    throttle_classes = [WriteThrottle]
    throttle_scope = "catalog_write"
    filterset_class = PlacementFilter
    lookup_value_regex = "[^/]+"  # a non-numeric id is a JSON 404, not Django's HTML one
    ordering_fields = ["key", "updated_at", "project__name"]
    ordering = ["project__name", "key"]

    def get_queryset(self):
        return PlacementRow.objects.with_cards().distinct()

    @extend_schema(responses={204: None, **WRITE_ERRORS})
    def destroy(self, request, *args, **kwargs):
        placement_row_delete(row=self.get_object(), actor=request.user, source="api")
        return Response(status=status.HTTP_204_NO_CONTENT)


class VocabularyView(APIView):
    """The vocabulary the engine and the bundle format accept (read-only, admin-editable)."""

    @extend_schema(responses={200: VocabularySerializer, **READ_ERRORS})
    def get(self, request):
        fields = ("key", "name_en", "name_zh", "description_en", "description_zh")
        return Response(
            {
                "layers": list(Layer.objects.values(*fields)),
                "resource_units": list(ResourceUnit.objects.values(*fields)),
                "enforcement_points": list(EnforcementPoint.objects.values(*fields)),
            }
        )


class InterfaceFilter(django_filters.FilterSet):
    kind = django_filters.CharFilter(max_length=20)
    q = django_filters.CharFilter(field_name="identifier", lookup_expr="icontains", max_length=200)

    class Meta:
        model = Interface
        fields = ["kind", "q"]


@extend_schema_view(
    list=extend_schema(
        parameters=_bounded_filters(InterfaceFilter),
        responses={200: InterfaceSerializer(many=True), **LIST_ERRORS},
    ),
    retrieve=extend_schema(responses={200: InterfaceSerializer, **DETAIL_ERRORS}),
)
class InterfaceViewSet(viewsets.ReadOnlyModelViewSet):
    """Every interface identifier (`kind:name`) used by a placement row."""

    serializer_class = InterfaceSerializer
    queryset = Interface.objects.all()
    filterset_class = InterfaceFilter
    lookup_field = "identifier"
    lookup_value_regex = "[^/]+(?:/[^/]+)*"
    ordering_fields = ["identifier", "kind"]


TRUE_VALUES = ("1", "true", "yes", "on")
FALSE_VALUES = ("", "0", "false", "no", "off")

IMPORT_PARAMETERS = [
    OpenApiParameter("dry_run", OpenApiTypes.BOOL, description="report, write nothing"),
    OpenApiParameter(
        "format",
        OpenApiTypes.STR,
        enum=["", "bundle", "csv", "landscape"],
        description="override the format detected from the content (empty: detect)",
    ),
    OpenApiParameter(
        "source", OpenApiTypes.STR, description="who supplied the data (at most 500 characters)"
    ),
]
IMPORT_FILTER_PARAMETERS = [
    OpenApiParameter(
        "status", OpenApiTypes.STR, enum=["", *ImportJob.Status.values], description="empty: any"
    ),
    OpenApiParameter(
        "format", OpenApiTypes.STR, enum=["", *ImportJob.Format.values], description="empty: any"
    ),
]


class _NoFormatOverride:
    # DRF reads ?format= as a renderer name and answers 404 to ?format=csv; here it is the
    # import format. The Accept header still chooses the renderer.
    URL_FORMAT_OVERRIDE = None


class ImportFormatNegotiation(DefaultContentNegotiation):
    """`?format=` names the import format on this endpoint, not a DRF renderer."""

    settings = _NoFormatOverride


def _query_flag(request, name: str) -> bool:
    value = request.query_params.get(name, "").lower()
    if value in TRUE_VALUES:
        return True
    if value in FALSE_VALUES:
        return False
    raise ParseError(f"'{name}' must be true or false, not {value[:40]!r}")


@extend_schema_view(
    list=extend_schema(
        parameters=IMPORT_FILTER_PARAMETERS,
        responses={200: ImportJobSerializer(many=True), **LIST_ERRORS},
    ),
    retrieve=extend_schema(responses={200: ImportJobSerializer, **DETAIL_ERRORS}),
)
class ImportViewSet(
    mixins.CreateModelMixin,
    mixins.ListModelMixin,
    mixins.RetrieveModelMixin,
    viewsets.GenericViewSet,
):
    """Imports of bundles (JSON/YAML), CSV and CNCF landscape.yml. Each is a job resource."""

    serializer_class = ImportJobSerializer
    schema = BundleBodySchema()
    permission_classes = [CatalogPermission]
    lookup_value_regex = "[^/]+"  # a malformed id is a JSON 404, not Django's HTML one
    throttle_classes = [WriteThrottle]
    throttle_scope = "import"
    parser_classes = [*IMPORT_PARSERS, MultiPartParser]
    content_negotiation_class = ImportFormatNegotiation
    ordering = ["-created_at"]
    ordering_fields = ["created_at"]
    filterset_fields = ["status", "format"]

    def get_queryset(self):
        return ImportJob.objects.select_related("created_by").defer("payload")

    @extend_schema(
        parameters=IMPORT_PARAMETERS,
        request={
            "application/json": BUNDLE_REQUEST_SCHEMA,
            "application/yaml": {"type": "string", "description": "a bundle or landscape.yml"},
            "text/csv": {"type": "string", "description": "one placement row per line"},
            "multipart/form-data": {
                "type": "object",
                "properties": {"file": {"type": "string", "format": "binary"}},
            },
        },
        responses={
            201: OpenApiResponse(ImportJobSerializer, description="applied (or dry run)"),
            202: OpenApiResponse(ImportJobSerializer, description="queued for a worker"),
            400: OpenApiResponse(
                PolymorphicProxySerializer(
                    component_name="ImportRejection",
                    serializers=[ImportJobSerializer, ErrorSerializer],
                    resource_type_field_name=None,
                ),
                description="rejected, nothing written: the failed job with every error, or "
                "the reason the request itself was unusable",
            ),
            401: ERRORS[401],
            403: ERRORS[403],
            413: OpenApiResponse(ErrorSerializer, description="body over the size limit"),
            415: OpenApiResponse(ErrorSerializer, description="unsupported content type"),
            429: WRITE_ERRORS[429],
        },
    )
    def create(self, request, *args, **kwargs):
        text, media_type, name = self._body(request)
        try:
            job = import_submit(
                text=text,
                actor=request.user,
                source=request.query_params.get("source") or name or "api",
                dry_run=_query_flag(request, "dry_run"),
                format_hint=request.query_params.get("format", ""),
                content_type=media_type,
            )
        except ImportRejected as rejected:
            return Response(self.get_serializer(rejected.job).data, status=400)
        code = status.HTTP_201_CREATED if job.finished else status.HTTP_202_ACCEPTED
        return Response(self.get_serializer(job).data, status=code)

    def _body(self, request) -> tuple[str, str, str]:
        data = request.data
        if "text" in data and "media_type" in data:
            return data["text"], data["media_type"], ""
        upload = request.FILES.get("file")
        if upload is None:
            raise ParseError("upload the data as the form field 'file'")
        if upload.size > settings.IMPORT_MAX_BYTES:
            raise PayloadTooLarge(
                f"The file is over the limit of {settings.IMPORT_MAX_BYTES} bytes."
            )
        try:
            text = upload.read().decode("utf-8")
        except UnicodeDecodeError as exc:
            raise ParseError(f"the file is not UTF-8 text: {exc}") from exc
        name = upload.name or ""
        media = "text/csv" if name.endswith(".csv") else upload.content_type or ""
        return text, media, name

    @extend_schema(
        parameters=[
            OpenApiParameter("format", exclude=True),
            OpenApiParameter("status", exclude=True),
        ],
        responses={(200, "text/csv"): OpenApiTypes.STR, **READ_ERRORS},
    )
    @action(detail=False, methods=["get"], url_path="csv-template")
    def csv_template(self, request):
        """A CSV file with the header and one example row."""
        response = HttpResponse(csv_template(), content_type="text/csv; charset=utf-8")
        response["Content-Disposition"] = 'attachment; filename="ecomap-import-template.csv"'
        return response


class ExportView(APIView):
    """The catalog as an ecomap.bundle/v1 document; import it into an empty EcoMap to copy it."""

    @extend_schema(
        parameters=[
            OpenApiParameter("project", OpenApiTypes.STR, many=True, description="project slugs"),
            OpenApiParameter("layer", OpenApiTypes.STR),
            OpenApiParameter("tag", OpenApiTypes.STR, description="tag slug"),
            OpenApiParameter("as", OpenApiTypes.STR, enum=["", "json", "yaml"]),
        ],
        responses={
            (200, "application/json"): OpenApiTypes.OBJECT,
            (200, "application/yaml"): OpenApiTypes.OBJECT,
            400: ERRORS[400],
            **READ_ERRORS,
        },
    )
    def get(self, request):
        as_ = request.query_params.get("as", "")
        if as_ not in ("", "json", "yaml"):
            raise ParseError(f"'as' must be json or yaml, not {as_[:40]!r}")
        slugs = request.query_params.getlist("project") or None
        document = bundle_export(
            slugs=slugs,
            layer=request.query_params.get("layer", ""),
            tag=request.query_params.get("tag", ""),
            source=request.build_absolute_uri(),
        )
        if as_ == "yaml":
            text = yaml.safe_dump(document, allow_unicode=True, sort_keys=False)
            return HttpResponse(text, content_type="application/yaml; charset=utf-8")
        return Response(document)


class BundleSchemaView(APIView):
    """The JSON Schema of ecomap.bundle/v1 with the live vocabulary."""

    @extend_schema(responses={(200, "application/json"): OpenApiTypes.OBJECT, **READ_ERRORS})
    def get(self, request):
        return Response(schema_with_vocabulary(vocabulary_current()))
