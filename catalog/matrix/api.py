"""Matrix API: the latest snapshot (filtered) and one pair explained."""

from __future__ import annotations

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import (
    OpenApiParameter,
    OpenApiResponse,
    extend_schema,
    inline_serializer,
)
from rest_framework import serializers
from rest_framework.exceptions import NotFound, ValidationError
from rest_framework.response import Response
from rest_framework.views import APIView

from catalog.api.serializers import ErrorSerializer
from catalog.engine.oracle import VERDICTS
from catalog.matrix.chosen import live_pair, matrix_of_choice, matrix_too_big
from catalog.matrix.selectors import (
    CellFilter,
    cells,
    matrix_state,
    pair_count,
    snapshot_result,
)
from catalog.matrix.services import matrix_refresh_if_missing

BOOLEAN_VALUES = ("true", "false", "1", "0")
ERRORS = {
    400: OpenApiResponse(ErrorSerializer, description="invalid query parameter"),
    401: OpenApiResponse(ErrorSerializer, description="not signed in"),
    403: OpenApiResponse(ErrorSerializer, description="not allowed"),
    404: OpenApiResponse(ErrorSerializer, description="no snapshot yet, or no such pair"),
}

SNAPSHOT = inline_serializer(
    "MatrixSnapshotInfo",
    {
        "id": serializers.IntegerField(),
        "catalog_revision": serializers.IntegerField(),
        "current_revision": serializers.IntegerField(),
        "stale": serializers.BooleanField(),
        "computing": serializers.BooleanField(),
        "progress": serializers.IntegerField(),
        "row_count": serializers.IntegerField(),
        "counts": serializers.DictField(child=serializers.IntegerField()),
        "timings": serializers.DictField(),
        "finished_at": serializers.DateTimeField(),
    },
    # null past CATALOG_PAGE_MAX_ROWS with no snapshot: the pairs are computed now (issue 41 H1)
    allow_null=True,
)


class MatrixRowRefSerializer(serializers.Serializer):
    """One end of a pair."""

    project = serializers.CharField()
    row = serializers.CharField()


CELLS = inline_serializer(
    "MatrixCell",
    {
        "a": MatrixRowRefSerializer(),
        "b": MatrixRowRefSerializer(),
        "verdict": serializers.ChoiceField(choices=VERDICTS),
        "holds": serializers.ListField(child=serializers.ChoiceField(choices=VERDICTS)),
        "same_project": serializers.BooleanField(),
        # left out with ?reasons=false
        "reasons": serializers.ListField(child=serializers.CharField(), required=False),
        "links": serializers.ListField(child=serializers.DictField(), required=False),
    },
    many=True,
)


# A 2,000-row catalog has two million pairs: cells come a page at a time.
PAGE_SIZE = 500
MAX_PAGE_SIZE = 5000


def _page_number(request, name: str, default: int, maximum: int | None) -> int:
    raw = request.query_params.get(name, "")
    if raw == "":
        return default
    try:
        value = int(raw)
    except ValueError:
        raise ValidationError({name: "must be a whole number"}) from None
    if value < 1 or (maximum is not None and value > maximum):
        bound = f" and at most {maximum}" if maximum is not None else ""
        raise ValidationError({name: f"must be at least 1{bound}"})
    return value


def _page_link(request, page: int) -> str:
    query = request.query_params.copy()
    query["page"] = str(page)
    return request.build_absolute_uri(f"{request.path}?{query.urlencode()}")


def _latest():
    state = matrix_state()
    if state.snapshot is None:
        matrix_refresh_if_missing(state)
        raise NotFound("No matrix has been computed yet; it is computed after catalog changes.")
    return state


def _info(state) -> dict:
    snapshot = state.snapshot
    computing = state.computing
    return {
        "id": snapshot.id,
        "catalog_revision": snapshot.catalog_revision,
        "current_revision": state.current_revision,
        "stale": state.stale,
        "computing": computing is not None,
        "progress": computing.progress if computing else 100,
        "row_count": snapshot.row_count,
        "counts": snapshot.counts,
        "timings": snapshot.timings,
        "finished_at": snapshot.finished_at,
    }


class MatrixView(APIView):
    """The latest matrix snapshot: pairs (i < j) of the selected rows with verdicts and reasons,
    a page at a time (`count`, `next`, `previous` as in the other lists)."""

    @extend_schema(
        parameters=[
            OpenApiParameter("layer", OpenApiTypes.STR, many=True),
            OpenApiParameter("project", OpenApiTypes.STR, many=True, description="project slugs"),
            OpenApiParameter("verdict", OpenApiTypes.STR, many=True, enum=list(VERDICTS)),
            OpenApiParameter(
                "reasons", OpenApiTypes.BOOL, description="include reasons (default true)"
            ),
            OpenApiParameter(
                "page", {"type": "integer", "minimum": 1}, description="page of cells, from 1"
            ),
            OpenApiParameter(
                "page_size",
                {"type": "integer", "minimum": 1, "maximum": MAX_PAGE_SIZE},
                description=f"cells per page (default {PAGE_SIZE}, at most {MAX_PAGE_SIZE})",
            ),
        ],
        responses={
            200: inline_serializer(
                "MatrixResponse",
                {
                    "snapshot": SNAPSHOT,
                    "count": serializers.IntegerField(),
                    "next": serializers.URLField(allow_null=True),
                    "previous": serializers.URLField(allow_null=True),
                    "cells": CELLS,
                },
            ),
            **ERRORS,
        },
    )
    def get(self, request):
        verdicts = tuple(value for value in request.query_params.getlist("verdict") if value)
        unknown = [verdict for verdict in verdicts if verdict not in VERDICTS]
        if unknown:
            raise ValidationError(
                {"verdict": f"unknown verdict {unknown[0]!r}; allowed: {', '.join(VERDICTS)}"}
            )
        flag = request.query_params.get("reasons", "true").lower()
        if flag not in BOOLEAN_VALUES:
            raise ValidationError({"reasons": f"must be one of {', '.join(BOOLEAN_VALUES)}"})
        state = matrix_state()
        selection = CellFilter(
            layers=tuple(request.query_params.getlist("layer")),
            projects=tuple(request.query_params.getlist("project")),
            verdicts=verdicts,
        )
        if matrix_too_big(state):
            # Issue 41 H1: the pairs of the named projects, computed now; never the snapshot.
            choice = matrix_of_choice(layers=selection.layers, projects=selection.projects)
            if choice.result is None:
                raise ValidationError(
                    {
                        "project": f"the catalog has {choice.total} rows, more than the "
                        f"{choice.limit} whose pairs are listed at once; name projects "
                        f"(project=…, a layer narrows them) holding at most {choice.limit} rows "
                        f"(these hold {choice.count})"
                    }
                )
            result = choice.result
        else:
            state = _latest()
            result = snapshot_result(state.snapshot)
        explain = flag in ("true", "1")
        page, size = (
            _page_number(request, "page", 1, None),
            _page_number(request, "page_size", PAGE_SIZE, MAX_PAGE_SIZE),
        )
        total = pair_count(result, selection)
        offset = (page - 1) * size
        if offset and offset >= total:
            raise NotFound(f"page {page} is past the last page ({max(1, -(-total // size))})")
        return Response(
            {
                "snapshot": _info(state) if state.snapshot else None,
                "count": total,
                "next": _page_link(request, page + 1) if offset + size < total else None,
                "previous": _page_link(request, page - 1) if page > 1 else None,
                "cells": cells(result, selection, explain=explain, offset=offset, limit=size),
            }
        )


class MatrixPairView(APIView):
    """One pair of rows (`project/key` ids) with every verdict that holds and its reasons."""

    @extend_schema(
        parameters=[
            OpenApiParameter("a", OpenApiTypes.STR, required=True, description="project/key"),
            OpenApiParameter("b", OpenApiTypes.STR, required=True, description="project/key"),
        ],
        responses={200: OpenApiTypes.OBJECT, **ERRORS},
    )
    def get(self, request):
        state = matrix_state()
        too_big = matrix_too_big(state)
        if not too_big:
            state = _latest()
        a, b = request.query_params.get("a", ""), request.query_params.get("b", "")
        if a and a == b:
            raise ValidationError({"b": "a row paired with itself is not a pair; name two rows"})
        try:
            if too_big:  # from its two rows, never the whole snapshot (issue 41 H1)
                detail, _rows = live_pair(a, b)
            else:
                detail = snapshot_result(state.snapshot).explain(a, b)
        except KeyError as exc:
            raise NotFound(str(exc).strip("'\"")) from None
        snapshot = _info(state) if state.snapshot else None
        return Response({**detail.to_dict(), "snapshot": snapshot})
