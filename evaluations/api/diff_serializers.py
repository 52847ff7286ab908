"""The diff endpoint's response, described for the OpenAPI schema (evaluations.review.diffs)."""

from __future__ import annotations

from rest_framework import serializers


class DiffChangeSerializer(serializers.Serializer):
    section = serializers.ChoiceField(
        choices=["profile", "units", "candidates", "boundaries", "decision", "findings"]
    )
    kind = serializers.ChoiceField(
        choices=["changed", "added", "removed", "appeared", "resolved"],
        help_text="changed: a field; added/removed: a unit, candidate or node pool; "
        "appeared/resolved: a stack-check finding",
    )
    field = serializers.CharField(help_text='the field changed ("" for a whole item)')
    item = serializers.CharField(
        help_text="the unit key, candidate row (project/key), pool name or finding key the "
        'change is about ("" for the evaluation\'s own fields)'
    )
    old = serializers.JSONField(allow_null=True, help_text="the value before (null: none)")
    new = serializers.JSONField(allow_null=True, help_text="the value after (null: none)")
    added = serializers.ListField(child=serializers.JSONField(), help_text="list entries added")
    removed = serializers.ListField(child=serializers.JSONField(), help_text="list entries removed")


class DiffTouchSerializer(serializers.Serializer):
    actor = serializers.CharField(help_text='username ("" when the account is gone)')
    action = serializers.CharField(help_text="the audit action, e.g. step_saved, decided")
    step = serializers.CharField(help_text='the step saved ("" for none)')
    revision = serializers.IntegerField()
    at = serializers.DateTimeField()


class DiffSectionSerializer(serializers.Serializer):
    section = serializers.CharField()
    changes = DiffChangeSerializer(many=True)
    touched_by = DiffTouchSerializer(many=True)


class DiffRevisionSerializer(serializers.Serializer):
    revision = serializers.IntegerField()
    actor = serializers.CharField(allow_null=True)
    created_at = serializers.DateTimeField()


class EvaluationDiffSerializer(serializers.Serializer):
    evaluation = serializers.IntegerField()
    current_revision = serializers.IntegerField()
    last_approved_revision = serializers.IntegerField(allow_null=True)
    from_revision = DiffRevisionSerializer()
    to_revision = DiffRevisionSerializer()
    change_count = serializers.IntegerField()
    sections = DiffSectionSerializer(
        many=True,
        help_text="only the sections that changed or were touched between the two revisions",
    )
    other_activity = DiffTouchSerializer(
        many=True,
        help_text="audit entries between the revisions that changed no section "
        "(submitted, approved, ...)",
    )
