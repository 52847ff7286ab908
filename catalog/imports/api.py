"""The import API: `POST /api/v1/imports/` (bundle, CSV, landscape) and the job resources."""

from __future__ import annotations

from django.conf import settings
from django.http import HttpResponse
from django.urls import reverse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import (
    OpenApiParameter,
    OpenApiResponse,
    PolymorphicProxySerializer,
    extend_schema,
    extend_schema_field,
    extend_schema_view,
)
from rest_framework import mixins, serializers, status, viewsets
from rest_framework.decorators import action
from rest_framework.exceptions import ParseError
from rest_framework.negotiation import DefaultContentNegotiation
from rest_framework.parsers import MultiPartParser
from rest_framework.response import Response

from catalog.api.permissions import CatalogPermission, WriteThrottle
from catalog.api.schema import (
    BUNDLE_REQUEST_SCHEMA,
    DETAIL_ERRORS,
    ERRORS,
    LIST_ERRORS,
    READ_ERRORS,
    WRITE_ERRORS,
    BundleBodySchema,
)
from catalog.api.serializers import ErrorItemSerializer, ErrorSerializer
from catalog.engine.formats import csv_template
from catalog.imports.models import ImportJob
from catalog.imports.parsers import IMPORT_PARSERS, PayloadTooLarge
from catalog.imports.services import ImportRejected, import_progress, import_submit


class ImportJobSerializer(serializers.ModelSerializer):
    created_by = serializers.SlugRelatedField(
        slug_field="username", read_only=True, allow_null=True
    )
    errors = ErrorItemSerializer(many=True, read_only=True)
    progress = serializers.SerializerMethodField()
    url = serializers.SerializerMethodField()

    class Meta:
        model = ImportJob
        fields = [
            "id", "url", "status", "format", "dry_run", "source", "created_by", "created_at",
            "started_at", "finished_at", "progress", "counts", "errors", "linked", "changes",
        ]  # fmt: skip

    @extend_schema_field(
        {
            "type": "object",
            "properties": {"done": {"type": "integer"}, "total": {"type": "integer"},
                           "percent": {"type": "integer"}},
        }
    )  # fmt: skip
    def get_progress(self, job: ImportJob) -> dict[str, int]:
        done, total = import_progress(job)
        percent = round(100 * done / total) if total else (100 if job.finished else 0)
        return {"done": done, "total": total, "percent": percent}

    @extend_schema_field(OpenApiTypes.URI)
    def get_url(self, job: ImportJob) -> str:
        url = reverse("api:import-detail", args=[job.id])
        request = self.context.get("request")
        return request.build_absolute_uri(url) if request is not None else url


TRUE_VALUES = ("1", "true", "yes", "on")
FALSE_VALUES = ("", "0", "false", "no", "off")

IMPORT_PARAMETERS = [
    OpenApiParameter("dry_run", OpenApiTypes.BOOL, description="report, write nothing"),
    OpenApiParameter(
        "mode",
        OpenApiTypes.STR,
        enum=["", "merge", "replace"],
        description="merge (default): a placement keeps the stored value of every field it "
        "leaves out; replace: each placement given is the whole row, omitted fields cleared",
    ),
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
                mode=request.query_params.get("mode") or "merge",
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
