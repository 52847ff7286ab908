"""Cluster snapshot API: `POST /api/v1/clusters/` (an upload), the list, a snapshot with its
check (optionally against an evaluation's decision) and the snapshot format's JSON Schema."""

from __future__ import annotations

from typing import Any

from django.urls import reverse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import mixins, serializers, status, viewsets
from rest_framework.exceptions import APIException
from rest_framework.parsers import BaseParser
from rest_framework.response import Response
from rest_framework.views import APIView

from catalog.api.serializers import ErrorSerializer
from catalog.engine.cluster import MAX_BODY_BYTES, SnapshotError, snapshot_schema
from evaluations.clusters import selectors, services
from evaluations.clusters.models import ClusterSnapshot
from evaluations.errors import EvaluationError
from evaluations.selectors import evaluation_get_for_user


class SnapshotTooLarge(APIException):
    status_code = status.HTTP_413_REQUEST_ENTITY_TOO_LARGE
    default_detail = f"The snapshot is larger than the limit of {MAX_BODY_BYTES} bytes."
    default_code = "payload_too_large"


class SnapshotBodyParser(BaseParser):
    """The raw JSON bytes, capped before anything reads them: the declared length first, then
    the stream itself (a chunked body declares none). The engine parses them with its limits."""

    media_type = "application/json"

    def parse(self, stream, media_type=None, parser_context=None) -> bytes:
        request = (parser_context or {}).get("request")
        declared = request.META.get("CONTENT_LENGTH") if request is not None else None
        if declared and declared.isdigit() and int(declared) > MAX_BODY_BYTES:
            raise SnapshotTooLarge(
                f"The snapshot is {declared} bytes; the limit is {MAX_BODY_BYTES} bytes."
            )
        data = stream.read(MAX_BODY_BYTES + 1) if stream is not None else b""
        if len(data) > MAX_BODY_BYTES:
            raise SnapshotTooLarge()
        return data


def _errors(error: SnapshotError) -> list[dict[str, str]]:
    return [{"path": path, "message": message} for path, message in error.errors]


class ClusterSnapshotSerializer(serializers.ModelSerializer):
    team = serializers.SlugRelatedField(slug_field="slug", read_only=True)
    uploaded_by = serializers.SlugRelatedField(
        slug_field="username", read_only=True, allow_null=True
    )
    url = serializers.SerializerMethodField()
    page = serializers.SerializerMethodField()
    snapshot_count = serializers.IntegerField(read_only=True, required=False)

    class Meta:
        model = ClusterSnapshot
        fields = [
            "id", "url", "page", "team", "cluster", "collected_at", "kubernetes_version",
            "sha256", "size_bytes", "uploaded_by", "created_at", "summary", "snapshot_count",
        ]  # fmt: skip

    @staticmethod
    def _absolute(request, url: str) -> str:
        return request.build_absolute_uri(url) if request is not None else url

    def get_url(self, snapshot: ClusterSnapshot) -> str:
        url = reverse("evaluations-api:cluster-detail", args=[snapshot.pk])
        return self._absolute(self.context.get("request"), url)

    def get_page(self, snapshot: ClusterSnapshot) -> str:
        url = reverse("clusters:detail", args=[snapshot.pk])
        return self._absolute(self.context.get("request"), url)


class HistoryItemSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    collected_at = serializers.DateTimeField()
    created_at = serializers.DateTimeField()
    sha256 = serializers.CharField()


class ConfigDriftItemSerializer(serializers.Serializer):
    path = serializers.CharField(help_text="the generated file, e.g. kueue/cluster-queues.yaml")
    message = serializers.CharField(help_text="the difference, in English")
    severity = serializers.ChoiceField(choices=["error", "warning", "info"])


class ClusterSnapshotDetailSerializer(ClusterSnapshotSerializer):
    report = serializers.JSONField(
        read_only=True, help_text="the check now, against the current catalog"
    )
    evaluation = serializers.IntegerField(
        read_only=True, allow_null=True, help_text="the evaluation compared with, if asked"
    )
    history = HistoryItemSerializer(many=True, read_only=True)
    config_drift = ConfigDriftItemSerializer(
        many=True,
        read_only=True,
        allow_null=True,
        help_text=(
            "with ?evaluation=N and a decision: the snapshot's differences from the "
            "configuration generated from it, per generated file (docs/configgen.md, Drift); "
            "null without a decision or when no configuration can be generated"
        ),
    )
    config_drift_unavailable = serializers.CharField(
        read_only=True,
        help_text="why no configuration could be generated from the decision; empty otherwise",
    )

    class Meta(ClusterSnapshotSerializer.Meta):
        fields = [
            *ClusterSnapshotSerializer.Meta.fields,
            "report",
            "evaluation",
            "history",
            "config_drift",
            "config_drift_unavailable",
        ]


ERRORS = {
    400: OpenApiResponse(ErrorSerializer, description="a refused snapshot, every error's path"),
    401: OpenApiResponse(ErrorSerializer, description="not signed in"),
    403: OpenApiResponse(ErrorSerializer, description="your role in the team does not allow it"),
    404: OpenApiResponse(ErrorSerializer, description="no such team or snapshot, or not yours"),
}
TEAM = OpenApiParameter(
    "team",
    OpenApiTypes.STR,
    description="the team's short name (may be left out when you are in one team only)",
)
EVALUATION = OpenApiParameter(
    "evaluation",
    OpenApiTypes.INT,
    description="compare with this evaluation's decision (an evaluation of the same team)",
)


class ClusterSnapshotViewSet(
    mixins.ListModelMixin, mixins.RetrieveModelMixin, viewsets.GenericViewSet
):
    """Cluster snapshots of the teams you are in; another team's snapshot answers 404."""

    serializer_class = ClusterSnapshotSerializer
    lookup_value_regex = "[^/]+"
    filter_backends: list[Any] = []
    # The one body this viewset reads is an upload: raw bytes, capped, parsed by the engine.
    parser_classes = [SnapshotBodyParser]

    def get_queryset(self):
        if getattr(self, "swagger_fake_view", False):
            return ClusterSnapshot.objects.none()
        return selectors.clusters_for_user(user=self.request.user)

    def handle_exception(self, exc):
        if isinstance(exc, EvaluationError):
            errors = [
                {"path": field, "message": message}
                for field, messages in exc.errors.items()
                for message in messages
            ] or [{"path": "$", "message": exc.message}]
            return Response({"detail": exc.message, "errors": errors}, status=exc.status)
        if isinstance(exc, SnapshotTooLarge):
            message = str(exc.detail)
            return Response(
                {"detail": message, "errors": [{"path": "$", "message": message}]},
                status=exc.status_code,
            )
        if isinstance(exc, SnapshotError):
            return Response(
                {"detail": "The snapshot was refused; nothing was stored.", "errors": _errors(exc)},
                status=status.HTTP_400_BAD_REQUEST,
            )
        return super().handle_exception(exc)

    @extend_schema(
        responses={
            200: ClusterSnapshotSerializer(many=True),
            401: ERRORS[401],
            404: OpenApiResponse(ErrorSerializer, description="no such page"),
        },
        description="The latest snapshot of each cluster of your teams.",
    )
    def list(self, request, *args, **kwargs):
        return super().list(request, *args, **kwargs)

    @extend_schema(
        parameters=[EVALUATION],
        responses={200: ClusterSnapshotDetailSerializer, **ERRORS},
    )
    def retrieve(self, request, *args, **kwargs):
        snapshot = selectors.snapshot_get_for_user(user=request.user, pk=kwargs["pk"])
        evaluation = None
        raw = request.query_params.get("evaluation", "")
        if raw:
            evaluation = evaluation_get_for_user(user=request.user, pk=raw)
            if evaluation.team_id != snapshot.team_id:
                return Response(
                    {
                        "detail": "That evaluation is another team's.",
                        "errors": [{"path": "evaluation", "message": "not this team's"}],
                    },
                    status=status.HTTP_404_NOT_FOUND,
                )
        drift = None
        if evaluation is None:
            report = selectors.snapshot_report(snapshot)
        else:
            report, drift = selectors.snapshot_compare(snapshot, evaluation=evaluation)
        snapshot.report = report.to_dict()
        snapshot.evaluation = evaluation.pk if evaluation else None
        snapshot.config_drift = drift.to_list() if drift is not None else None
        snapshot.config_drift_unavailable = drift.unavailable if drift is not None else ""
        snapshot.history = list(selectors.snapshot_history(snapshot))
        return Response(
            ClusterSnapshotDetailSerializer(snapshot, context={"request": request}).data
        )

    @extend_schema(
        parameters=[TEAM],
        request={"application/json": {"type": "object", "description": "ecomap.cluster/v1"}},
        responses={
            201: ClusterSnapshotSerializer,
            **ERRORS,
            413: OpenApiResponse(ErrorSerializer, description="over the size limit"),
        },
        description=(
            "Store an `ecomap.cluster/v1` snapshot (scripts/collect-cluster writes one) as the "
            "team's newest of that cluster. Editors of the team only. A refused snapshot stores "
            "nothing; the errors name JSON paths."
        ),
    )
    def create(self, request):
        team, role = selectors.upload_team_for_user(
            user=request.user, slug=request.query_params.get("team", "")
        )
        services.check_can_upload(role)  # before reading the body
        snapshot = services.cluster_snapshot_upload(
            team=team, actor=request.user, body=request.data, role=role
        )
        snapshot.snapshot_count = None
        return Response(
            ClusterSnapshotSerializer(snapshot, context={"request": request}).data,
            status=status.HTTP_201_CREATED,
        )


class ClusterSchemaView(APIView):
    """The JSON Schema of the `ecomap.cluster/v1` snapshot format."""

    @extend_schema(
        responses={200: OpenApiTypes.OBJECT, 401: ERRORS[401]},
        description="The JSON Schema (draft 2020-12) of `ecomap.cluster/v1`.",
    )
    def get(self, request):
        return Response(snapshot_schema())
