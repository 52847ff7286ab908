"""Evaluation API: team-scoped reads, the four steps, decision, submit, review, archive."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from django.http import Http404, HttpResponse
from django.utils import translation
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import mixins, status, viewsets
from rest_framework.decorators import action
from rest_framework.exceptions import APIException
from rest_framework.negotiation import BaseContentNegotiation
from rest_framework.response import Response

from catalog.api.serializers import ErrorSerializer
from ecomap.api import error_items
from evaluations import selectors, services
from evaluations.api.diff_serializers import EvaluationDiffSerializer
from evaluations.api.ranking_serializers import ComparisonSerializer, RankingSerializer
from evaluations.api.serializers import (
    BoundariesSerializer,
    CandidatesSerializer,
    DecisionInputSerializer,
    DecisionOutputSerializer,
    EvaluationCreateSerializer,
    EvaluationSerializer,
    EvaluationSummarySerializer,
    ProfileSerializer,
    ReviewInputSerializer,
    UnitsSerializer,
)
from evaluations.decisions import adr
from evaluations.decisions.services import evaluation_decide
from evaluations.errors import EvaluationError
from evaluations.models import Evaluation, Step
from evaluations.review.diffs import selectors as diff_selectors
from evaluations.review.services import evaluation_archive, evaluation_review, evaluation_submit
from evaluations.steps.services import evaluation_step_save
from evaluations.teams.selectors import team_of_user

ERRORS = {
    400: OpenApiResponse(ErrorSerializer, description="invalid input or a refused transition"),
    401: OpenApiResponse(ErrorSerializer, description="not signed in"),
    403: OpenApiResponse(ErrorSerializer, description="your role in the team does not allow it"),
    404: OpenApiResponse(
        ErrorSerializer, description="no such evaluation, or one of a team you are not in"
    ),
}
READ_ERRORS = {code: ERRORS[code] for code in (401, 404)}
# Issue 28 L8: an edit of the evaluation's content that does not say its revision would be
# "last writer wins"; it is refused (428) before anything is read or saved.
REVISION_REQUIRED = (
    "Send `revision`: the evaluation's revision as read from GET /api/v1/evaluations/{id}/ "
    "(or from the answer to your last save). Every save of the steps or the decision must say "
    "which revision it was made on, so that it never silently overwrites another editor's save."
)
# Edits of the content (the four steps and the decision) say their revision.
EDIT_ERRORS = {
    **ERRORS,
    409: OpenApiResponse(ErrorSerializer, description="the evaluation changed since that revision"),
    428: OpenApiResponse(
        ErrorSerializer, description="no `revision` in the body: read it from GET, send it back"
    ),
}
STEP_RESPONSES = {200: EvaluationSerializer, **EDIT_ERRORS}


class RevisionRequired(APIException):
    status_code = status.HTTP_428_PRECONDITION_REQUIRED
    default_detail = REVISION_REQUIRED
    default_code = "revision_required"


def revision_require(data: Any) -> None:
    """Refuse (428) an edit body that does not say its revision, after the role and state checks
    (a viewer hears 403, not 428). A body that is not an object is left to the serializer."""
    if isinstance(data, Mapping) and data.get("revision") is None:
        raise RevisionRequired()


ADR_LANGUAGES = ("en", "zh-hans")
ADR_LANGUAGE = OpenApiParameter(
    "lang",
    str,
    enum=list(ADR_LANGUAGES),
    description="language of the record (default: Accept-Language, then English)",
)
LANG_ERROR = OpenApiResponse(ErrorSerializer, description="a `lang` outside en, zh-hans")


class AnyAccept(BaseContentNegotiation):
    """The Markdown file is served whatever the client accepts (a browser's download, curl's
    `Accept: text/markdown`); the errors before it stay JSON like the rest of the API."""

    def select_parser(self, request, parsers):
        return parsers[0]

    def select_renderer(self, request, renderers, format_suffix=None):
        return renderers[0], renderers[0].media_type


def _prefetched(queryset):
    return queryset.prefetch_related(
        "units__unit",
        "candidates__row__project",
        "candidates__row__layer",
        "candidates__enforcement_points",
        "reviews__reviewer",
    )


class EvaluationViewSet(
    mixins.ListModelMixin,
    mixins.RetrieveModelMixin,
    viewsets.GenericViewSet,
):
    """Evaluations of the teams you are in. Another team's evaluation answers 404."""

    serializer_class = EvaluationSerializer
    lookup_value_regex = "[^/]+"  # a malformed id is a JSON 404 (the access helper), not HTML
    ordering_fields = ["updated_at", "created_at", "title"]
    ordering = ["-updated_at"]
    filterset_fields = ["state"]

    def get_queryset(self):
        if getattr(self, "swagger_fake_view", False):  # schema generation has no user
            return Evaluation.objects.none()
        return selectors.evaluations_for_user(user=self.request.user)

    def get_serializer_class(self):
        return EvaluationSummarySerializer if self.action == "list" else EvaluationSerializer

    def get_object(self) -> Evaluation:
        evaluation = selectors.evaluation_get_for_user(user=self.request.user, pk=self.kwargs["pk"])
        self.check_object_permissions(self.request, evaluation)
        return evaluation

    def handle_exception(self, exc):
        # The one place evaluation domain errors become HTTP for the API.
        if isinstance(exc, EvaluationError):  # the one error shape: errors as [{path, message}]
            errors = error_items(exc.errors) or [{"path": "$", "message": exc.message}]
            return Response({"detail": exc.message, "errors": errors}, status=exc.status)
        if isinstance(exc, RevisionRequired):
            return Response(
                {
                    "detail": REVISION_REQUIRED,
                    "errors": [{"path": "revision", "message": REVISION_REQUIRED}],
                },
                status=exc.status_code,
            )
        return super().handle_exception(exc)

    @extend_schema(
        responses={
            200: EvaluationSummarySerializer(many=True),
            400: OpenApiResponse(ErrorSerializer, description="unknown filter value"),
            **READ_ERRORS,
        }
    )
    def list(self, request, *args, **kwargs):
        return super().list(request, *args, **kwargs)

    def _detail(self, evaluation: Evaluation, code: int = status.HTTP_200_OK) -> Response:
        fresh = selectors.evaluation_get_for_user(user=self.request.user, pk=evaluation.pk)
        fresh = _prefetched(Evaluation.objects.filter(pk=fresh.pk)).get()
        fresh.user_role = selectors.user_role_in(fresh, self.request.user)
        return Response(
            EvaluationSerializer(fresh, context={"request": self.request}).data, status=code
        )

    @extend_schema(responses={200: EvaluationSerializer, **READ_ERRORS})
    def retrieve(self, request, *args, **kwargs):
        return self._detail(self.get_object())

    @extend_schema(
        request=EvaluationCreateSerializer,
        responses={201: EvaluationSerializer, **ERRORS},
    )
    def create(self, request):
        serializer = EvaluationCreateSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        # A team you are not in is as unknown as a team that does not exist.
        team = team_of_user(user=request.user, slug=serializer.validated_data["team"])
        if team is None:
            raise Http404("No Team matches the given query.")
        evaluation = services.evaluation_create(
            actor=request.user, team=team, title=serializer.validated_data["title"]
        )
        return self._detail(evaluation, status.HTTP_201_CREATED)

    def _save_step(self, request, step: str, serializer_class) -> Response:
        evaluation = self.get_object()
        services.evaluation_check_editable(evaluation=evaluation, actor=request.user)
        revision_require(request.data)
        serializer = serializer_class(data=request.data)
        serializer.is_valid(raise_exception=True)
        data = dict(serializer.validated_data)
        revision = data.pop("revision", None)
        evaluation_step_save(
            evaluation=evaluation, actor=request.user, step=step, data=data, revision=revision
        )
        return self._detail(evaluation)

    @extend_schema(request=ProfileSerializer, responses=STEP_RESPONSES)
    @action(detail=True, methods=["put"], url_path="steps/profile")
    def step_profile(self, request, pk=None):
        """Step 1: the workload and SLO profile (DESIGN.md's step-1 keys)."""
        return self._save_step(request, Step.PROFILE, ProfileSerializer)

    @extend_schema(request=UnitsSerializer, responses=STEP_RESPONSES)
    @action(detail=True, methods=["put"], url_path="steps/units")
    def step_units(self, request, pk=None):
        """Step 2: the resource units considered (replaces the list)."""
        return self._save_step(request, Step.UNITS, UnitsSerializer)

    @extend_schema(
        request=CandidatesSerializer, responses={200: EvaluationSerializer, **EDIT_ERRORS}
    )
    @action(detail=True, methods=["put"], url_path="steps/candidates")
    def step_candidates(self, request, pk=None):
        """Step 3: candidates and their confirmed enforcement points (replaces the list)."""
        return self._save_step(request, Step.CANDIDATES, CandidatesSerializer)

    @extend_schema(
        request=BoundariesSerializer, responses={200: EvaluationSerializer, **EDIT_ERRORS}
    )
    @action(detail=True, methods=["put"], url_path="steps/boundaries")
    def step_boundaries(self, request, pk=None):
        """Step 4: what each candidate is and is not responsible for."""
        return self._save_step(request, Step.BOUNDARIES, BoundariesSerializer)

    @extend_schema(
        request=DecisionInputSerializer, responses={200: DecisionOutputSerializer, **EDIT_ERRORS}
    )
    @action(detail=True, methods=["put"])
    def decision(self, request, pk=None):
        """The chosen stack; answers with the stack check of it against the profile."""
        evaluation = self.get_object()
        services.evaluation_check_editable(evaluation=evaluation, actor=request.user)
        revision_require(request.data)
        serializer = DecisionInputSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        decision = evaluation_decide(
            evaluation=evaluation, actor=request.user, **serializer.validated_data
        )
        evaluation = selectors.evaluation_get_for_user(user=request.user, pk=evaluation.pk)
        report = selectors.decision_report(evaluation)
        return Response(
            {
                "decision": DecisionOutputSerializer()
                .fields["decision"]
                .to_representation(decision),
                "report": report.to_dict() if report else None,
            }
        )

    @extend_schema(request=None, responses={200: EvaluationSerializer, **ERRORS})
    @action(detail=True, methods=["post"])
    def submit(self, request, pk=None):
        """Hand a complete draft to the team's reviewers."""
        evaluation = evaluation_submit(evaluation=self.get_object(), actor=request.user)
        return self._detail(evaluation)

    @extend_schema(request=ReviewInputSerializer, responses={200: EvaluationSerializer, **ERRORS})
    @action(detail=True, methods=["post"])
    def review(self, request, pk=None):
        """Approve or request changes (reviewers and admins of the team, never the author)."""
        evaluation = self.get_object()
        serializer = ReviewInputSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        evaluation_review(evaluation=evaluation, actor=request.user, **serializer.validated_data)
        return self._detail(evaluation)

    @extend_schema(request=None, responses={200: EvaluationSerializer, **ERRORS})
    @action(detail=True, methods=["post"])
    def archive(self, request, pk=None):
        """Archive the evaluation (team admins)."""
        evaluation = evaluation_archive(evaluation=self.get_object(), actor=request.user)
        return self._detail(evaluation)

    @extend_schema(responses={200: ComparisonSerializer, **READ_ERRORS})
    @action(detail=True, methods=["get"])
    def comparison(self, request, pk=None):
        """Conflicts among the candidates, the groups of rows that compete (same layer, same
        job, a common unit), one line per project pair for the rest, and misjudgements."""
        comparison = selectors.comparison_for(self.get_object())
        facts = comparison.facts
        return Response(
            {
                "conflicts": [
                    {"a": c.a, "b": c.b, "tokens": list(c.tokens), "pools": list(c.pools),
                     "message": str(c.message)}
                    for c in facts.conflicts
                ],
                "groups": [
                    {"layer": g.layer, "functions": list(g.functions), "units": list(g.units),
                     "rows": list(g.rows)}
                    for g in facts.groups
                ],
                "pairs": [
                    {"projects": list(p.projects), "verdict": p.verdict, "summary": str(p.summary),
                     "links": [link.to_dict() for link in p.links]}
                    for p in facts.pairs
                ],
                "misjudgements": [warning.to_dict() for warning in comparison.misjudgements],
            }
        )  # fmt: skip

    @extend_schema(
        parameters=[
            OpenApiParameter("limit", int, description="how many stacks (1-20, default 5)"),
            OpenApiParameter(
                "X-Search-Complete",
                str,
                location=OpenApiParameter.HEADER,
                response=[200],
                description='"true", or "false" when the search budget stopped the search '
                "and the stacks are the best found so far",
            ),
            OpenApiParameter(
                "X-Search-Examined",
                int,
                location=OpenApiParameter.HEADER,
                response=[200],
                description="how many stacks the search drafted",
            ),
            OpenApiParameter(
                "X-Search-Note",
                str,
                location=OpenApiParameter.HEADER,
                response=[200],
                description="when the search stopped early, why, in words",
            ),
        ],
        responses={
            200: RankingSerializer,
            400: OpenApiResponse(ErrorSerializer, description="the step-1 profile is incomplete"),
            **READ_ERRORS,
        },
    )
    @action(detail=True, methods=["get"], pagination_class=None, filter_backends=[])
    def recommendations(self, request, pk=None):
        """Ranked stacks from the catalog for the evaluation's step-1 profile.

        Ranked once per profile and catalog revision; the headers say whether the search ran
        to the end or its budget stopped it with the best stacks found so far.
        """
        evaluation = self.get_object()
        limit = _bounded_int(
            request.query_params.get("limit"), name="limit", default=5, low=1, high=20
        )
        try:
            ranked = selectors.recommendations_for(evaluation=evaluation, limit=limit)
        except ValueError as exc:
            raise EvaluationError(str(exc)) from exc
        response = Response(ranked.envelope([item.to_dict() for item in ranked]))
        response["X-Search-Complete"] = "true" if ranked.complete else "false"
        response["X-Search-Examined"] = str(ranked.examined)
        if ranked.note:
            response["X-Search-Note"] = str(ranked.note)
        return response

    def _decision_record(self, request) -> tuple[Evaluation, adr.DecisionRecord]:
        evaluation = self.get_object()
        asked = request.query_params.get("lang", "")
        if asked and asked not in ADR_LANGUAGES:
            message = f"lang is one of {', '.join(ADR_LANGUAGES)} (or left out)"
            raise EvaluationError(message, errors={"lang": [message]})
        language = asked or translation.get_language()
        try:
            language = translation.get_supported_language_variant(language)
        except LookupError:
            language = translation.get_language()
        with translation.override(language):
            record = adr.adr_build(evaluation, base_url=request.build_absolute_uri("/"))
        return evaluation, record

    @extend_schema(
        parameters=[ADR_LANGUAGE],
        responses={200: OpenApiResponse(OpenApiTypes.OBJECT, description=adr.SCHEMA_NOTE),
                   400: LANG_ERROR, **READ_ERRORS},
    )  # fmt: skip
    @action(detail=True, methods=["get"], url_path="adr")
    def adr(self, request, pk=None):
        """The decision record (MADR layout) as data, in words of the requested language."""
        return Response(self._decision_record(request)[1].data)

    @extend_schema(
        operation_id="v1_evaluations_adr_md_retrieve",
        parameters=[ADR_LANGUAGE],
        responses={
            (200, "text/markdown"): OpenApiResponse(
                OpenApiTypes.STR, description="the decision record as a Markdown file"
            ),
            400: LANG_ERROR,
            **READ_ERRORS,
        },
    )
    def adr_markdown(self, request, pk=None):
        """The decision record as a Markdown file (MADR layout), served as an attachment."""
        evaluation, record = self._decision_record(request)
        response = HttpResponse(record.markdown, content_type="text/markdown; charset=utf-8")
        response["Content-Disposition"] = f'attachment; filename="{adr.adr_filename(evaluation)}"'
        return response

    @extend_schema(
        operation_id="v1_evaluations_diff_retrieve",
        parameters=[
            OpenApiParameter(
                "from",
                int,
                description="the older revision (default: the last approved one, else the "
                "first recorded one)",
            ),
            OpenApiParameter("to", int, description="the newer revision (default: the current)"),
        ],
        responses={
            200: EvaluationDiffSerializer,
            400: OpenApiResponse(
                ErrorSerializer,
                description="an unknown or unrecorded revision, or `from` after `to`",
            ),
            **READ_ERRORS,
        },
    )
    @action(detail=True, methods=["get"], url_path="diff")
    def diff(self, request, pk=None):
        """Two revisions compared: each changed field by section (profile, units, candidates,
        boundaries, decision, stack-check findings) with its old and new value, and who
        changed what between them (the audit entries, attached to the sections they saved)."""
        evaluation = self.get_object()
        start, end = diff_selectors.default_pair(evaluation)
        try:
            start = diff_selectors.parse_revision(request.query_params.get("from"), start)
            end = diff_selectors.parse_revision(request.query_params.get("to"), end)
            compared = diff_selectors.evaluation_diff(evaluation=evaluation, old=start, new=end)
        except diff_selectors.DiffRefused as exc:
            return Response({"detail": str(exc)}, status=status.HTTP_400_BAD_REQUEST)
        return Response(
            {
                "evaluation": evaluation.pk,
                "current_revision": evaluation.revision,
                "last_approved_revision": diff_selectors.last_approved_revision(evaluation),
                "from_revision": _revision_data(compared.old),
                "to_revision": _revision_data(compared.new),
                "change_count": len(compared.diff.changes),
                **compared.diff.to_dict(),
            }
        )


def _revision_data(record) -> dict[str, Any]:
    return {
        "revision": record.revision,
        "actor": record.actor.get_username() if record.actor else None,
        "created_at": record.created_at,
    }


def _bounded_int(value: Any, *, name: str, default: int, low: int, high: int) -> int:
    """A query integer kept within [low, high]; left out is `default`, not a number is a 400."""
    if value in (None, ""):
        return default
    text = str(value).strip()
    if not re.fullmatch(r"[+-]?[0-9]{1,12}", text):
        message = f"{name} is an integer from {low} to {high}"
        raise EvaluationError(message, errors={name: [message]})
    return max(low, min(high, int(text)))
