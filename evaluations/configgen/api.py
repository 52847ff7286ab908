"""Configuration API: `GET /api/v1/evaluations/{id}/config/`, the files the evaluation's
decision gives (docs/configgen.md), each checked against its schema before it is served."""

from __future__ import annotations

from django.http import HttpResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import serializers
from rest_framework.response import Response
from rest_framework.views import APIView

from catalog.api.serializers import ErrorSerializer
from evaluations.configgen.selectors import (
    config_archive_name,
    evaluation_config,
    evaluation_config_archive,
)
from evaluations.errors import EvaluationError
from evaluations.selectors import evaluation_get_for_user

KINDS = [
    "install-script",
    "node-pool",
    "device-plugin-config",
    "mig-parted-config",
    "gpu-operator-values",
    "nvidia-device-plugin-values",
    "hami-values",
    "kueue",
    "kueue-values",
    "volcano",
    "volcano-values",
    "kai-scheduler",
    "dra",
    "amd-gpu-operator",
    "amd-gpu-operator-values",
    "workload-example",
]


class ConfigFileSerializer(serializers.Serializer):
    path = serializers.CharField(help_text="where the file goes, e.g. kueue/cluster-queues.yaml")
    kind = serializers.ChoiceField(choices=KINDS, help_text="what the file configures")
    content = serializers.CharField(help_text="the YAML, with comments on where values come from")


class ConfigSerializer(serializers.Serializer):
    evaluation = serializers.IntegerField()
    files = ConfigFileSerializer(many=True)


class ConfigView(APIView):
    """Deployable configuration generated from an evaluation's decision: node labels and taints
    per pool, NVIDIA device plugin and GPU Operator settings, mig-parted MIG layouts, HAMi
    values, Kueue ResourceFlavors, ClusterQueues and LocalQueues, Volcano and KAI Scheduler
    Queues, DRA ResourceClaimTemplates (and DeviceClasses a driver does not install), AMD Device
    Config Manager partition profiles and GPU Operator DeviceConfigs. Every
    value's comment names the decision, row and capacity figure it came from."""

    def handle_exception(self, exc):
        from ecomap.api import error_items  # see evaluations.simulations.api: import order

        if isinstance(exc, EvaluationError):
            errors = error_items(exc.errors) or [{"path": "$", "message": exc.message}]
            return Response({"detail": exc.message, "errors": errors}, status=exc.status)
        return super().handle_exception(exc)

    @extend_schema(
        operation_id="v1_evaluations_config_retrieve",
        responses={
            200: ConfigSerializer,
            401: OpenApiResponse(ErrorSerializer, description="not signed in"),
            404: OpenApiResponse(
                ErrorSerializer, description="no such evaluation, or one of a team you are not in"
            ),
            409: OpenApiResponse(
                ErrorSerializer,
                description="no decision yet, or a decision that cannot become configuration "
                "(a pool or tenant name that is not a Kubernetes name, decided rows no longer "
                "in the catalog, a step 1 that is not valid), or files a cluster would not "
                "admit or run (each finding in `errors`, path `findings`): the message says which",
            ),
        },
    )
    def get(self, request, pk=None):
        """The generated files (any member of the team)."""
        evaluation = evaluation_get_for_user(user=request.user, pk=pk)
        files = evaluation_config(evaluation)
        return Response({"evaluation": evaluation.pk, "files": [f.to_dict() for f in files]})


class ConfigArchiveView(ConfigView):
    """The same files as one gzip tar under `evaluation-<id>-config/`, for `curl -O` and the
    Configuration page's download; the same decision always gives the same bytes."""

    @extend_schema(
        operation_id="v1_evaluations_config_tar_gz_retrieve",
        responses={
            (200, "application/gzip"): OpenApiResponse(
                OpenApiTypes.BINARY,
                description="a .tar.gz of the files of GET …/config/ under one directory "
                "`evaluation-<id>-config/` (regular files, mode 0644, dated at the decision's "
                "approval or else its last update); errors are JSON",
            ),
            401: OpenApiResponse(
                ErrorSerializer, description="not signed in (session or `Authorization: Token`)"
            ),
            404: OpenApiResponse(
                ErrorSerializer, description="no such evaluation, or one of a team you are not in"
            ),
            409: OpenApiResponse(
                ErrorSerializer,
                description="no decision yet, or a decision that cannot become configuration: "
                "the message says which (as GET …/config/)",
            ),
        },
    )
    def get(self, request, pk=None):
        """The generated files as a .tar.gz attachment (any member of the team)."""
        evaluation = evaluation_get_for_user(user=request.user, pk=pk)
        body = evaluation_config_archive(evaluation)
        response = HttpResponse(body, content_type="application/gzip")
        name = config_archive_name(evaluation)
        response["Content-Disposition"] = f'attachment; filename="{name}.tar.gz"'
        return response
