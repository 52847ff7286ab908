"""What the home page, the inbox and the search show a signed-in user: bounded lists, each in a
fixed number of queries whatever the number of evaluations, notifications or catalog rows."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from django.contrib.postgres.search import SearchRank, SearchVector
from django.core.exceptions import FieldDoesNotExist
from django.db.models import (
    Aggregate,
    Exists,
    F,
    Func,
    OuterRef,
    Q,
    QuerySet,
    Subquery,
    TextField,
    Value,
)
from django.db.models.functions import Cast, Coalesce, Concat
from django.utils.safestring import SafeString, mark_safe

from catalog.engine.query_words import SearchTerms, excerpt, highlight
from catalog.models import CatalogChange, ChangeAction, PlacementRow
from catalog.search.selectors import ProjectHit, RowHit, catalog_search, full_text, text_query
from evaluations.audit.selectors import edits_by
from evaluations.decisions.selectors import decisions_of_teams
from evaluations.models import Candidate, Evaluation, State, UnitChoice
from evaluations.review.selectors import reviews_by
from evaluations.teams.choices import Role
from evaluations.teams.selectors import team_ids_of

if TYPE_CHECKING:
    from evaluations.decisions.models import Decision

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
UNSHOWN_DECISION_FIELDS = (
    "pools",
    "pool_tenant_sharing",
    "pool_node_groups",
    "approved_rows",
    "approved_findings",
)


def _my_teams(user) -> QuerySet:
    return team_ids_of(user=user)


def drafts_for_user(*, user, limit: int = HOME_LIST) -> list[Evaluation]:
    """Evaluations of the user's teams in draft or changes requested that they created or edited,
    most recently changed first."""
    edited = edits_by(actor=user, evaluation=OuterRef("pk"))
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
    reviewed = reviews_by(reviewer=user, evaluation=OuterRef("pk"), revision=OuterRef("revision"))
    teams = team_ids_of(user=user, roles=(Role.REVIEWER, Role.ADMIN))
    evaluations = (
        Evaluation.objects.filter(team__in=teams, state=State.IN_REVIEW)
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
    """The latest catalog changes to rows named in decisions of the user's teams (two queries,
    more only when a batch of the slugs × keys superset holds too few);
    a row's creation counts only when it came after the decision."""
    decisions = (
        decisions_of_teams(_my_teams(user))
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
    # One query on the rows' project slugs and keys (a superset: another project's row of the
    # same key), sorted out here, newest first, a batch at a time: not one OR per row, which
    # for a team's hundred decisions was hundreds of terms to build and plan on every home page.
    changes = (
        CatalogChange.objects.filter(
            project_slug__in=sorted({slug for slug, _key in relying}),
            row_key__in=sorted({key for _slug, key in relying}),
        )
        .select_related("actor")
        .order_by("-id")
    )
    watched: list[WatchedChange] = []
    batch = max(limit * 8, 64)
    offset = 0
    while len(watched) < limit:
        chunk = list(changes[offset : offset + batch])
        for change in chunk:
            decision = relying.get((change.project_slug, change.row_key))
            # A row's creation before the decision is how the catalog got it (the initial
            # load), not a change under the decision.
            if decision is None or (
                change.action == ChangeAction.CREATED
                and not change.created_at > decision.decided_at
            ):
                continue
            watched.append(
                WatchedChange(
                    change=change,
                    evaluation=decision.evaluation,
                    after_decision=change.created_at > decision.decided_at,
                    fields=_field_labels(change.changes)[:6] if change.action == "updated" else [],
                )
            )
            if len(watched) == limit:
                break
        if len(chunk) < batch:
            break
        offset += batch
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


@dataclass
class EvaluationHit:
    evaluation: Evaluation
    title: SafeString
    excerpt: SafeString


@dataclass
class DecisionHit:
    decision: Decision
    title: SafeString
    excerpt: SafeString


@dataclass
class SearchResults:
    text: str
    projects: list[ProjectHit]
    rows: list[RowHit]
    evaluations: list[EvaluationHit]
    decisions: list[DecisionHit]

    @property
    def empty(self) -> bool:
        return not (self.projects or self.rows or self.evaluations or self.decisions)

    def as_dict(self) -> dict[str, Any]:
        return {
            "projects": len(self.projects),
            "rows": len(self.rows),
            "evaluations": len(self.evaluations),
            "decisions": len(self.decisions),
        }


def search_for_user(*, user, text: str, limit: int = SEARCH_LIMIT) -> SearchResults:
    """The catalog's projects and rows (catalog.search), and the evaluations and decisions of
    the user's teams, matching `text`; each group best first and capped. Other teams' work
    never shows: their evaluations are filtered out before any text is matched."""
    text = (text or "").strip()[:SEARCH_MAX_LENGTH]
    if not text:
        return SearchResults(text, [], [], [], [])
    catalog = catalog_search(text=text, limit=limit)
    terms = catalog.terms
    evaluations = _evaluations_matching(user=user, terms=terms, limit=limit)
    decisions = _decisions_matching(user=user, terms=terms, limit=limit)
    return SearchResults(
        text=text,
        projects=catalog.projects,
        rows=catalog.rows,
        evaluations=[
            EvaluationHit(
                evaluation=e,
                title=mark_safe(highlight(e.title, terms)),  # noqa: S308 (escaped by highlight)
                excerpt=mark_safe(excerpt(e.search_text or "", terms)),  # noqa: S308
            )
            for e in evaluations
        ],
        decisions=[
            DecisionHit(
                decision=d,
                title=mark_safe(highlight(d.evaluation.title, terms)),  # noqa: S308
                excerpt=mark_safe(excerpt(d.search_text or "", terms)),  # noqa: S308
            )
            for d in decisions
        ],
    )


class _Joined(Aggregate):
    """Texts joined by spaces: string_agg on PostgreSQL, group_concat on SQLite (the demo)."""

    function = "STRING_AGG"
    output_field = TextField()

    def __init__(self, expression, **extra):
        super().__init__(expression, Value(" "), **extra)

    def as_sqlite(self, compiler, connection, **extra_context):
        return super().as_sql(compiler, connection, function="GROUP_CONCAT", **extra_context)


def _evaluations_matching(*, user, terms: SearchTerms, limit: int) -> list[Evaluation]:
    """Evaluations of the user's teams whose title, unit notes or candidates' boundaries (as
    the team wrote them) match; documents built at query time over this small, scoped set."""
    candidates = (
        Candidate.objects.filter(evaluation=OuterRef("pk"))
        .values("evaluation")
        .annotate(
            text=_Joined(Concat("promise", Value(" "), "non_promise", output_field=TextField()))
        )
        .values("text")
    )
    notes = (
        UnitChoice.objects.filter(evaluation=OuterRef("pk"))
        .values("evaluation")
        .annotate(text=_Joined("note"))
        .values("text")
    )
    evaluations = (
        Evaluation.objects.filter(team__in=_my_teams(user))
        .annotate(
            search_text=Concat(
                Coalesce(Subquery(candidates), Value(""), output_field=TextField()),
                Value(" "),
                Coalesce(Subquery(notes), Value(""), output_field=TextField()),
                output_field=TextField(),
            )
        )
        .select_related("team")
        .defer(*UNSHOWN_EVALUATION_FIELDS)
    )
    return _matching(evaluations, terms, title="title", limit=limit, newest="-updated_at")


def _decisions_matching(*, user, terms: SearchTerms, limit: int) -> list[Decision]:
    """Decisions of the user's teams whose rationale, risks, acceptance checks, stack or
    evaluation title match."""
    decisions = (
        decisions_of_teams(_my_teams(user))
        .annotate(
            search_text=Concat(
                "rationale",
                Value(" "),
                "risks",
                Value(" "),
                "acceptance_checks",
                Value(" "),
                Cast("rows", TextField()),
                output_field=TextField(),
            )
        )
        .select_related("evaluation", "evaluation__team")
        .defer(
            *(f"evaluation__{name}" for name in UNSHOWN_EVALUATION_FIELDS),
            *UNSHOWN_DECISION_FIELDS,
        )
    )
    return _matching(decisions, terms, title="evaluation__title", limit=limit, newest="-decided_at")


def _matching(queryset: QuerySet, terms: SearchTerms, *, title: str, limit: int, newest: str):
    """Full-text on PostgreSQL (title weighted above the text), a word match on SQLite."""
    if full_text():
        query = text_query(terms)
        if query is None:
            return []
        document = SearchVector(title, weight="A", config="english") + SearchVector(
            Func(
                F("search_text"),
                Value("/"),
                Value(" "),
                function="translate",
                output_field=TextField(),
            ),
            weight="C",
            config="english",
        )
        return list(
            queryset.annotate(document=document)
            .filter(document=query)
            .annotate(rank=SearchRank(F("document"), query))
            .order_by("-rank", newest)[:limit]
        )
    q = Q()
    for word in (*terms.words, *terms.related, *terms.cjk):
        q |= Q(**{f"{title}__icontains": word}) | Q(search_text__icontains=word)
    return list(queryset.filter(q).order_by(newest)[:limit])
