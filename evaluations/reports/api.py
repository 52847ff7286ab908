"""Report API: an evaluation's PDF reports — list, request a build, read one, download it."""

from __future__ import annotations

from django.http import FileResponse, Http404
from django.utils import translation
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiResponse, extend_schema, extend_schema_view
from rest_framework import mixins, serializers, status, viewsets
from rest_framework.decorators import action
from rest_framework.renderers import BaseRenderer, JSONRenderer
from rest_framework.response import Response

from catalog.api.serializers import ErrorSerializer
from ecomap.parsers import BoundedJSONParser
from evaluations import selectors
from evaluations.errors import EvaluationError
from evaluations.reports import services as reports
from evaluations.reports.models import Report

ERRORS = {
    401: OpenApiResponse(ErrorSerializer, description="not signed in"),
    403: OpenApiResponse(ErrorSerializer, description="your role in the team does not allow it"),
    404: OpenApiResponse(
        ErrorSerializer, description="no such evaluation or report, or a team you are not in"
    ),
}
READ_ERRORS = {code: ERRORS[code] for code in (401, 404)}


class PDFRenderer(BaseRenderer):
    """Lets `Accept: application/pdf` through content negotiation; errors stay JSON."""

    media_type = "application/pdf"
    format = "pdf"
    charset = None
    render_style = "binary"

    def render(self, data, accepted_media_type=None, renderer_context=None):
        return JSONRenderer().render(data) if not isinstance(data, bytes) else data


class ReportRequestSerializer(serializers.Serializer):
    with_cards = serializers.BooleanField(
        default=False,
        help_text="Add every candidate's full placement card as an appendix.",
    )


class ReportSerializer(serializers.ModelSerializer):
    requested_by = serializers.CharField(source="requested_by.get_username", default=None)
    stale = serializers.SerializerMethodField(
        help_text="The evaluation changed after this report was built."
    )
    download_url = serializers.SerializerMethodField(
        help_text="Where to download the PDF; null until the build succeeded."
    )

    class Meta:
        model = Report
        fields = [
            "id",
            "status",
            "progress",
            "language",
            "with_cards",
            "requested_by",
            "pages",
            "seconds",
            "catalog_revision",
            "evaluation_revision",
            "evaluation_updated_at",
            "stale",
            "download_url",
            "error",
            "created_at",
            "finished_at",
        ]
        read_only_fields = fields

    def get_stale(self, report: Report) -> bool:
        return reports.report_is_stale(report, self.context["evaluation"])

    def get_download_url(self, report: Report) -> str | None:
        if report.status != Report.Status.SUCCEEDED:
            return None
        view = self.context["view"]
        return view.reverse_action(
            "download", kwargs={"evaluation_pk": report.evaluation_id, "pk": report.pk}
        )


@extend_schema_view(
    list=extend_schema(responses={200: ReportSerializer(many=True), **READ_ERRORS}),
    retrieve=extend_schema(responses={200: ReportSerializer, **READ_ERRORS}),
)
class ReportViewSet(mixins.ListModelMixin, mixins.RetrieveModelMixin, viewsets.GenericViewSet):
    """PDF reports of one evaluation, newest first. Another team's evaluation answers 404."""

    serializer_class = ReportSerializer
    filter_backends: list = []
    # JSON only: a form or multipart body that parses to nothing would pass for "no options"
    # (schemathesis sent `None` as multipart and got 202); no body at all still asks a report.
    parser_classes = [BoundedJSONParser]

    def evaluation(self):
        if not hasattr(self, "_evaluation"):
            self._evaluation = selectors.evaluation_get_for_user(
                user=self.request.user, pk=self.kwargs["evaluation_pk"]
            )
        return self._evaluation

    def get_queryset(self):
        if getattr(self, "swagger_fake_view", False):  # schema generation has no evaluation
            return Report.objects.none()
        return self.evaluation().reports.select_related("requested_by")

    def get_serializer_context(self):
        context = super().get_serializer_context()
        if not getattr(self, "swagger_fake_view", False):
            context["evaluation"] = self.evaluation()
        return context

    def handle_exception(self, exc):
        if isinstance(exc, EvaluationError):
            return Response({"detail": exc.message, "errors": exc.errors}, status=exc.status)
        return super().handle_exception(exc)

    @extend_schema(
        request=ReportRequestSerializer,
        responses={
            202: OpenApiResponse(
                ReportSerializer,
                description="queued; poll the report until its status is succeeded or failed",
            ),
            400: OpenApiResponse(ErrorSerializer, description="a field that is not valid"),
            **ERRORS,
        },
    )
    def create(self, request, evaluation_pk=None):
        """Build a report of the evaluation as it is now (editors and reviewers of the team).

        The report is written in the request's language (`Accept-Language`). While a build in
        that language is still queued, asking again returns the queued one. `with_cards` adds
        every candidate's full placement card as an appendix (the body lists them one line each).
        """
        asked = ReportRequestSerializer(data=request.data)
        asked.is_valid(raise_exception=True)
        report = reports.report_request(
            evaluation=self.evaluation(),
            actor=request.user,
            language=translation.get_language(),
            with_cards=asked.validated_data["with_cards"],
        )
        return Response(self.get_serializer(report).data, status=status.HTTP_202_ACCEPTED)

    @extend_schema(
        responses={
            (200, "application/pdf"): OpenApiResponse(OpenApiTypes.BINARY, description="the PDF"),
            **READ_ERRORS,
        }
    )
    @action(detail=True, methods=["get"], renderer_classes=[JSONRenderer, PDFRenderer])
    def download(self, request, evaluation_pk=None, pk=None):
        """The PDF file; 404 until the build succeeded."""
        report = self.get_object()
        if report.status != Report.Status.SUCCEEDED or not report.file:
            raise Http404("This report is not built yet")
        return FileResponse(
            report.file.open("rb"),
            as_attachment=True,
            filename=report.filename,
            content_type="application/pdf",
        )
