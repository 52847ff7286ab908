"""What the API computes for an evaluation, as its schema documents it: the comparison (same-
layer groups, misjudgement warnings, contract checks) and the ranked recommendations."""

from __future__ import annotations

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from catalog.engine.fit import TENANT_SHARING


class MisjudgementSerializer(serializers.Serializer):
    kind = serializers.CharField()
    rows = serializers.ListField(child=serializers.CharField())
    message = serializers.CharField()
    links = serializers.ListField(child=serializers.DictField())


class ComparisonConflictSerializer(serializers.Serializer):
    a = serializers.CharField()
    b = serializers.CharField()
    tokens = serializers.ListField(child=serializers.CharField())
    pools = serializers.ListField(child=serializers.CharField())
    message = serializers.CharField()


class ComparisonGroupSerializer(serializers.Serializer):
    layer = serializers.CharField()
    functions = serializers.ListField(child=serializers.CharField())
    units = serializers.ListField(child=serializers.CharField())
    rows = serializers.ListField(child=serializers.CharField())


class ComparisonPairSerializer(serializers.Serializer):
    projects = serializers.ListField(child=serializers.CharField())
    verdict = serializers.ChoiceField(
        choices=["contains", "composes", "incomparable", "complements", "independent"]
    )
    summary = serializers.CharField()
    links = serializers.ListField(child=serializers.DictField())


class ComparisonSerializer(serializers.Serializer):
    conflicts = ComparisonConflictSerializer(many=True)
    groups = ComparisonGroupSerializer(many=True)
    pairs = ComparisonPairSerializer(many=True)
    misjudgements = MisjudgementSerializer(many=True)


@extend_schema_field(OpenApiTypes.OBJECT)
class RecommendationField(serializers.JSONField):
    pass


class IsolationSerializer(serializers.Serializer):
    memory = serializers.ChoiceField(choices=["hard", "soft", "none"])
    compute = serializers.ChoiceField(choices=["hard", "soft", "none"])
    fault = serializers.ChoiceField(choices=["hard", "soft", "none"])


class PoolDetailSerializer(serializers.Serializer):
    """What one pool of a recommended stack is (DESIGN.md, recommendation contract)."""

    label = serializers.CharField(help_text="the pool's name in words")
    units = serializers.ListField(
        child=serializers.CharField(), help_text="the resource units the pool gives its work"
    )
    isolation = IsolationSerializer(help_text="the weakest of its units, per aspect")
    tenant_sharing = serializers.ChoiceField(
        choices=list(TENANT_SHARING),
        help_text="none: each GPU serves one pod; within_tenant: one such pool per tenant; "
        "across_tenants: pods of several tenants share its GPUs",
    )
    workloads = serializers.ListField(
        child=serializers.CharField(), help_text="the profile's workload types it serves"
    )
    acceptance_checks = serializers.ListField(
        child=serializers.CharField(), help_text="the checks that test this pool"
    )
    node_group = serializers.CharField(
        allow_null=True, help_text="the node group the pool lives on (profile v2)"
    )
    gpu_model = serializers.CharField(
        allow_null=True, help_text="that group's GPU model as the GPU facts name it, if known"
    )
    tenants = serializers.ListField(
        child=serializers.CharField(),
        help_text="the named tenants whose work the pool runs ([] when the profile names none)",
    )
    demand = serializers.ListField(
        child=serializers.DictField(),
        help_text="the tenants' demand that lands in this pool: {tenant, workload, gpus | "
        "replicas [+ gpus_per_replica | mig_profile], when}",
    )


class LeftOutSerializer(serializers.Serializer):
    row = serializers.CharField(help_text="project/key of a row kept out of the search")
    reason = serializers.CharField()


class RecommendationSerializer(serializers.Serializer):
    rank = serializers.IntegerField()
    shape = serializers.ChoiceField(choices=["A", "B", "C"])
    score = serializers.FloatField()
    pools = serializers.DictField(child=serializers.ListField(child=serializers.CharField()))
    cluster_wide = serializers.ListField(child=serializers.CharField())
    rows = serializers.ListField(child=serializers.CharField())
    fits = serializers.ListField(child=serializers.CharField())
    missing = serializers.ListField(child=serializers.CharField())
    acceptance_checks = serializers.ListField(child=serializers.CharField())
    explanation = serializers.CharField()
    trade_off = serializers.CharField(help_text="what the stack buys and costs, in one line")
    pool_details = serializers.DictField(
        child=PoolDetailSerializer(), help_text="pool name → what the pool is"
    )
    report = RecommendationField()


class RankingSerializer(serializers.Serializer):
    """Ranked stacks and what the search left out (DESIGN.md, profile v2)."""

    stacks = RecommendationSerializer(many=True)
    left_out = LeftOutSerializer(many=True, help_text="rows kept out of the search, and why")
    unknown_models = serializers.ListField(
        child=serializers.CharField(),
        help_text="node groups' GPU models not in the GPU facts: vendor-specific rows withheld",
    )
    notes = serializers.ListField(
        child=serializers.CharField(), help_text="what the page says above the list"
    )
    complete = serializers.BooleanField(help_text="false when the search budget stopped it")
    examined = serializers.IntegerField(help_text="stacks drafted")
