"""Reads for the decision page's share panel: the links and their recent uses."""

from __future__ import annotations

from django.db.models import Count, Max
from django.shortcuts import get_object_or_404

from evaluations.models import Evaluation
from evaluations.sharing.models import ShareAccess, ShareLink


def share_links_for(evaluation: Evaluation) -> list[ShareLink]:
    """The evaluation's links, newest first, each with its number of uses and the last one."""
    return list(
        evaluation.share_links.select_related("created_by", "revoked_by")
        .annotate(uses=Count("accesses"), last_used=Max("accesses__at"))
        .order_by("-created_at", "-id")
    )


def share_accesses_for(evaluation: Evaluation, *, limit: int = 50) -> list[ShareAccess]:
    """The latest uses of any of the evaluation's links."""
    return list(
        ShareAccess.objects.filter(link__evaluation=evaluation)
        .select_related("link")
        .order_by("-at", "-id")[:limit]
    )


def share_link_of(evaluation: Evaluation, link_id: int) -> ShareLink:
    """One of the evaluation's links (the evaluation came through the access helper); 404."""
    return get_object_or_404(
        ShareLink.objects.select_related("evaluation__team"), pk=link_id, evaluation=evaluation
    )
