"""Decision API shape: what the evaluation API shows of a decision."""

from __future__ import annotations

from rest_framework import serializers

from evaluations.decisions.models import Decision


class DecisionSerializer(serializers.ModelSerializer):
    decided_by = serializers.CharField(source="decided_by.get_username", default=None)
    rows = serializers.ListField(child=serializers.CharField())
    pools = serializers.DictField(child=serializers.ListField(child=serializers.CharField()))
    pool_tenant_sharing = serializers.DictField(child=serializers.CharField())
    pool_node_groups = serializers.DictField(child=serializers.CharField())

    class Meta:
        model = Decision
        fields = [
            "rows",
            "pools",
            "pool_tenant_sharing",
            "pool_node_groups",
            "rationale",
            "risks",
            "acceptance_checks",
            "decided_by",
            "decided_at",
        ]
