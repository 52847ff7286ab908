"""Review API shapes: what the evaluation API shows of its reviews and comments."""

from __future__ import annotations

from rest_framework import serializers

from evaluations.review.models import Comment, Review


class ReviewSerializer(serializers.ModelSerializer):
    reviewer = serializers.CharField(source="reviewer.get_username", default=None)
    step_comments = serializers.DictField(child=serializers.CharField())

    class Meta:
        model = Review
        fields = [
            "reviewer", "verdict", "comment", "step_comments", "revision", "created_at",
            "voided_at", "void_reason",
        ]  # fmt: skip


class CommentSerializer(serializers.ModelSerializer):
    author = serializers.CharField(source="author.get_username", default=None)
    resolved_by = serializers.CharField(source="resolved_by.get_username", default=None)

    class Meta:
        model = Comment
        fields = [
            "id",
            "anchor",
            "body",
            "author",
            "revision",
            "created_at",
            "resolved_at",
            "resolved_by",
        ]
