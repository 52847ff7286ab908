"""Catalog search reads: the query's words (catalog.engine.query_words), then on PostgreSQL a
full-text match over the stored documents ranked per thing asked for, rows that carry a named
vocabulary term (a function, a unit…) ranked up, and trigram matching of names for words found
nowhere (typos); on SQLite (the demo) a plain word match ranked in Python."""

from __future__ import annotations

import operator
import re
from dataclasses import dataclass, field
from functools import reduce

from django.contrib.postgres.search import SearchQuery, SearchRank, TrigramWordSimilarity
from django.db import connection
from django.db.models import (
    Case,
    ExpressionWrapper,
    F,
    FloatField,
    Q,
    QuerySet,
    Value,
    When,
)
from django.db.models.functions import Greatest
from django.utils.safestring import SafeString, mark_safe

from catalog.engine.query_words import (
    SearchTerms,
    excerpt,
    glossary_with_labels,
    highlight,
    matches,
)
from catalog.engine.query_words import search_terms as engine_search_terms
from catalog.models import EnforcementPoint, Function, Layer, PlacementRow, Project, ResourceUnit
from catalog.search.models import ProjectSearchDocument

SEARCH_LIMIT = 10
# Rows of the SQLite fallback read before ranking them in Python.
FALLBACK_CANDIDATES = 200
# A word found in no document is taken for a typo: names within this pg_trgm word similarity
# of it match ("volcno" → Volcano is 0.57, while "gang" → "GPU" is 0.2).
TYPO_SIMILARITY = 0.5
# ts_rank normalization 1: divide by 1 + log(document length), so a long description that
# mentions everything once does not outrank a short one about the thing asked for.
RANK_NORMALIZATION = 1
# What a row carrying a vocabulary term the query names (the function `gang` for "gang", a
# sub-GPU unit for "fractional") adds to its rank, per thing asked for: more than any text
# match, as the term is the catalog's own placement of the row.
TERM_BOOST = 0.5
# A project or row the query names outright (its slug, key or name, or one word of a slug or
# key: "mig" names nvidia-mig and the mig-* rows) ranks above every one that only mentions it.
NAME_BOOST = 2.0
# Lexemes given to to_tsquery: letters and digits, `_` and `-` inside (which it reads as a
# phrase, as the documents split identifiers into words).
_LEXEME = re.compile(r"^[0-9a-z][0-9a-z_-]{1,40}$")
_CJK_LEXEME = re.compile(r"^[\u3400-\u9fff]{1,20}$")


@dataclass
class Search:
    """A query's words, and per thing asked for, the vocabulary keys it names by kind."""

    terms: SearchTerms
    keys: list[dict[str, set[str]]] = field(default_factory=list)
    typos: tuple[str, ...] = ()

    @property
    def empty(self) -> bool:
        return self.terms.empty


_VOCABULARY = {
    "layer": Layer,
    "unit": ResourceUnit,
    "point": EnforcementPoint,
    "function": Function,
}


def search_for(text: str) -> Search:
    """What `text` is searched for, with the vocabulary's labels in both languages (one query)."""
    labels = reduce(
        lambda a, b: a.union(b),
        (
            # unordered: SQLite refuses ORDER BY inside a UNION
            model.objects.order_by()
            .annotate(kind=Value(kind))
            .values_list("kind", "key", "name_en", "name_zh")
            for kind, model in _VOCABULARY.items()
        ),
    )
    keys_by_kind: dict[str, set[str]] = {kind: set() for kind in _VOCABULARY}
    keys_by_kind["isolation"] = {"hard"}  # rows hard on memory, compute and fault
    triples = []
    for kind, key, name_en, name_zh in labels:
        keys_by_kind[kind].add(key)
        triples.append((key, name_en, name_zh))
    terms = engine_search_terms(text, glossary_with_labels(triples))
    keys = [
        {kind: {w for w in (word, *related) if w in known} for kind, known in keys_by_kind.items()}
        for word, related in terms.groups
    ]
    return Search(terms=terms, keys=keys)


def full_text() -> bool:
    return connection.vendor == "postgresql"


def _lexemes(words: tuple[str, ...], *, prefix: bool) -> list[str]:
    suffix = ":*" if prefix else ""
    return [f"'{w}'{suffix}" for w in words if _LEXEME.match(w) or _CJK_LEXEME.match(w)]


def _query(lexemes: list[str]) -> SearchQuery | None:
    if not lexemes:
        return None
    return SearchQuery(" | ".join(dict.fromkeys(lexemes)), search_type="raw", config="english")


def text_query(terms: SearchTerms) -> SearchQuery | None:
    """The user's words as prefixes OR the related words whole, for to_tsquery('english')."""
    return _query(
        _lexemes(terms.words, prefix=True)
        + _lexemes(terms.related, prefix=False)
        + _lexemes(terms.cjk, prefix=False)
    )


def _group_queries(terms: SearchTerms) -> list[SearchQuery | None]:
    return [
        _query(_lexemes((word,), prefix=True) + _lexemes(related, prefix=False))
        for word, related in terms.groups
    ]


def _with_typos(search: Search) -> Search:
    """Mark the typed words (4 letters or more) that no project's document holds, one indexed
    look-up each: only those are matched by trigram similarity."""
    typos = tuple(
        word
        for word, related in search.terms.groups
        if len(word) >= 4
        and not related
        and not ProjectSearchDocument.objects.filter(
            document=_query(_lexemes((word,), prefix=True))
        ).exists()
    )
    return Search(terms=search.terms, keys=search.keys, typos=typos)


def _row_has_keys(keys: dict[str, set[str]], prefix: str = "") -> Q | None:
    """Rows (or, through `prefix`, a project's rows) carrying one of the named keys."""
    q = Q()
    if keys["function"]:
        for key in sorted(keys["function"]):
            q |= Q(**{f"{prefix}functions__contains": [key]})
    if keys["unit"]:
        q |= Q(**{f"{prefix}resource_units__key__in": sorted(keys["unit"])})
    if keys["point"]:
        q |= Q(**{f"{prefix}enforcement_points__key__in": sorted(keys["point"])})
    if keys["layer"]:
        q |= Q(**{f"{prefix}layer__key__in": sorted(keys["layer"])})
    if keys["isolation"]:
        q |= Q(
            **{f"{prefix}isolation_{aspect}": "hard" for aspect in ("memory", "compute", "fault")}
        )
    return q if q else None


def _searched(queryset: QuerySet, search: Search, *, name: str, ranked: bool) -> QuerySet:
    """`queryset` (projects or rows, each with a `search` document) narrowed to full-text
    matches or names within a typo of a misspelt word; with `ranked`, annotated with `rank`:
    per thing asked for, its text rank plus TERM_BOOST when the row (a project: any of its
    rows) carries a vocabulary term it names, plus the typo similarity."""
    terms = search.terms
    query = text_query(terms)
    wanted = Q(search__document=query) if query is not None else Q(pk__in=[])
    similarity = None
    if search.typos:
        typed = [TrigramWordSimilarity(Value(w), name) for w in search.typos]
        similarity = Greatest(*typed, output_field=FloatField()) if len(typed) > 1 else typed[0]
        queryset = queryset.annotate(typo=similarity)
        wanted |= Q(typo__gte=TYPO_SIMILARITY)
    queryset = queryset.filter(wanted)
    if not ranked:
        return queryset
    parts = []
    for group_query, keys in zip(_group_queries(terms), search.keys, strict=True):
        if group_query is not None:
            parts.append(
                SearchRank(
                    F("search__document"), group_query, normalization=Value(RANK_NORMALIZATION)
                )
            )
        carried = _row_has_keys(keys)
        if carried is not None:
            # An uncorrelated IN: PostgreSQL reads the carrying rows once (a hashed subplan),
            # not once per matching document.
            column = "project_id" if queryset.model is Project else "pk"
            holds = Q(pk__in=PlacementRow.objects.filter(carried).values(column))
            parts.append(Case(When(holds, then=Value(TERM_BOOST)), default=Value(0.0)))
    named = named_q(search, rows=queryset.model is PlacementRow)
    if named is not None:
        parts.append(Case(When(named, then=Value(NAME_BOOST)), default=Value(0.0)))
    if similarity is not None:
        parts.append(Case(When(typo__gte=TYPO_SIMILARITY, then=F("typo")), default=Value(0.0)))
    if not parts:
        return queryset.annotate(rank=Value(0.0, output_field=FloatField()))
    return queryset.annotate(
        rank=ExpressionWrapper(reduce(operator.add, parts), output_field=FloatField())
    )


def named_q(search: Search, *, rows: bool) -> Q | None:
    """Projects (or rows) the query's typed words name outright: a slug or key equal to a word
    or holding it as one of its dash-separated words, or a name equal to it."""
    q = Q()
    slugs = ("project__slug", "key") if rows else ("slug",)
    names = ("project__name", "component") if rows else ("name",)
    for word in search.terms.words:
        if len(word) < 2:
            continue
        for name in slugs:
            q |= (
                Q(**{f"{name}__iexact": word})
                | Q(**{f"{name}__istartswith": f"{word}-"})
                | Q(**{f"{name}__iendswith": f"-{word}"})
                | Q(**{f"{name}__icontains": f"-{word}-"})
            )
        for name in names:
            q |= Q(**{f"{name}__iexact": word})
    return q if q else None


def _carries(row: PlacementRow, search: Search) -> bool:
    """Whether a row carries a function or unit the query names (SQLite: read in Python)."""
    units = {unit.key for unit in row.resource_units.all()}
    return any(
        set(row.functions or ()) & keys["function"] or units & keys["unit"] for keys in search.keys
    )


def rows_ranked(*, text: str, limit: int) -> list[PlacementRow]:
    """Placement rows for a search as you type (step 3), best first: those the query names
    outright, then those carrying a function or unit it names ("gang scheduling" → the rows
    whose functions list `gang`), then by how well their text matches."""
    search = search_prepared(text)
    if search.empty:
        return []
    rows = PlacementRow.objects.select_related("project", "layer").prefetch_related(
        "resource_units"
    )
    if full_text():
        ranked = _searched(rows, search, name="component", ranked=True)
        return list(ranked.order_by("-rank", "project__name", "key")[:limit])
    candidates = list(
        _rows_fallback(search.terms).prefetch_related("resource_units")[:FALLBACK_CANDIDATES]
    )
    named = named_q(search, rows=True)
    named_ids = (
        set(PlacementRow.objects.filter(named).values_list("pk", flat=True)) if named else set()
    )

    def key(row: PlacementRow) -> tuple:
        shown = f"{row.project.name} {row.component} {row.key}"
        text_of = f"{shown} {row.promise} {row.non_promise}"
        return (
            row.pk not in named_ids,
            not _carries(row, search),
            -matches(shown, search.terms),
            -matches(text_of, search.terms),
        )

    return sorted(candidates, key=key)[:limit]


def _words(terms: SearchTerms) -> tuple[str, ...]:
    return (*terms.words, *terms.related, *terms.cjk)


def _project_text_q(terms: SearchTerms) -> Q:
    """SQLite: any search word in a project's own text or its rows' names, promises and
    functions."""
    q = Q()
    for word in _words(terms):
        q |= (
            Q(name__icontains=word)
            | Q(slug__icontains=word)
            | Q(description__icontains=word)
            | Q(placements__component__icontains=word)
            | Q(placements__promise__icontains=word)
            | Q(placements__functions__icontains=word)
        )
    return q


def search_prepared(text: str) -> Search:
    """`search_for` with the misspelt words found (PostgreSQL): what the filters below take."""
    search = search_for(text)
    return _with_typos(search) if full_text() and not search.empty else search


def projects_matching(
    projects: QuerySet[Project], search: Search, *, ranked: bool = False
) -> QuerySet[Project]:
    """`projects` narrowed to those matching a prepared search (the catalog list's and the
    API's `q`); with `ranked`, best first (by name on SQLite)."""
    if search.empty:
        return projects
    if not full_text():
        matching = projects.filter(_project_text_q(search.terms)).distinct()
        return matching.order_by("name") if ranked else matching
    matching = _searched(projects, search, name="name", ranked=ranked)
    return matching.order_by("-rank", "name") if ranked else matching


@dataclass
class ProjectHit:
    project: Project
    name: SafeString
    excerpt: SafeString


@dataclass
class RowHit:
    row: PlacementRow
    component: SafeString
    excerpt: SafeString
    excerpt_is_non_promise: bool


@dataclass
class CatalogHits:
    terms: SearchTerms
    projects: list[ProjectHit]
    rows: list[RowHit]


def catalog_search(*, text: str, limit: int = SEARCH_LIMIT) -> CatalogHits:
    """Projects and placement rows matching `text`, best first, highlighted."""
    search = search_prepared(text)
    terms = search.terms
    if search.empty:
        return CatalogHits(terms, [], [])
    if full_text():
        projects = list(
            _searched(Project.objects.all(), search, name="name", ranked=True).order_by(
                "-rank", "name"
            )[:limit]
        )
        rows = list(
            _searched(
                PlacementRow.objects.select_related("project", "layer"),
                search,
                name="component",
                ranked=True,
            ).order_by("-rank", "project__name", "key")[:limit]
        )
    else:
        projects = _ranked_in_python(
            Project.objects.filter(_project_text_q(terms)).distinct()[:FALLBACK_CANDIDATES],
            terms,
            lambda p: f"{p.name} {p.slug} {p.description}",
            lambda p: f"{p.name} {p.slug}",
        )[:limit]
        rows = _ranked_in_python(
            _rows_fallback(terms)[:FALLBACK_CANDIDATES],
            terms,
            lambda r: f"{r.project.name} {r.component} {r.key} {r.promise} {r.non_promise}",
            lambda r: f"{r.project.name} {r.component} {r.key}",
        )[:limit]
    return CatalogHits(
        terms=terms,
        projects=[
            ProjectHit(
                project=p,
                name=mark_safe(highlight(p.name, terms)),  # noqa: S308 (escaped by highlight)
                excerpt=mark_safe(excerpt(p.description, terms)),  # noqa: S308
            )
            for p in projects
        ],
        rows=[_row_hit(row, terms) for row in rows],
    )


def _rows_fallback(terms: SearchTerms) -> QuerySet[PlacementRow]:
    q = Q()
    for word in _words(terms):
        q |= (
            Q(component__icontains=word)
            | Q(key__icontains=word)
            | Q(project__name__icontains=word)
            | Q(promise__icontains=word)
            | Q(non_promise__icontains=word)
            | Q(functions__icontains=word)
        )
    return PlacementRow.objects.filter(q).select_related("project", "layer")


def _ranked_in_python(candidates, terms: SearchTerms, text_of, name_of) -> list:
    """The database's matches: those whose name holds the most search words first, then those
    whose shown text does."""
    return sorted(
        candidates,
        key=lambda item: (-matches(name_of(item), terms), -matches(text_of(item), terms)),
    )


def _row_hit(row: PlacementRow, terms: SearchTerms) -> RowHit:
    shown = excerpt(row.promise, terms)
    non_promise = False
    if not shown and row.non_promise:
        shown = excerpt(row.non_promise, terms)
        non_promise = bool(shown)
    return RowHit(
        row=row,
        component=mark_safe(highlight(row.component or row.key, terms)),  # noqa: S308
        excerpt=mark_safe(shown),  # noqa: S308 (escaped by catalog.engine.query_words)
        excerpt_is_non_promise=non_promise,
    )
