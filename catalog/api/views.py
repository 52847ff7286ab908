"""Catalog API: projects, placements, vocabulary, interfaces, export, bundle schema."""

from __future__ import annotations

import hashlib
import json

import django_filters
from django.core.cache import cache
from django.db.models import F
from django.http import StreamingHttpResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import (
    OpenApiParameter,
    extend_schema,
    extend_schema_view,
)
from rest_framework import mixins, status, viewsets
from rest_framework.exceptions import ParseError, ValidationError
from rest_framework.renderers import JSONRenderer
from rest_framework.response import Response
from rest_framework.views import APIView

from catalog.api.permissions import CatalogPermission, WriteThrottle
from catalog.api.schema import (
    DETAIL_ERRORS,
    ERRORS,
    LIST_ERRORS,
    PROJECT_REQUEST_SCHEMA,
    PROJECT_UPDATE_SCHEMA,
    READ_ERRORS,
    WRITE_ERRORS,
    BundleBodySchema,
)
from catalog.api.serializers import (
    InterfaceSerializer,
    KubernetesFeaturesSerializer,
    PlacementSerializer,
    ProjectSerializer,
    VocabularySerializer,
)
from catalog.engine.bundle import (
    BUNDLE_FORMAT,
    BundleInvalid,
    schema_with_vocabulary,
)
from catalog.engine.bundle_text import bundle_json_chunks, bundle_yaml_chunks
from catalog.engine.kubernetes import VERSION_PATTERN
from catalog.models import (
    EnforcementPoint,
    Function,
    Interface,
    Layer,
    PlacementRow,
    Project,
    ResourceUnit,
)
from catalog.search.selectors import projects_matching, search_prepared
from catalog.selectors import (
    bundle_export_projects,
    catalog_cache_key,
    kubernetes_features_at,
    vocabulary_current,
)
from catalog.services import bundle_apply, placement_row_delete, project_delete
from ecomap.parsers import BoundedJSONParser


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
        return projects_matching(queryset, search_prepared(value))

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


# A serialised page of a list is the same for every reader until the catalog changes.
LIST_CACHE_SECONDS = 600


class _CachedListResponse(Response):
    """A list page whose JSON body is rendered once per key and media type and kept; on a hit the
    page's data is read only if something asks for it. Names its compressed form's key for
    ecomap.middleware.CachedGZipMiddleware."""

    def __init__(self, load, body_key: str | None, body: bytes | None = None):
        self._load, self._data, self._body_key, self._body = load, None, body_key, body
        super().__init__(None)

    @property
    def data(self):
        if self._data is None:
            self._data = self._load()
        return self._data

    @data.setter
    def data(self, value):
        self._data = value

    @property
    def rendered_content(self):
        if self._body_key is None:
            return super().rendered_content  # the browsable API renders per request
        if self._body is None:
            self._body = super().rendered_content
            cache.set(self._body_key, self._body, LIST_CACHE_SECONDS)
        else:
            self["Content-Type"] = self.accepted_renderer.media_type
        self.gzip_cache_key = f"{self._body_key}:gzip"
        self.gzip_cache_seconds = LIST_CACHE_SECONDS
        return self._body


class CatalogListCacheMixin:
    """Lists answered from the cache, per catalog revision and full URL (host, filters, page,
    ordering: the links to the next and previous page are absolute); the JSON body too, per
    media type (`; indent=`)."""

    def list(self, request, *args, **kwargs):
        key = catalog_cache_key(f"api:{self.basename}", request.build_absolute_uri())

        def load():
            data = cache.get(key)
            if data is None:
                data = super(CatalogListCacheMixin, self).list(request, *args, **kwargs).data
                cache.set(key, data, LIST_CACHE_SECONDS)
            return data

        body_key = body = None
        if type(request.accepted_renderer) is JSONRenderer:
            media = hashlib.sha256(request.accepted_media_type.encode()).hexdigest()[:16]
            body_key = f"{key}:{media}"
            body = cache.get(body_key)
        if not isinstance(body, bytes):
            data = load()  # errors (a page past the end) raise here, where DRF answers them
            return _CachedListResponse(lambda: data, body_key)
        return _CachedListResponse(load, body_key, body)


@extend_schema_view(
    list=extend_schema(
        parameters=_bounded_filters(ProjectFilter),
        responses={200: ProjectSerializer(many=True), **LIST_ERRORS},
    ),
    retrieve=extend_schema(responses={200: ProjectSerializer, **DETAIL_ERRORS}),
)
class ProjectViewSet(CatalogListCacheMixin, viewsets.ModelViewSet):
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
    parser_classes = [BoundedJSONParser]  # JSON only, bounded like every API body
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
    CatalogListCacheMixin,
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
                "functions": list(
                    Function.objects.annotate(layer_key=F("layer__key")).values(
                        *fields, "layer_key"
                    )
                ),
            }
        )


class KubernetesFeaturesView(APIView):
    """Kubernetes feature gates as catalog facts: each gate's stage per minor, sourced.

    With `?version=1.34` each feature also says its stage there and whether it is on by default.
    """

    @extend_schema(
        parameters=[
            OpenApiParameter(
                "version",
                str,
                description="a Kubernetes version, e.g. 1.34 or v1.34.2",
                required=False,
                pattern=VERSION_PATTERN,
            )
        ],
        responses={
            200: KubernetesFeaturesSerializer,
            400: ERRORS[400],  # `version` is not a Kubernetes version
            **READ_ERRORS,
        },
    )
    def get(self, request):
        version = request.query_params.get("version") or None
        try:
            return Response(kubernetes_features_at(version=version))
        except ValueError as exc:
            raise ValidationError({"version": [str(exc)]}) from exc


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
        projects = bundle_export_projects(
            slugs=request.query_params.getlist("project") or None,
            layer=request.query_params.get("layer", ""),
            tag=request.query_params.get("tag", ""),
        )
        header = {"format": BUNDLE_FORMAT, "source": request.build_absolute_uri()}
        # Streamed a few hundred projects at a time (issue 41 H1: a 100,000-row catalog's
        # document was built whole, then rendered whole).
        if as_ == "yaml":
            chunks = bundle_yaml_chunks(header, projects)
            return StreamingHttpResponse(chunks, content_type="application/yaml; charset=utf-8")
        return StreamingHttpResponse(
            bundle_json_chunks(header, projects), content_type="application/json"
        )


class BundleSchemaView(APIView):
    """The JSON Schema of ecomap.bundle/v1 with the live vocabulary."""

    @extend_schema(responses={(200, "application/json"): OpenApiTypes.OBJECT, **READ_ERRORS})
    def get(self, request):
        return Response(schema_with_vocabulary(vocabulary_current()))
