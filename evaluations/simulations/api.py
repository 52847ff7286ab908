"""Capacity API: `GET /api/v1/evaluations/{id}/capacity/` (the simulation for step 1 and the
catalog as they are now, with its state) and `POST` the same URL (run it)."""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import serializers, status
from rest_framework.response import Response
from rest_framework.views import APIView

from catalog.api.serializers import ErrorSerializer
from catalog.engine.text import Text
from catalog.engine.text import render as render_text
from evaluations.errors import EvaluationError
from evaluations.selectors import evaluation_get_for_user
from evaluations.simulations.selectors import capacity_state
from evaluations.simulations.services import capacity_request

STATUSES = ["missing", "none", "pending", "running", "succeeded", "failed"]


def _curve(help_text: str) -> serializers.ListField:
    return serializers.ListField(
        child=serializers.FloatField(), min_length=131, max_length=131, help_text=help_text
    )


class TenantOutcomeSerializer(serializers.Serializer):
    quota = serializers.IntegerField(help_text="GPUs: the tenant's quota")
    tasks = serializers.IntegerField(help_text="the tenant's tasks that arrived by 100 %")
    placed_gpus = serializers.FloatField(help_text="GPUs its placed tasks asked for")
    unplaced = serializers.IntegerField(help_text="its tasks that could not be placed")


class MigGroupSerializer(serializers.Serializer):
    nodes = serializers.IntegerField()
    layout = serializers.ListField(
        child=serializers.CharField(), help_text="the MIG profiles of each GPU of these nodes"
    )


class PoolOutcomeSerializer(serializers.Serializer):
    name = serializers.CharField()
    label = serializers.CharField()
    workloads = serializers.ListField(child=serializers.CharField())
    units = serializers.ListField(child=serializers.CharField(), help_text="the pool's units")
    unit = serializers.CharField(help_text="the unit the replay used")
    replicas = serializers.IntegerField(
        allow_null=True, help_text="time-slicing or MPS replicas, or AMD partitions, per GPU"
    )
    node_group = serializers.CharField(
        allow_null=True, required=False, help_text="step 1's node group the pool lives on"
    )
    gpu_model = serializers.CharField(
        allow_null=True, required=False, help_text="its group's GPU model (null: step 1's)"
    )
    tenant_sharing = serializers.CharField()
    nodes = serializers.IntegerField()
    gpus = serializers.IntegerField()
    mig_geometry = MigGroupSerializer(many=True, allow_null=True)
    quotas = serializers.DictField(child=serializers.IntegerField(), help_text="tenant -> GPUs")
    per_tenant_nodes = serializers.BooleanField(help_text="each tenant has nodes of its own")
    carved = serializers.BooleanField(
        required=False, help_text="nodes too coarse: each tenant has GPUs of its own instead"
    )
    demand_fit = serializers.DictField(
        required=False,
        help_text="the tenants' stated demand landed here, replayed as stated: asked, placed, "
        "per tenant (replicas)",
    )
    notes = serializers.ListField(child=serializers.CharField())
    alloc_curve = _curve("work placed, % of the pool's GPUs, at 0 … 130 % arrived")
    held_curve = _curve("GPUs held by tasks, % of the pool's GPUs")
    frag_curve = _curve("GPUs fragmented (the FGD paper's measure), % of the pool's GPUs")
    alloc_at_100 = serializers.FloatField()
    held_at_100 = serializers.FloatField()
    frag_at_100 = serializers.FloatField()
    tasks = serializers.IntegerField()
    unplaced = serializers.IntegerField()
    per_tenant = serializers.DictField(child=TenantOutcomeSerializer())
    scaled = serializers.BooleanField(help_text="replayed on a copy scaled down")


class ReferenceOutcomeSerializer(serializers.Serializer):
    alloc_at_100 = serializers.FloatField()
    frag_at_100 = serializers.FloatField()
    unplaced = serializers.IntegerField()


class StackOutcomeSerializer(serializers.Serializer):
    rank = serializers.IntegerField()
    shape = serializers.CharField()
    rows = serializers.ListField(child=serializers.CharField())
    policy = serializers.CharField(help_text="the simulator policy replayed")
    policy_note = serializers.CharField(help_text="why that policy")
    gpus = serializers.IntegerField()
    alloc_curve = _curve("work placed, % of the stack's GPUs, at 0 … 130 % arrived")
    held_curve = _curve("GPUs held by tasks, % of the stack's GPUs")
    frag_curve = _curve("GPUs fragmented, % of the stack's GPUs")
    alloc_at_100 = serializers.FloatField()
    held_at_100 = serializers.FloatField()
    frag_at_100 = serializers.FloatField()
    tasks = serializers.IntegerField(help_text="tasks that arrived by 100 %")
    unplaced = serializers.IntegerField(help_text="of those, not placed")
    per_tenant = serializers.DictField(child=TenantOutcomeSerializer())
    pools = PoolOutcomeSerializer(many=True)
    fgd = ReferenceOutcomeSerializer(
        help_text="the same pools under Fragmentation Gradient Descent, the FGD paper's policy"
    )


class ClusterSerializer(serializers.Serializer):
    gpu_model = serializers.CharField(allow_null=True)
    nodes = serializers.IntegerField()
    gpus_per_node = serializers.IntegerField()
    gpus = serializers.IntegerField()
    tenants = serializers.ListField(child=serializers.CharField())


class MixLineSerializer(serializers.Serializer):
    tenant = serializers.IntegerField(allow_null=True)
    workload = serializers.CharField()
    tasks = serializers.IntegerField()
    gpus = serializers.IntegerField()
    gpu_milli = serializers.IntegerField()
    memory_gb = serializers.FloatField(allow_null=True)
    gpu_types = serializers.ListField(child=serializers.CharField())


class UnitOutcomeSerializer(serializers.Serializer):
    alloc_at_100 = serializers.FloatField()
    held_at_100 = serializers.FloatField()
    frag_at_100 = serializers.FloatField()
    tasks = serializers.IntegerField()
    unplaced = serializers.IntegerField()


class CapacityResultSerializer(serializers.Serializer):
    version = serializers.IntegerField()
    cluster = ClusterSerializer()
    mix_source = serializers.ChoiceField(
        choices=["profile", "demand", "default"],
        help_text="step 1's mix, the named tenants' demand, or the documented default",
    )
    mix = MixLineSerializer(many=True)
    inflation = serializers.FloatField(help_text="the work replayed, as a multiple of the GPUs")
    seed = serializers.IntegerField()
    stacks = StackOutcomeSerializer(many=True)
    units = serializers.DictField(
        child=UnitOutcomeSerializer(),
        help_text="per data-plane unit, the mix replayed on all nodes as one pool (best-fit): "
        "the comparison's fragmentation figure",
    )
    notes = serializers.ListField(child=serializers.CharField())
    seconds = serializers.FloatField()


class CapacitySerializer(serializers.Serializer):
    status = serializers.ChoiceField(
        choices=STATUSES,
        help_text="missing: step 1 cannot be sized (see reason); none: not run for step 1 and "
        "the catalog as they are now (POST to run it); else the run's state",
    )
    reason = serializers.CharField(
        allow_blank=True, help_text="why step 1 cannot be sized; empty otherwise"
    )
    progress = serializers.IntegerField(min_value=0, max_value=100)
    error = serializers.CharField(allow_blank=True, help_text="why the run failed; empty otherwise")
    catalog_revision = serializers.IntegerField(allow_null=True)
    result = CapacityResultSerializer(allow_null=True, help_text="once succeeded")


def _said(value: Any) -> Any:
    """Engine sentences in the request's language, as plain strings."""
    if isinstance(value, Text):
        return render_text(value, gettext)
    if isinstance(value, dict):
        return {key: _said(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_said(item) for item in value]
    return value


ERRORS = {
    401: OpenApiResponse(ErrorSerializer, description="not signed in"),
    404: OpenApiResponse(
        ErrorSerializer, description="no such evaluation, or one of a team you are not in"
    ),
}


class CapacityView(APIView):
    """The capacity simulation of an evaluation: every recommended stack's pools sized from step
    1 (nodes per pool, MIG geometry per node, per-tenant quotas) and the workload mix replayed on
    them (docs/capacity-sizing.md says what the numbers mean and what they do not)."""

    def handle_exception(self, exc):
        # Imported here: ecomap.api mounts this module's URLs, so importing it at the top would
        # run before this module exists when the tests import it first.
        from ecomap.api import error_items

        if isinstance(exc, EvaluationError):
            errors = error_items(exc.errors) or [{"path": "$", "message": exc.message}]
            return Response({"detail": exc.message, "errors": errors}, status=exc.status)
        return super().handle_exception(exc)

    def _state(self, evaluation) -> dict[str, Any]:
        state = capacity_state(evaluation=evaluation)
        run = state["run"]
        return {
            "status": state["status"],
            "reason": _said(state["reason"]) if state["reason"] else "",
            "progress": run.progress if run is not None else 0,
            "error": state["error"],
            "catalog_revision": run.catalog_revision if run is not None else None,
            "result": _said(state["result"]),
        }

    @extend_schema(
        operation_id="v1_evaluations_capacity_retrieve",
        responses={200: CapacitySerializer, **ERRORS},
    )
    def get(self, request, pk=None):
        """The simulation for step 1 and the catalog as they are now, if it was run."""
        evaluation = evaluation_get_for_user(user=request.user, pk=pk)
        return Response(self._state(evaluation))

    @extend_schema(
        operation_id="v1_evaluations_capacity_create",
        request=None,
        responses={
            202: OpenApiResponse(
                CapacitySerializer,
                description="queued or already run; poll GET until succeeded or failed",
            ),
            400: OpenApiResponse(
                ErrorSerializer,
                description="step 1 cannot be sized (no GPU node count, too many tenants, or a "
                "profile that is not valid)",
            ),
            403: OpenApiResponse(ErrorSerializer, description="not a member of the team"),
            **ERRORS,
        },
    )
    def post(self, request, pk=None):
        """Run the simulation (any member of the team). The same input runs once: asking again
        answers with that run, and a failed one runs again."""
        evaluation = evaluation_get_for_user(user=request.user, pk=pk)
        capacity_request(evaluation=evaluation, actor=request.user)
        return Response(self._state(evaluation), status=status.HTTP_202_ACCEPTED)
