"""Audit API shape: what the evaluation API shows of its audit log."""

from __future__ import annotations

from rest_framework import serializers

from evaluations.audit.models import AuditEntry


class AuditEntrySerializer(serializers.ModelSerializer):
    actor = serializers.CharField(source="actor.get_username", default=None)
    changes = serializers.JSONField()

    class Meta:
        model = AuditEntry
        fields = [
            "created_at",
            "actor",
            "action",
            "step",
            "changes",
            "state_from",
            "state_to",
            "revision",
        ]
