"""What the home page, the inbox and the search show a signed-in user: bounded lists, each in a
fixed number of queries whatever the number of evaluations, notifications or catalog rows."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from django.core.exceptions import FieldDoesNotExist
from django.db import transaction
from django.db.models import Exists, OuterRef, Q, QuerySet

from catalog.models import CatalogChange, PlacementRow, Project
from ecomap.outage import cache_add_quietly, cache_delete_quietly, cache_get_or
from evaluations.models import (
    AuditEntry,
    Decision,
    Evaluation,
    Membership,
    Notification,
    Review,
    Role,
    State,
)
from evaluations.selectors import EDIT_ACTIONS

# Lists on the home page: a glance, with "see all" links to the full lists.
HOME_LIST = 8
# How many recent decisions are read to find the catalog rows they rely on: the rows of older
# decisions of a busy team drop out rather than make the home page slower.
DECISIONS_WATCHED = 100
SEARCH_LIMIT = 10
SEARCH_MAX_LENGTH = 100


# The home page's lists show titles, teams, dates and a decision's stack: the JSON documents
# behind an evaluation (its profile, its drift report, the rows as approved) stay unread.
UNSHOWN_EVALUATION_FIELDS = ("profile", "catalog_drift")
UNSHOWN_DECISION_FIELDS = ("pools", "pool_tenant_sharing", "approved_rows", "approved_findings")


def _my_teams(user) -> QuerySet:
    return Membership.objects.filter(user=user).values("team_id")


def in_a_team(*, user) -> bool:
    return Membership.objects.filter(user=user).exists()


def drafts_for_user(*, user, limit: int = HOME_LIST) -> list[Evaluation]:
    """Evaluations of the user's teams in draft or changes requested that they created or edited,
    most recently changed first."""
    edited = AuditEntry.objects.filter(
        evaluation=OuterRef("pk"), actor=user, action__in=EDIT_ACTIONS
    )
    return list(
        Evaluation.objects.filter(
            team__in=_my_teams(user),
            state__in=(State.DRAFT, State.CHANGES_REQUESTED, State.NEEDS_REVIEW),
        )
        .filter(Q(created_by=user) | Exists(edited))
        .select_related("team")
        .defer(*UNSHOWN_EVALUATION_FIELDS)
        .order_by("-updated_at", "-id")[:limit]
    )


def waiting_for_review(*, user, limit: int | None = HOME_LIST) -> list[Evaluation]:
    """In-review evaluations of the teams where the user reviews (reviewer or admin), that they
    did not write and have not reviewed at their current revision, oldest submission first."""
    reviewed = Review.objects.filter(
        evaluation=OuterRef("pk"), reviewer=user, revision=OuterRef("revision")
    )
    teams = Membership.objects.filter(user=user, role__in=(Role.REVIEWER, Role.ADMIN))
    evaluations = (
        Evaluation.objects.filter(team__in=teams.values("team_id"), state=State.IN_REVIEW)
        .exclude(created_by=user)
        .exclude(source_authors=user)
        .exclude(Exists(reviewed))
        .select_related("team", "created_by")
        .defer(*UNSHOWN_EVALUATION_FIELDS)
        .order_by("updated_at", "id")
    )
    return list(evaluations[:limit] if limit else evaluations)


def recent_decisions(*, user, limit: int = HOME_LIST) -> list[Evaluation]:
    """Approved evaluations of the user's teams, newest first, with their decision."""
    return list(
        Evaluation.objects.filter(team__in=_my_teams(user), state=State.APPROVED)
        .select_related("team", "decision")
        .defer(
            *UNSHOWN_EVALUATION_FIELDS,
            *(f"decision__{name}" for name in UNSHOWN_DECISION_FIELDS),
        )
        .order_by("-updated_at", "-id")[:limit]
    )


@dataclass
class WatchedChange:
    """A catalog change to a row that a decision of the user's teams relies on."""

    change: CatalogChange
    evaluation: Evaluation
    after_decision: bool
    fields: list[str] = field(default_factory=list)

    @property
    def ref(self) -> str:
        return f"{self.change.project_slug}/{self.change.row_key}"


def catalog_changes_for_user(*, user, limit: int = HOME_LIST) -> list[WatchedChange]:
    """The latest catalog changes to rows named in decisions of the user's teams (two queries)."""
    decisions = (
        Decision.objects.filter(evaluation__team__in=_my_teams(user))
        .exclude(evaluation__state=State.ARCHIVED)
        .select_related("evaluation")
        .only("rows", "decided_at", "evaluation", "evaluation__title")
        .order_by("-decided_at", "-id")[:DECISIONS_WATCHED]
    )
    relying: dict[tuple[str, str], Decision] = {}
    for decision in decisions:  # newest first: a row names the latest decision relying on it
        for ref in decision.rows or []:
            slug, _, key = str(ref).partition("/")
            if slug and key:
                relying.setdefault((slug, key), decision)
    if not relying:
        return []
    query = Q()
    for slug, key in relying:
        query |= Q(project_slug=slug, row_key=key)
    changes = CatalogChange.objects.filter(query).select_related("actor").order_by("-id")[:limit]
    watched = []
    for change in changes:
        decision = relying[(change.project_slug, change.row_key)]
        watched.append(
            WatchedChange(
                change=change,
                evaluation=decision.evaluation,
                after_decision=change.created_at > decision.decided_at,
                fields=_field_labels(change.changes)[:6] if change.action == "updated" else [],
            )
        )
    return watched


def _field_labels(changes: dict[str, Any]) -> list[str]:
    """The changed fields of a placement row by their labels (contracts keep their own word)."""
    labels = []
    for name in sorted(changes):
        try:
            labels.append(str(PlacementRow._meta.get_field(name).verbose_name))
        except FieldDoesNotExist:
            labels.append(name.replace("_", " "))
    return labels


# The nav's Inbox badge is on every page: the count is cached per person, and every write that
# changes it (a new notification, one or all marked read) forgets it (unread_count_forget).
UNREAD_SECONDS = 30


def _unread_key(user_id: int) -> str:
    return f"inbox:unread:v1:{user_id}"


def unread_count(*, user) -> int:
    key = _unread_key(user.pk)
    count = cache_get_or(key)
    if count is None:
        count = Notification.objects.filter(recipient=user, read_at__isnull=True).count()
        cache_add_quietly(key, count, UNREAD_SECONDS)
    return count


def unread_count_forget(user_ids: Iterable[int]) -> None:
    """Now, for the rest of the writer's transaction, and after commit, for readers that raced."""
    keys = [_unread_key(user_id) for user_id in user_ids]
    if keys:
        cache_delete_quietly(*keys)
        transaction.on_commit(lambda: cache_delete_quietly(*keys))


def forget_unread_of(sender, instance: Notification, **kwargs: Any) -> None:
    unread_count_forget([instance.recipient_id])


def notifications_for_user(*, user) -> QuerySet[Notification]:
    """The user's inbox, newest first, with what each line shows."""
    return Notification.objects.filter(recipient=user).select_related(
        "evaluation", "evaluation__team", "actor"
    )


@dataclass
class SearchResults:
    text: str
    projects: list[Project]
    rows: list[PlacementRow]
    evaluations: list[Evaluation]

    @property
    def empty(self) -> bool:
        return not (self.projects or self.rows or self.evaluations)

    def as_dict(self) -> dict[str, Any]:
        return {
            "projects": len(self.projects),
            "rows": len(self.rows),
            "evaluations": len(self.evaluations),
        }


def search_for_user(*, user, text: str, limit: int = SEARCH_LIMIT) -> SearchResults:
    """Catalog projects (name, slug), placement rows (component, key) and the evaluations of the
    user's teams (title) matching `text`; each group capped. Other teams' work never shows."""
    text = (text or "").strip()[:SEARCH_MAX_LENGTH]
    if not text:
        return SearchResults(text, [], [], [])
    projects = Project.objects.filter(Q(name__icontains=text) | Q(slug__icontains=text))
    rows = PlacementRow.objects.filter(
        Q(component__icontains=text) | Q(key__icontains=text)
    ).select_related("project", "layer")
    evaluations = Evaluation.objects.filter(
        team__in=_my_teams(user), title__icontains=text
    ).select_related("team")
    return SearchResults(
        text=text,
        projects=list(projects.order_by("name")[:limit]),
        rows=list(rows.order_by("project__name", "key")[:limit]),
        evaluations=list(evaluations.order_by("-updated_at", "-id")[:limit]),
    )
