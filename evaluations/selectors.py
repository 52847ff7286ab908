"""Evaluation reads: the access helper, lists, the steps' catalog context, comparison, stacks."""

from __future__ import annotations

import hashlib
import json
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, fields
from typing import Any

from django.core.cache import cache
from django.db.models import Case, Count, F, Prefetch, Q, QuerySet, Value, When
from django.http import Http404

from catalog.engine.map_focus import map_focus_query
from catalog.engine.profile import Profile
from catalog.engine.rows import Row
from catalog.engine.stack import StackReport, check_stack
from catalog.engine.units import ASPECTS as ISOLATION_ASPECTS
from catalog.engine.units import LEVELS as ISOLATION_LEVELS
from catalog.engine.units import unit_isolation
from catalog.models import PlacementRow, ResourceUnit
from catalog.search.selectors import rows_ranked
from catalog.selectors import (
    catalog_cache_key,
    catalog_revision,
    catalog_revision_for_pages,
    engine_rows,
    recommendable_rows,
)
from evaluations.audit.selectors import review_round_started
from evaluations.models import Candidate, Evaluation
from evaluations.teams.choices import ROLE_RANK
from evaluations.teams.selectors import role_of

# ---------------------------------------------------------------------------------------------
# Access


def evaluation_get_for_user(*, user, pk: int, with_decision: bool = False) -> Evaluation:
    """The evaluation if the user is in its team, with `user_role` set; else Http404.

    Another team's evaluation and a missing one look the same, so ids leak nothing.
    `with_decision` reads its decision (or that it has none) in the same query, for pages that
    show the progress bar.
    """
    if not getattr(user, "is_authenticated", False):
        raise Http404("No such evaluation")
    try:
        pk = int(pk)
    except (TypeError, ValueError):
        raise Http404("No such evaluation") from None  # /evaluations/abc/ is just not found
    evaluation = (
        Evaluation.objects.filter(pk=pk, team__memberships__user=user)
        .select_related("team", "created_by", *(("decision",) if with_decision else ()))
        .annotate(user_role=F("team__memberships__role"))
        .first()
    )
    if evaluation is None:
        raise Http404("No such evaluation")
    return evaluation


def user_role_in(evaluation: Evaluation, user) -> str | None:
    """The user's role in the evaluation's team (from the access helper's annotation if any)."""
    role = getattr(evaluation, "user_role", None)
    if role is not None:
        return role
    return role_of(team_id=evaluation.team_id, user=user)


def role_allows(role: str | None, needed: str) -> bool:
    return role is not None and ROLE_RANK[role] >= ROLE_RANK[needed]


def evaluations_for_user(*, user, state: str = "") -> QuerySet[Evaluation]:
    """The evaluations of the user's teams, with what the list shows, in a fixed query count."""
    evaluations = (
        Evaluation.objects.filter(team__memberships__user=user)
        .select_related("team", "created_by")
        .annotate(
            user_role=F("team__memberships__role"),
            candidate_count=Count("candidates", distinct=True),
        )
        .order_by("-updated_at", "-id")
    )
    if state:
        evaluations = evaluations.filter(state=state)
    return evaluations


# ---------------------------------------------------------------------------------------------
# Steps


def placement_rows_by_ref(refs: Iterable[str]) -> dict[str, PlacementRow]:
    """Catalog rows named `project/key`, in one query; unknown refs are simply absent."""
    query = Q()
    for ref in set(refs):
        slug, _, key = ref.partition("/")
        query |= Q(project__slug=slug, key=key)
    if not query:
        return {}
    rows = PlacementRow.objects.filter(query).select_related("project", "layer")
    return {row.ref: row for row in rows.prefetch_related("enforcement_points")}


# The candidates' catalog rows without their contracts, per catalog revision and set of rows:
# step 3 and the comparison show them on every view.
CANDIDATE_ROWS_SECONDS = 600


def candidates_of(
    evaluation: Evaluation,
    *,
    with_contracts: bool = True,
    with_points: bool = True,
    revision: int | None = None,
) -> list[Candidate]:
    """The evaluation's candidates with their rows as cards show them; `with_contracts=False`
    leaves out the rows' interface identifiers (step 3 and the comparison table show none) and
    reads those rows from the cache of the catalog `revision` (read now if not given);
    `with_points=False` leaves out the enforcement points each candidate confirmed."""
    if with_contracts:
        rows = PlacementRow.objects.with_cards()
        return list(
            evaluation.candidates.prefetch_related(
                "enforcement_points", Prefetch("row", queryset=rows)
            )
        )
    candidates = evaluation.candidates.all()
    candidates = list(
        candidates.prefetch_related("enforcement_points") if with_points else candidates
    )
    ids = sorted({candidate.row_id for candidate in candidates})
    if not ids:
        return candidates
    key = catalog_cache_key("candidate-rows:v1", ids, revision=revision)
    rows = cache.get(key)
    if rows is None:
        rows = list(
            PlacementRow.objects.filter(id__in=ids)
            .select_related("project", "layer")
            .prefetch_related("resource_units", "enforcement_points")
        )
        cache.set(key, rows, CANDIDATE_ROWS_SECONDS)
    by_id = {row.id: row for row in rows}
    for candidate in candidates:
        candidate.row = by_id[candidate.row_id]
    return candidates


@dataclass
class UnitImplication:
    """What choosing a resource unit implies, from the vocabulary and the catalog rows of it."""

    unit: ResourceUnit
    rows: int = 0
    # Per aspect, the best isolation this unit gives as any data-plane row presenting it gives
    # it (catalog.engine.units.unit_isolation): a row's stronger unit never lends it more.
    isolation_ceiling: dict[str, str] = field(default_factory=dict)
    reconfiguration: list[str] = field(default_factory=list)  # cost levels seen, low → high
    projects: list[str] = field(default_factory=list)


_COST_ORDER = {"low": 0, "medium": 1, "high": 2}


def unit_implications() -> list[UnitImplication]:
    """Every resource unit with its catalog evidence, in two queries."""
    units = {unit.pk: UnitImplication(unit=unit) for unit in ResourceUnit.objects.all()}
    through = PlacementRow.resource_units.through.objects.values_list(
        "resourceunit_id",
        "placementrow__layer__key",
        "placementrow__isolation_memory",
        "placementrow__isolation_compute",
        "placementrow__isolation_fault",
        "placementrow__cost_reconfiguration",
        "placementrow__project__name",
    )
    for unit_id, layer, memory, compute, fault, reconfiguration, project in through:
        implication = units[unit_id]
        implication.rows += 1
        if project not in implication.projects:
            implication.projects.append(project)
        if reconfiguration and reconfiguration not in implication.reconfiguration:
            implication.reconfiguration.append(reconfiguration)
        if layer == "data_plane":
            promised = {"memory": memory, "compute": compute, "fault": fault}
            given = unit_isolation(implication.unit.key, promised)
            for aspect, level in given.items():
                best = implication.isolation_ceiling.get(aspect, "none")
                if ISOLATION_LEVELS[level] > ISOLATION_LEVELS[best]:
                    implication.isolation_ceiling[aspect] = level
    for implication in units.values():
        implication.reconfiguration.sort(key=_COST_ORDER.__getitem__)
        implication.projects.sort()
        for aspect in ISOLATION_ASPECTS:
            implication.isolation_ceiling.setdefault(aspect, "none")
    return list(units.values())


# Step 3's search as you type shows a screenful; a longer list asks for a sharper query.
ROW_SEARCH_LIMIT = 25


def placement_search(
    *, text: str, limit: int = ROW_SEARCH_LIMIT
) -> tuple[list[PlacementRow], bool]:
    """Catalog rows matching step 3's search as you type (the project's name, slug, vendor or
    description, the row's key, component or promise), and whether more match than shown."""
    text = text.strip()
    if not text:
        return [], False
    named = Q(project__name__icontains=text) | Q(project__slug__icontains=text)
    matches = (
        PlacementRow.objects.filter(
            named
            | Q(project__vendor__icontains=text)
            | Q(project__description__icontains=text)
            | Q(key__icontains=text)
            | Q(component__icontains=text)
            | Q(promise__icontains=text)
        )
        # The project named so comes before those that only mention it.
        .annotate(named=Case(When(named, then=Value(0)), default=Value(1)))
        .select_related("project", "layer")
        .prefetch_related("resource_units")
        .order_by("named", "project__name", "key")
    )
    # Best first: rows the query names outright ("mig" → the MIG rows), then rows carrying a
    # function it names ("gang scheduling" → gang-capable schedulers), then the ones that
    # only mention it.
    ranked = rows_ranked(text=text, limit=limit + 1)
    seen = {row.pk for row in ranked}
    rows = ranked + [row for row in matches[: limit + 1] if row.pk not in seen]
    return rows[:limit], len(rows) > limit


# ---------------------------------------------------------------------------------------------
# Comparison, recommendations, decision


# The candidates' rows as the engines read them, per catalog revision and set of rows: the
# comparison, the report and the recommendations read the same few rows on every view.
ENGINE_ROWS_SECONDS = 600


def candidate_engine_rows(
    candidates: Sequence[Candidate], *, revision: int | None = None
) -> list[Row]:
    ids = sorted({candidate.row_id for candidate in candidates})
    if not ids:
        return []
    key = catalog_cache_key("candidate-engine-rows:v1", ids, revision=revision)
    stored = cache.get(key)
    if stored is None:
        rows = engine_rows(rows=PlacementRow.objects.filter(id__in=ids))
        # A Row's isolation is a read-only mapping, which pickle refuses: kept as a dict.
        stored = [
            {f.name: getattr(row, f.name) for f in fields(Row)} | {"isolation": dict(row.isolation)}
            for row in rows
        ]
        cache.set(key, stored, ENGINE_ROWS_SECONDS)
        return rows
    return [Row(**row) for row in stored]


@dataclass
class Comparison:
    """What the comparison page and the report show: conflicts among the candidates, a table
    per set of rows that compete, one line per project pair for the rest, and the
    misjudgements in what the team put up as alternatives."""

    candidates: list[Candidate]
    facts: Any  # evaluations.engine.comparison.ComparisonFacts
    groups: list[dict[str, Any]]
    alone: list[Candidate]
    misjudgements: list[Any]
    alternative_groups: dict[str, list[str]]


def comparison_for(evaluation: Evaluation, *, with_contracts: bool = True) -> Comparison:
    """`with_contracts=False` for the page, whose table names no interface identifiers."""
    from evaluations.engine.comparison import compare
    from evaluations.engine.misjudge import misjudgements

    revision = catalog_revision_for_pages()
    candidates = candidates_of(evaluation, with_contracts=with_contracts, revision=revision)
    rows = candidate_engine_rows(candidates, revision=revision)
    by_id = {row.id: row for row in rows}
    candidate_by_ref = {candidate.row.ref: candidate for candidate in candidates}
    decision = getattr(evaluation, "decision", None)
    facts = compare(
        rows,
        project_names={c.row.project.slug: c.row.project.name for c in candidates},
        pools=(decision.pools or None) if decision else None,
    )
    groups = [
        {
            "group": group,
            "candidates": [candidate_by_ref[i] for i in group.rows if i in candidate_by_ref],
            "signals": {i: sorted(by_id[i].signals) for i in group.rows if i in by_id},
        }
        for group in facts.groups
    ]
    alternatives: dict[str, list[str]] = defaultdict(list)
    for candidate in candidates:
        if candidate.alternative_group:
            alternatives[candidate.alternative_group].append(candidate.row.ref)
    warnings = []
    for ids in alternatives.values():
        warnings.extend(misjudgements([by_id[i] for i in ids if i in by_id]))
    return Comparison(
        candidates=candidates,
        facts=facts,
        groups=groups,
        alone=[candidate_by_ref[i] for i in facts.alone if i in candidate_by_ref],
        misjudgements=warnings,
        alternative_groups=dict(alternatives),
    )


# The API's longest list: every shorter one is its head, so one ranking serves them all.
RECOMMENDATIONS_CACHED = 20
# The key changes with the profile and the catalog; the timeout only bounds stale entries.
RECOMMENDATIONS_TIMEOUT = 24 * 3600
INCOMPLETE_TIMEOUT = 10 * 60


def recommendations_cache_key(profile: Profile, revision: int) -> str:
    """Where the ranking of `profile` against catalog `revision` is cached."""
    from evaluations.engine.recommend import RANKING_VERSION

    data = json.dumps(profile.to_dict(), sort_keys=True, separators=(",", ":"))
    digest = hashlib.sha256(data.encode()).hexdigest()[:32]
    return f"evaluations:recommendations:v{RANKING_VERSION}:{revision}:{digest}"


def recommendations_for(*, evaluation: Evaluation, limit: int = 5) -> Any:
    """Ranked candidate stacks from the whole catalog for the evaluation's step-1 profile.

    Ranked once per (profile, catalog revision) and cached, so the page, the adopt action, the
    API and the report read the same ranking and a viewer's GET never searches again. The
    result is a `Ranking` (a list of `Recommendation`, best first) whose `note` says whether
    the search budget stopped the search.
    """
    from evaluations.engine.recommend import Ranking, recommend

    profile = evaluation.engine_profile()
    key = recommendations_cache_key(profile, catalog_revision())
    ranking = cache.get(key)
    if not isinstance(ranking, Ranking):
        ranking = recommend(profile, recommendable_rows(), limit=RECOMMENDATIONS_CACHED)
        # A search the budget stopped may have been stopped by its deadline on a busy machine:
        # keep it for minutes, not a day, so a quieter moment can rank further.
        timeout = RECOMMENDATIONS_TIMEOUT if ranking.complete else INCOMPLETE_TIMEOUT
        cache.set(key, ranking, timeout)
    return ranking.head(limit)


def decision_report(evaluation: Evaluation) -> StackReport | None:
    """The stack check of the decided stack against the profile (None before a decision)."""
    decision = getattr(evaluation, "decision", None)
    if decision is None or not decision.rows:
        return None
    rows = engine_rows(rows=PlacementRow.objects.filter(_refs_query(decision.rows)))
    known = {row.id for row in rows}
    pools = {
        name: [ref for ref in refs if ref in known] for name, refs in (decision.pools or {}).items()
    }
    profile = _profile_or_none(evaluation)
    groups = {group.name: group for group in profile.node_groups} if profile else {}
    placed = {
        name: groups[group].model
        for name, group in (decision.pool_node_groups or {}).items()
        if group in groups and name in pools
    }
    return check_stack(
        rows,
        pools or None,
        profile,
        tenant_sharing=decision.pool_tenant_sharing or {},
        # Each pool judged against its node group's GPU model, where the decision says it.
        pool_models=placed if placed and len(placed) == len(pools) else None,
    )


def _refs_query(refs: Iterable[str]) -> Q:
    query = Q(pk__in=[])
    for ref in refs:
        slug, _, key = ref.partition("/")
        query |= Q(project__slug=slug, key=key)
    return query


def _profile_or_none(evaluation: Evaluation) -> Profile | None:
    try:
        return evaluation.engine_profile()
    except ValueError:
        return None


def decision_focus_query(evaluation: Evaluation) -> str:
    """The map's and matrix's focus on the decided stack with its node pools ("" if none)."""
    decision = getattr(evaluation, "decision", None)
    if decision is None or not decision.rows:
        return ""
    return map_focus_query(rows=decision.rows, pools=decision.pools or {})


def decision_rows(evaluation: Evaluation) -> list[PlacementRow]:
    decision = getattr(evaluation, "decision", None)
    if decision is None or not decision.rows:
        return []
    rows = {
        row.ref: row
        for row in PlacementRow.objects.filter(_refs_query(decision.rows)).select_related(
            "project", "layer"
        )
    }
    return [rows[ref] for ref in decision.rows if ref in rows]


def failure_modes_of(refs: Iterable[str]) -> list[str]:
    """The chosen rows' typical failure modes, as a risks pre-fill (`project/key: mode`)."""
    rows = PlacementRow.objects.filter(_refs_query(list(refs))).select_related("project")
    return [f"{row.ref}: {mode}" for row in rows for mode in row.failure_modes]


def reviews_for(evaluation: Evaluation) -> QuerySet:
    return evaluation.reviews.select_related("reviewer")


def candidates_as_data(candidates: list[Candidate]) -> list[dict[str, Any]]:
    """The stored candidates in the step-3 input shape (to add or remove one)."""
    return [
        {
            "row": candidate.row.ref,
            "enforcement_points": [point.key for point in candidate.enforcement_points.all()],
            "points_confirmed": candidate.points_confirmed,
            "alternative_group": candidate.alternative_group,
        }
        for candidate in candidates
    ]


def review_requests_this_round(evaluation: Evaluation) -> QuerySet:
    """The review requests made since the last submission: those of an earlier round (before
    changes were requested) are not carried over."""
    requests = evaluation.review_requests.all()
    started = review_round_started(evaluation)
    return requests.filter(created_at__gte=started) if started is not None else requests


def reviewers_asked(evaluation: Evaluation) -> set[int]:
    """The assigned reviewers of the current round: those asked for a review since it began."""
    return set(review_requests_this_round(evaluation).values_list("reviewer_id", flat=True))
