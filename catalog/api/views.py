"""Catalog API: projects, placements, vocabulary, interfaces, imports, export, bundle schema."""

from __future__ import annotations

import django_filters
import yaml
from django.conf import settings
from django.http import HttpResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import mixins, status, viewsets
from rest_framework.decorators import action
from rest_framework.exceptions import ParseError
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
from catalog.engine.bundle import BUNDLE_FORMAT, BundleInvalid, schema_with_vocabulary
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


class ProjectFilter(django_filters.FilterSet):
    layer = django_filters.CharFilter(method="filter_layer", max_length=40)
    unit = django_filters.CharFilter(method="filter_unit", max_length=40)
    enforcement_point = django_filters.CharFilter(method="filter_point", max_length=40)
    tag = django_filters.CharFilter(method="filter_tag", max_length=80)
    q = django_filters.CharFilter(method="filter_text", max_length=200)
    unplaced = django_filters.BooleanFilter(method="filter_unplaced")

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
        return queryset.unplaced() if value else queryset.placed()


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
    document = {"format": BUNDLE_FORMAT, "source": "api", "projects": [body]}
    try:
        bundle_apply(document=document, actor=request.user, source="api")
    except BundleInvalid as exc:
        raise _strip_prefix(exc, "projects[0]") from exc


@extend_schema(responses={**READ_ERRORS})
class ProjectViewSet(viewsets.ModelViewSet):
    """Projects with their placement rows. Writes take one project in the bundle format."""

    serializer_class = ProjectSerializer
    permission_classes = [CatalogPermission]
    throttle_classes = [WriteThrottle]
    throttle_scope = "catalog_write"
    lookup_field = "slug"
    lookup_value_regex = "[a-z0-9-]+"
    filterset_class = ProjectFilter
    ordering_fields = ["name", "slug", "updated_at"]
    ordering = ["name"]
    parser_classes = [JSONParser]
    http_method_names = ["get", "post", "put", "delete", "head", "options"]

    def get_queryset(self):
        return Project.objects.with_cards()

    @extend_schema(
        request={"application/json": {"type": "object", "description": "a bundle project"}},
        responses={201: ProjectSerializer, **ERRORS},
    )
    def create(self, request, *args, **kwargs):
        _apply_project(request, request.data)
        project = self.get_queryset().get(slug=request.data["slug"])
        return Response(self.get_serializer(project).data, status=status.HTTP_201_CREATED)

    @extend_schema(
        request={"application/json": {"type": "object", "description": "a bundle project"}},
        responses={200: ProjectSerializer, **ERRORS},
    )
    def update(self, request, *args, **kwargs):
        project = self.get_object()
        body = request.data
        if isinstance(body, dict):
            body = {**body, "slug": project.slug}
        _apply_project(request, body)
        return Response(self.get_serializer(self.get_queryset().get(pk=project.pk)).data)

    @extend_schema(responses={204: None, **ERRORS})
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


@extend_schema(responses={**READ_ERRORS})
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
    ordering_fields = ["key", "updated_at", "project__name"]
    ordering = ["project__name", "key"]

    def get_queryset(self):
        return PlacementRow.objects.with_cards().distinct()

    @extend_schema(responses={204: None, **ERRORS})
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


@extend_schema(responses={**READ_ERRORS})
class InterfaceViewSet(viewsets.ReadOnlyModelViewSet):
    """Every interface identifier (`kind:name`) used by a placement row."""

    serializer_class = InterfaceSerializer
    queryset = Interface.objects.all()
    filterset_class = InterfaceFilter
    lookup_field = "identifier"
    lookup_value_regex = "[^/]+(?:/[^/]+)*"
    ordering_fields = ["identifier", "kind"]


IMPORT_PARAMETERS = [
    OpenApiParameter("dry_run", OpenApiTypes.BOOL, description="report, write nothing"),
    OpenApiParameter(
        "format",
        OpenApiTypes.STR,
        enum=["bundle", "csv", "landscape"],
        description="override the format detected from the content",
    ),
    OpenApiParameter("source", OpenApiTypes.STR, description="who supplied the data"),
]


@extend_schema(responses={**READ_ERRORS})
class ImportViewSet(
    mixins.CreateModelMixin,
    mixins.ListModelMixin,
    mixins.RetrieveModelMixin,
    viewsets.GenericViewSet,
):
    """Imports of bundles (JSON/YAML), CSV and CNCF landscape.yml. Each is a job resource."""

    serializer_class = ImportJobSerializer
    permission_classes = [CatalogPermission]
    throttle_classes = [WriteThrottle]
    throttle_scope = "import"
    parser_classes = [*IMPORT_PARSERS, MultiPartParser]
    ordering = ["-created_at"]
    ordering_fields = ["created_at"]
    filterset_fields = ["status", "format"]

    def get_queryset(self):
        return ImportJob.objects.select_related("created_by").defer("payload")

    @extend_schema(
        parameters=IMPORT_PARAMETERS,
        request={
            "application/json": {"type": "object", "description": "an ecomap.bundle/v1 document"},
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
            400: OpenApiResponse(ImportJobSerializer, description="rejected; nothing written"),
            401: ERRORS[401],
            403: ERRORS[403],
            413: OpenApiResponse(ErrorSerializer, description="body over the size limit"),
            415: OpenApiResponse(ErrorSerializer, description="unsupported content type"),
        },
    )
    def create(self, request, *args, **kwargs):
        text, media_type, name = self._body(request)
        try:
            job = import_submit(
                text=text,
                actor=request.user,
                source=request.query_params.get("source") or name or "api",
                dry_run=request.query_params.get("dry_run", "").lower() in ("1", "true", "yes"),
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

    @extend_schema(responses={(200, "text/csv"): OpenApiTypes.STR, **READ_ERRORS})
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
            OpenApiParameter("as", OpenApiTypes.STR, enum=["json", "yaml"]),
        ],
        responses={(200, "application/json"): OpenApiTypes.OBJECT, **READ_ERRORS},
    )
    def get(self, request):
        slugs = request.query_params.getlist("project") or None
        document = bundle_export(
            slugs=slugs,
            layer=request.query_params.get("layer", ""),
            tag=request.query_params.get("tag", ""),
            source=request.build_absolute_uri(),
        )
        if request.query_params.get("as") == "yaml":
            text = yaml.safe_dump(document, allow_unicode=True, sort_keys=False)
            return HttpResponse(text, content_type="application/yaml; charset=utf-8")
        return Response(document)


class BundleSchemaView(APIView):
    """The JSON Schema of ecomap.bundle/v1 with the live vocabulary."""

    @extend_schema(responses={(200, "application/schema+json"): OpenApiTypes.OBJECT})
    def get(self, request):
        return Response(schema_with_vocabulary(vocabulary_current()))
