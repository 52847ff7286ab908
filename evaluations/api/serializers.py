"""Evaluation API shapes. Inputs check only shape and vocabulary; the rules live in services."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from catalog.engine.fit import TENANT_SHARING
from catalog.engine.fleet import (
    DEMANDS_MAX,
    GPUS_MAX,
    INSTALLED_MAX,
    MIG_PROFILE_NAME,
    NAME,
    NODE_GROUPS_MAX,
    NODES_MAX,
    REPLICAS_MAX,
    TENANTS_MAX,
    WHEN,
)
from catalog.engine.profile import (
    CROSS_TENANT_SHARING,
    FAILURE_SEMANTICS,
    GPU_MEMORY_MAX_GB,
    GPU_MODEL_MAX,
    GPUS_PER_NODE_MAX,
    ISOLATION_REQUIREMENTS,
    JITTER_TOLERANCES,
    NODE_COUNT_MAX,
    PRIMARY_OBJECTIVES,
    PRIORITIES,
    TENANCIES,
    TENANT_COUNT_MAX,
    TIME_WINDOWS,
    WORKLOAD_TYPES,
)
from catalog.engine.versions import SLUG, VERSION_TEXT
from catalog.engine.workload_mix import MIX_MAX_ENTRIES
from evaluations.api.mix_serializers import MixEntrySerializer, MixField
from evaluations.audit.serializers import AuditEntrySerializer
from evaluations.decisions.selectors import decision_of
from evaluations.decisions.serializers import DecisionSerializer
from evaluations.models import PLACEMENT_STEPS, Candidate, Evaluation, Step, UnitChoice
from evaluations.review.choices import Verdict
from evaluations.review.serializers import CommentSerializer, ReviewSerializer


def row_ref() -> serializers.RegexField:
    return serializers.RegexField(
        r"^[a-z0-9-]+/[a-z0-9-]+$", max_length=161, help_text="a placement row id `project/key`"
    )


# ---------------------------------------------------------------------------------------------
# Output


class UnitChoiceSerializer(serializers.ModelSerializer):
    unit = serializers.SlugRelatedField(slug_field="key", read_only=True)

    class Meta:
        model = UnitChoice
        fields = ["unit", "note"]


class CandidateSerializer(serializers.ModelSerializer):
    row = serializers.CharField(source="row.ref", read_only=True)
    layer = serializers.CharField(source="row.layer.key", read_only=True)
    enforcement_points = serializers.SlugRelatedField(slug_field="key", many=True, read_only=True)
    promise = serializers.CharField(source="boundary_promise", read_only=True)
    non_promise = serializers.CharField(source="boundary_non_promise", read_only=True)
    promise_edited = serializers.SerializerMethodField()

    class Meta:
        model = Candidate
        fields = [
            "row",
            "layer",
            "enforcement_points",
            "points_confirmed",
            "alternative_group",
            "promise",
            "non_promise",
            "promise_edited",
        ]

    def get_promise_edited(self, candidate: Candidate) -> bool:
        return bool(candidate.promise or candidate.non_promise)


class StepsDoneSerializer(serializers.Serializer):
    profile = serializers.BooleanField()
    units = serializers.BooleanField()
    candidates = serializers.BooleanField()
    boundaries = serializers.BooleanField()


class EvaluationSummarySerializer(serializers.ModelSerializer):
    team = serializers.SlugRelatedField(slug_field="slug", read_only=True)
    created_by = serializers.CharField(source="created_by.get_username", default=None)
    steps_done = serializers.SerializerMethodField()
    your_role = serializers.CharField(source="user_role", read_only=True, default=None)

    class Meta:
        model = Evaluation
        fields = [
            "id",
            "title",
            "team",
            "state",
            "revision",
            "created_by",
            "created_at",
            "updated_at",
            "steps_done",
            "your_role",
        ]

    @extend_schema_field(StepsDoneSerializer)
    def get_steps_done(self, evaluation: Evaluation) -> dict[str, bool]:
        return {step: evaluation.step_done(step) for step in PLACEMENT_STEPS}


class FieldChangeSerializer(serializers.Serializer):
    old = serializers.JSONField(allow_null=True)
    new = serializers.JSONField(allow_null=True)


class CatalogDriftSerializer(serializers.Serializer):
    """What changed in the catalog under an approved decision since approval; {} when nothing."""

    checked_at = serializers.DateTimeField(required=False)
    catalog_revision = serializers.IntegerField(required=False, help_text="catalog revision now")
    since_revision = serializers.IntegerField(
        required=False, allow_null=True, help_text="catalog revision the decision was approved on"
    )
    rows = serializers.DictField(
        child=serializers.DictField(child=FieldChangeSerializer()),
        required=False,
        help_text='{"project/key": {field: {"old", "new"}}}; project fields as "project.<name>"',
    )
    removed_rows = serializers.ListField(child=serializers.CharField(), required=False)
    stack_check = serializers.ChoiceField(
        choices=["worse", "better", "unchanged"],
        required=False,
        help_text="the stack check now against the one at approval; worse → needs re-review",
    )
    new_findings = serializers.ListField(child=serializers.DictField(), required=False)
    gone_findings = serializers.ListField(child=serializers.DictField(), required=False)
    history = serializers.ListField(
        child=serializers.DictField(),
        required=False,
        help_text="the catalog changes behind it: id, at, actor, source, action, ref, fields",
    )


class EvaluationSerializer(EvaluationSummarySerializer):
    """An evaluation with its four steps, decision, reviews and audit log."""

    profile = serializers.JSONField()
    units = UnitChoiceSerializer(many=True, read_only=True)
    candidates = CandidateSerializer(many=True, read_only=True)
    decision = serializers.SerializerMethodField()
    reviews = ReviewSerializer(many=True, read_only=True)
    comments = serializers.SerializerMethodField()
    audit = serializers.SerializerMethodField()
    catalog_drift = serializers.SerializerMethodField()

    class Meta(EvaluationSummarySerializer.Meta):
        fields = [
            *EvaluationSummarySerializer.Meta.fields,
            "profile",
            "units",
            "candidates",
            "decision",
            "reviews",
            "comments",
            "audit",
            "catalog_drift",
        ]

    @extend_schema_field(DecisionSerializer(allow_null=True))
    def get_decision(self, evaluation: Evaluation) -> dict[str, Any] | None:
        decision = decision_of(evaluation)
        return DecisionSerializer(decision).data if decision else None

    @extend_schema_field(CommentSerializer(many=True))
    def get_comments(self, evaluation: Evaluation) -> list[dict[str, Any]]:
        """Review comments anchored to steps, oldest first (read-only here: pages add them)."""
        comments = evaluation.comments.select_related("author", "resolved_by")
        return CommentSerializer(comments, many=True).data

    @extend_schema_field(AuditEntrySerializer(many=True))
    def get_audit(self, evaluation: Evaluation) -> list[dict[str, Any]]:
        entries = evaluation.audit.select_related("actor")[:100]
        return AuditEntrySerializer(entries, many=True).data

    @extend_schema_field(CatalogDriftSerializer)
    def get_catalog_drift(self, evaluation: Evaluation) -> dict[str, Any]:
        return evaluation.catalog_drift or {}


# ---------------------------------------------------------------------------------------------
# Input


class _TextOnly:
    """A string field that refuses a JSON number or boolean instead of turning it into text (DRF
    coerces `823` to "823"; the schema says string, so 823 is invalid input: 400)."""

    def to_internal_value(self, data):
        if not isinstance(data, str):
            self.fail("invalid")
        return super().to_internal_value(data)


class TextField(_TextOnly, serializers.CharField):
    pass


class TextSlugField(_TextOnly, serializers.SlugField):
    pass


class EvaluationCreateSerializer(serializers.Serializer):
    title = TextField(max_length=200)
    team = TextSlugField(max_length=80, help_text="slug of a team you are an editor of")


def _choice(values: tuple[str, ...], **kwargs: Any) -> serializers.ChoiceField:
    return serializers.ChoiceField(choices=list(values), required=False, allow_null=True, **kwargs)


def _count(limit: int, **kwargs: Any) -> serializers.IntegerField:
    return serializers.IntegerField(
        required=False, allow_null=True, min_value=1, max_value=limit, **kwargs
    )


class EditSerializer(serializers.Serializer):
    """An edit of an evaluation's content — the four steps (profile, units, candidates,
    boundaries) and the decision: it says which revision it was made on (issue 28 L8; a save
    without it answers 428, see evaluations.api.views.revision_require)."""

    revision = serializers.IntegerField(
        required=True,
        min_value=0,
        max_value=2**31 - 1,
        help_text="required: the evaluation's `revision` as read from GET "
        "/api/v1/evaluations/{id}/ (or the last save's answer); a newer saved revision makes "
        "the edit a 409 instead of a silent overwrite, and a save without it answers 428",
    )


# Profile v2 (DESIGN.md): the shapes and bounds; references between the lists (a demand's
# workload, a MIG profile of a group's model, unique names) are the engine's rules
# (catalog.engine.fleet), answered as a 400 naming the entry.
KUBERNETES_NAME = NAME.pattern


class NodeGroupSerializer(serializers.Serializer):
    name = serializers.RegexField(
        KUBERNETES_NAME, max_length=63, help_text="a Kubernetes name (RFC 1123 label), unique"
    )
    gpu_model = serializers.CharField(
        required=False,
        allow_null=True,
        max_length=GPU_MODEL_MAX,
        help_text="a model of EcoMap's GPU facts, or any text (kept, not checked)",
    )
    nodes = _count(NODES_MAX)
    gpus_per_node = _count(GPUS_PER_NODE_MAX)


class DemandSerializer(serializers.Serializer):
    workload = serializers.ChoiceField(
        choices=list(WORKLOAD_TYPES), help_text="one of the tenant's workloads"
    )
    gpus = _count(GPUS_MAX, help_text="whole GPUs; or give replicas instead")
    replicas = _count(REPLICAS_MAX, help_text="copies of gpus_per_replica GPUs or of a MIG slice")
    gpus_per_replica = _count(64, help_text="with replicas: whole GPUs per replica (1 if left out)")
    mig_profile = serializers.RegexField(
        MIG_PROFILE_NAME.pattern,
        required=False,
        allow_null=True,
        max_length=20,
        help_text="with replicas: a MIG profile of a node group's GPU model, e.g. 1g.10gb",
    )
    when = serializers.ChoiceField(choices=list(WHEN), required=False, default="always")


class TenantSerializer(serializers.Serializer):
    name = serializers.RegexField(
        KUBERNETES_NAME, max_length=63, help_text="a Kubernetes name (RFC 1123 label), unique"
    )
    workloads = serializers.ListField(
        child=serializers.ChoiceField(choices=list(WORKLOAD_TYPES)),
        min_length=1,
        max_length=len(WORKLOAD_TYPES),
        help_text="the work this tenant runs, among the profile's workload types",
    )
    cross_tenant_sharing = _choice(
        CROSS_TENANT_SHARING, help_text="this tenant's own rule; left out: the profile's"
    )
    isolation = _choice(
        ISOLATION_REQUIREMENTS, help_text="this tenant's own isolation; left out: the profile's"
    )
    demand = serializers.ListField(child=DemandSerializer(), required=False, max_length=DEMANDS_MAX)


class InstalledSerializer(serializers.Serializer):
    project = serializers.RegexField(
        SLUG.pattern, max_length=100, help_text="a catalog project's slug"
    )
    version = serializers.RegexField(
        VERSION_TEXT.pattern,
        required=False,
        allow_null=True,
        max_length=41,
        help_text="the version running now, e.g. 0.10.1",
    )


class ProfileSerializer(EditSerializer):
    """The step-1 profile of DESIGN.md; every field may be left out while it is being filled."""

    workload_types = serializers.ListField(
        child=serializers.ChoiceField(choices=list(WORKLOAD_TYPES)), required=False, max_length=4
    )
    primary_objective = _choice(PRIMARY_OBJECTIVES)
    p99_target_ms = serializers.FloatField(
        required=False, allow_null=True, min_value=0.001, max_value=3_600_000
    )
    jitter_tolerance = _choice(JITTER_TOLERANCES)
    isolation = _choice(ISOLATION_REQUIREMENTS)
    failure_semantics = _choice(FAILURE_SEMANTICS)
    tenancy = _choice(TENANCIES)
    cross_tenant_sharing = _choice(
        CROSS_TENANT_SHARING,
        help_text="whether a GPU may serve several tenants at once; left out or null: derived "
        "from tenancy and isolation",
    )
    workload_isolation = serializers.DictField(
        child=serializers.ChoiceField(choices=list(ISOLATION_REQUIREMENTS)),
        required=False,
        allow_empty=True,
        help_text="isolation per workload type where it differs from `isolation`, e.g. "
        '{"training": "hard"}; keys among the profile\'s workload types',
    )
    priorities = serializers.ListField(
        child=serializers.ChoiceField(choices=list(PRIORITIES)),
        required=False,
        max_length=4,
        help_text="ranked, most important first",
    )
    gpu_model = serializers.CharField(
        required=False, allow_null=True, allow_blank=True, max_length=GPU_MODEL_MAX
    )
    gpu_memory_gb = _count(GPU_MEMORY_MAX_GB, help_text="memory per GPU")
    node_count = _count(NODE_COUNT_MAX, help_text="GPU nodes")
    gpus_per_node = _count(
        GPUS_PER_NODE_MAX, help_text="GPUs per node; capacity sizing assumes 8 when left out"
    )
    tenant_count = _count(
        TENANT_COUNT_MAX, help_text="more than one makes the profile multi-tenant"
    )
    time_windows = serializers.DictField(
        child=serializers.ChoiceField(choices=list(TIME_WINDOWS)),
        required=False,
        allow_empty=True,
        help_text="when each of the profile's workload types runs, e.g. "
        '{"training": "night", "online_inference": "always"}',
    )
    kubernetes_version = serializers.CharField(
        required=False,
        allow_null=True,
        allow_blank=True,
        max_length=40,
        help_text='the cluster\'s Kubernetes version, e.g. "1.34" or "v1.34.2": DRA features off '
        "by default there are gaps",
    )
    component_versions = serializers.DictField(
        child=serializers.CharField(max_length=40),
        required=False,
        allow_null=True,
        allow_empty=True,
        help_text='pinned versions by project slug, e.g. {"kueue": "0.19.3"}: a version outside '
        "what a decided row was verified for is a warning",
    )
    workload_mix = MixField(
        child=MixEntrySerializer(),
        required=False,
        allow_null=True,
        max_length=MIX_MAX_ENTRIES,
        help_text="what each tenant runs, for capacity sizing; left out or empty: the default "
        "per workload type (docs/capacity-sizing.md)",
    )
    node_groups = serializers.ListField(
        child=NodeGroupSerializer(),
        required=False,
        allow_null=True,
        max_length=NODE_GROUPS_MAX,
        help_text="profile v2: nodes of one shape each; with groups, gpu_model, node_count and "
        "gpus_per_node are left out or agree with them",
    )
    tenants = serializers.ListField(
        child=TenantSerializer(),
        required=False,
        allow_null=True,
        max_length=TENANTS_MAX,
        help_text="profile v2: named tenants, the work each runs and its absolute demand; with "
        "tenants, tenant_count is left out or equals their number",
    )
    installed = serializers.ListField(
        child=InstalledSerializer(),
        required=False,
        allow_null=True,
        max_length=INSTALLED_MAX,
        help_text="profile v2: what runs in the cluster now, each project once",
    )


class UnitInputSerializer(serializers.Serializer):
    unit = serializers.SlugField(max_length=40)
    note = serializers.CharField(required=False, allow_blank=True, max_length=2000)


class UnitsSerializer(EditSerializer):
    units = UnitInputSerializer(many=True, max_length=20)


class CandidateInputSerializer(serializers.Serializer):
    row = row_ref()
    enforcement_points = serializers.ListField(
        child=serializers.SlugField(max_length=40),
        required=False,
        allow_null=True,
        max_length=10,
        help_text="leave out to take the catalog's enforcement points",
    )
    points_confirmed = serializers.BooleanField(required=False, default=False)
    alternative_group = serializers.CharField(
        required=False,
        allow_blank=True,
        max_length=40,
        help_text="candidates with the same group are put up as alternatives",
    )


class CandidatesSerializer(EditSerializer):
    candidates = CandidateInputSerializer(many=True, max_length=100)


class BoundaryInputSerializer(serializers.Serializer):
    row = row_ref()
    promise = serializers.CharField(allow_blank=True, max_length=4000)
    non_promise = serializers.CharField(allow_blank=True, max_length=4000)


class BoundariesSerializer(EditSerializer):
    boundaries = BoundaryInputSerializer(many=True, max_length=100)


class DecisionInputSerializer(EditSerializer):
    rows = serializers.ListField(child=row_ref(), min_length=1, max_length=100)
    pools = serializers.DictField(
        child=serializers.ListField(child=row_ref(), max_length=100),
        required=False,
        help_text="node pool name → row ids; rows in no pool are cluster-wide",
    )
    pool_tenant_sharing = serializers.DictField(
        child=serializers.ChoiceField(choices=list(TENANT_SHARING)),
        required=False,
        help_text="node pool name → how tenants share it: within_tenant (one such pool per "
        "tenant), none (whole devices) or across_tenants; a pool not named serves every tenant",
    )
    pool_node_groups = serializers.DictField(
        child=serializers.CharField(max_length=63),
        required=False,
        help_text="node pool name → the step-1 node group it runs on (profile v2); a pool not "
        "named is placed by the configuration",
    )
    rationale = serializers.CharField(required=False, allow_blank=True, max_length=10000)
    risks = serializers.CharField(required=False, allow_blank=True, max_length=20000)
    acceptance_checks = serializers.CharField(required=False, allow_blank=True, max_length=10000)


class ReviewInputSerializer(serializers.Serializer):
    verdict = serializers.ChoiceField(choices=Verdict.choices)
    comment = serializers.CharField(required=False, allow_blank=True, max_length=10000)
    step_comments = serializers.DictField(
        child=serializers.CharField(allow_blank=True, max_length=10000),
        required=False,
        help_text=f"comments keyed by step: {', '.join(Step.values)}",
    )
    override_comments = serializers.ListField(
        child=serializers.IntegerField(min_value=1),
        required=False,
        max_length=500,
        help_text="ids of open comments the approver approves despite (recorded); an approval "
        "with an open comment neither resolved nor listed here is refused",
    )


# ---------------------------------------------------------------------------------------------
# Computed views


class DecisionOutputSerializer(serializers.Serializer):
    decision = DecisionSerializer()
    report = serializers.JSONField(help_text="the stack check of the decided stack")
