"""The approval policy's API: a team's policy (read by members, replaced by admins), an
evaluation's approval status, and asking a person for a review."""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.http import Http404
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import serializers, status
from rest_framework.response import Response
from rest_framework.views import APIView

from catalog.api.serializers import ErrorSerializer
from ecomap.api import error_items
from evaluations import selectors
from evaluations.approvals.services import (
    RuleInput,
    approval_policy_set,
    approval_status,
    policy_rules,
    review_request_create,
    status_in_words,
)
from evaluations.errors import EvaluationError
from evaluations.teams.choices import Role
from evaluations.teams.selectors import team_get_for_user

ERRORS = {
    400: OpenApiResponse(ErrorSerializer, description="invalid input or a refused transition"),
    401: OpenApiResponse(ErrorSerializer, description="not signed in"),
    403: OpenApiResponse(ErrorSerializer, description="your role in the team does not allow it"),
    404: OpenApiResponse(ErrorSerializer, description="no such team or evaluation of yours"),
}


class RuleSerializer(serializers.Serializer):
    name = serializers.CharField(max_length=60)
    min_approvals = serializers.IntegerField(min_value=1, max_value=10, default=1)
    role = serializers.ChoiceField(
        choices=[("", "none"), *Role.choices],
        required=False,
        default="",
        help_text="anyone with this team role or a stronger one qualifies",
    )
    reviewers = serializers.ListField(
        child=serializers.CharField(max_length=150),
        required=False,
        default=list,
        max_length=50,
        help_text="usernames of the team's reviewers or admins",
    )


class ApprovalPolicySerializer(serializers.Serializer):
    required_approvals = serializers.IntegerField(min_value=1, max_value=10)
    rules = RuleSerializer(many=True, required=False, default=list, max_length=5)


class RuleStatusSerializer(serializers.Serializer):
    name = serializers.CharField()
    needed = serializers.IntegerField()
    approved_by = serializers.ListField(child=serializers.CharField())
    met = serializers.BooleanField()


class ApprovalStatusSerializer(serializers.Serializer):
    revision = serializers.IntegerField()
    required = serializers.IntegerField()
    approvals = serializers.IntegerField()
    approved_by = serializers.ListField(child=serializers.CharField())
    rules = RuleStatusSerializer(many=True)
    met = serializers.BooleanField()


class ReviewRequestInputSerializer(serializers.Serializer):
    reviewer = serializers.CharField(max_length=150, help_text="the username to ask")


class ReviewRequestSerializer(serializers.Serializer):
    reviewer = serializers.CharField()
    requested_by = serializers.CharField()
    revision = serializers.IntegerField()
    created_at = serializers.DateTimeField()


class _DomainErrors:
    def handle_exception(self, exc):
        if isinstance(exc, EvaluationError):
            errors = error_items(exc.errors) or [{"path": "$", "message": exc.message}]
            return Response({"detail": exc.message, "errors": errors}, status=exc.status)
        return super().handle_exception(exc)


def _policy_data(team) -> dict:
    required, _rules, rows = policy_rules(team)
    return {
        "required_approvals": required,
        "rules": [
            {"name": row.name, "min_approvals": row.min_approvals, "role": row.role,
             "reviewers": sorted(member.get_username() for member in row.members.all())}
            for row in rows
        ],
    }  # fmt: skip


class ApprovalPolicyView(_DomainErrors, APIView):
    """A team's approval policy: how many approvals of the same revision, and rules such as
    "one from security" (named reviewers or a role)."""

    @extend_schema(responses={200: ApprovalPolicySerializer, **ERRORS})
    def get(self, request, slug: str):
        return Response(_policy_data(team_get_for_user(user=request.user, slug=slug)))

    @extend_schema(
        request=ApprovalPolicySerializer, responses={200: ApprovalPolicySerializer, **ERRORS}
    )
    def put(self, request, slug: str):
        # The body is read first, as every JSON write of the API does: a body the parser
        # refuses is a 400 before anything is looked up.
        serializer = ApprovalPolicySerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        team = team_get_for_user(user=request.user, slug=slug)
        data = serializer.validated_data
        approval_policy_set(
            team=team,
            actor=request.user,
            required_approvals=data["required_approvals"],
            rules=[RuleInput(**rule) for rule in data["rules"]],
        )
        return Response(_policy_data(team))


class ApprovalStatusView(_DomainErrors, APIView):
    """Whether the evaluation's current revision has the approvals its team's policy requires."""

    @extend_schema(responses={200: ApprovalStatusSerializer, **ERRORS})
    def get(self, request, pk: str):
        evaluation = selectors.evaluation_get_for_user(user=request.user, pk=pk)
        words = status_in_words(approval_status(evaluation))
        return Response({"revision": evaluation.revision, **words})


class ReviewRequestView(_DomainErrors, APIView):
    """Ask one of the team's reviewers or admins to review the evaluation in review: they get an
    inbox item and an e-mail."""

    @extend_schema(
        request=ReviewRequestInputSerializer,
        responses={201: ReviewRequestSerializer, **ERRORS},
    )
    def post(self, request, pk: str):
        serializer = ReviewRequestInputSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        evaluation = selectors.evaluation_get_for_user(user=request.user, pk=pk)
        reviewer = (
            get_user_model()
            .objects.filter(username=serializer.validated_data["reviewer"], is_active=True)
            .first()
        )
        if reviewer is None:
            raise Http404("No such user")
        made = review_request_create(evaluation=evaluation, actor=request.user, reviewer=reviewer)
        return Response(
            {"reviewer": reviewer.get_username(), "requested_by": request.user.get_username(),
             "revision": made.revision, "created_at": made.created_at},
            status=status.HTTP_201_CREATED,
        )  # fmt: skip
