"""API representations. Output only: writes are validated by the bundle engine, not here."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from catalog.engine.rows import GPU_VENDORS
from catalog.models import COST_ASPECTS, Interface, PlacementRow, Project
from catalog.selectors import contracts_of


class VocabularyTermSerializer(serializers.Serializer):
    key = serializers.CharField()
    name_en = serializers.CharField()
    name_zh = serializers.CharField()
    description_en = serializers.CharField()
    description_zh = serializers.CharField()


class FunctionTermSerializer(VocabularyTermSerializer):
    layer_key = serializers.CharField(help_text="the layer whose question the function answers")


class VocabularySerializer(serializers.Serializer):
    layers = VocabularyTermSerializer(many=True)
    resource_units = VocabularyTermSerializer(many=True)
    enforcement_points = VocabularyTermSerializer(many=True)
    functions = FunctionTermSerializer(many=True)


class KubernetesFeatureSerializer(serializers.Serializer):
    feature = serializers.CharField(help_text="the feature gate, e.g. DRAExtendedResource")
    interface = serializers.CharField(
        help_text="what a row requires: api:kubernetes/feature/<gate>"
    )
    title = serializers.CharField()
    kep = serializers.IntegerField(allow_null=True)
    stages = serializers.DictField(
        child=serializers.CharField(), help_text="stage per verified minor: alpha, beta or GA"
    )
    default_on_since = serializers.CharField(
        allow_null=True, help_text="the first minor where the feature is on by default"
    )
    note = serializers.CharField()
    source = serializers.CharField()
    stage = serializers.CharField(
        required=False,
        allow_null=True,
        help_text="with ?version=: alpha, beta, GA, absent, or null when not verified",
    )
    available = serializers.BooleanField(
        required=False, help_text="with ?version=: on by default at that version"
    )


class KubernetesFeaturesSerializer(serializers.Serializer):
    version = serializers.CharField(allow_null=True)
    features = KubernetesFeatureSerializer(many=True)


class InterfaceSerializer(serializers.ModelSerializer):
    class Meta:
        model = Interface
        fields = ["identifier", "kind", "name", "description"]


class CostSerializer(serializers.Serializer):
    level = serializers.ChoiceField(choices=["low", "medium", "high"])
    note = serializers.CharField()


class EvidenceSerializer(serializers.Serializer):
    url = serializers.CharField()  # an http(s) URL as imported
    claim = serializers.CharField()


class PlacementSerializer(serializers.ModelSerializer):
    """A placement row in the bundle shape, plus its id and project."""

    project = serializers.SlugRelatedField(slug_field="slug", read_only=True)
    layer = serializers.SlugRelatedField(slug_field="key", read_only=True)
    resource_units = serializers.SlugRelatedField(slug_field="key", many=True, read_only=True)
    enforcement_points = serializers.SlugRelatedField(slug_field="key", many=True, read_only=True)
    functions = serializers.ListField(child=serializers.CharField(), read_only=True)
    functions_inferred = serializers.BooleanField(
        read_only=True, help_text="the bundle listed no functions: inferred, not sourced"
    )
    vendors = serializers.ListField(
        child=serializers.ChoiceField(choices=GPU_VENDORS),
        read_only=True,
        help_text="The GPU vendors the row serves; empty: vendor-neutral (any vendor's GPUs).",
    )
    isolation = serializers.SerializerMethodField()
    costs = serializers.SerializerMethodField()
    signals = serializers.SerializerMethodField()
    provides = serializers.SerializerMethodField()
    requires = serializers.SerializerMethodField()
    accepts = serializers.SerializerMethodField()
    exclusive = serializers.SerializerMethodField()
    evidence = EvidenceSerializer(many=True, read_only=True)
    reviewed = serializers.DateField(source="reviewed_on", read_only=True, allow_null=True)
    failure_modes = serializers.ListField(child=serializers.CharField(), read_only=True)
    unverified = serializers.ListField(child=serializers.CharField(), read_only=True)
    detect = serializers.DictField(
        read_only=True, help_text="How the component is recognised in a cluster snapshot."
    )
    config = serializers.DictField(
        read_only=True,
        help_text="How generated configuration installs the component: its Helm chart.",
    )
    contract_versions = serializers.DictField(
        read_only=True, help_text="Per interface: the project version it holds since / until."
    )

    class Meta:
        model = PlacementRow
        fields = [
            "id", "project", "key", "component", "layer", "resource_units", "enforcement_points",
            "functions", "functions_inferred", "vendors", "isolation", "promise", "non_promise",
            "costs", "signals", "provides", "requires", "accepts", "exclusive", "failure_modes",
            "evidence", "project_version", "reviewed", "verified_at", "unverified", "detect",
            "config", "versions", "contract_versions", "updated_at",
        ]  # fmt: skip

    @extend_schema_field(
        {
            "type": "object",
            "properties": {k: {"type": "string", "enum": ["hard", "soft", "none"]}
                           for k in ("memory", "compute", "fault")},
        }
    )  # fmt: skip
    def get_isolation(self, row: PlacementRow) -> dict[str, str]:
        return row.isolation()

    @extend_schema_field(serializers.DictField(child=CostSerializer()))
    def get_costs(self, row: PlacementRow) -> dict[str, dict[str, str]]:
        return {
            aspect: {
                "level": getattr(row, f"cost_{aspect}"),
                "note": getattr(row, f"cost_{aspect}_note"),
            }
            for aspect in COST_ASPECTS
            if getattr(row, f"cost_{aspect}")
        }

    def _contracts(self, row: PlacementRow) -> dict[str, list[str]]:
        cached = getattr(row, "_contracts_cache", None)
        if cached is None:
            cached = row._contracts_cache = contracts_of(row)
        return cached

    @extend_schema_field(serializers.ListField(child=serializers.CharField()))
    def get_signals(self, row: PlacementRow) -> list[str]:
        return self._contracts(row)["signals"]

    @extend_schema_field(serializers.ListField(child=serializers.CharField()))
    def get_provides(self, row: PlacementRow) -> list[str]:
        return self._contracts(row)["provides"]

    @extend_schema_field(serializers.ListField(child=serializers.CharField()))
    def get_requires(self, row: PlacementRow) -> list[str]:
        return self._contracts(row)["requires"]

    @extend_schema_field(serializers.ListField(child=serializers.CharField()))
    def get_accepts(self, row: PlacementRow) -> list[str]:
        return self._contracts(row)["accepts"]

    @extend_schema_field(serializers.ListField(child=serializers.CharField()))
    def get_exclusive(self, row: PlacementRow) -> list[str]:
        return self._contracts(row)["exclusive"]


class ProjectSerializer(serializers.ModelSerializer):
    tags = serializers.SlugRelatedField(slug_field="name", many=True, read_only=True)
    # Stored as imported: http(s) URLs, not necessarily RFC 3986 (IRIs, unescaped characters).
    homepage = serializers.CharField(read_only=True)
    repository = serializers.CharField(read_only=True)
    placements = PlacementSerializer(many=True, read_only=True)

    class Meta:
        model = Project
        fields = [
            "slug", "name", "vendor", "homepage", "repository", "license", "description",
            "tags", "placements", "created_at", "updated_at",
        ]  # fmt: skip


class ErrorItemSerializer(serializers.Serializer):
    path = serializers.CharField()
    message = serializers.CharField()
    allowed = serializers.ListField(child=serializers.CharField(), required=False)
    where = serializers.CharField(required=False)


class ErrorSerializer(serializers.Serializer):
    detail = serializers.CharField()
    errors = ErrorItemSerializer(many=True, required=False)
