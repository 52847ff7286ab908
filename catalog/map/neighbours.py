"""Rows one contract away from a project, found in SQL through the interfaces (issue 41 H1).

The map's neighbourhood of a project is read off the compatibility matrix of the whole catalog,
which a catalog of many thousand rows cannot afford per request. The interfaces table answers
the same question for a handful of rows at once: which rows provide what the project's rows
require or accept, which require or accept what they provide, and which ship them or are
shipped by them. The answer is a superset (the rule that a scheduler's wildcard does not bind a
resource another scheduler must assign is left to the engine); pages load these rows alone and
let the engine decide on them.
"""

from __future__ import annotations

from dataclasses import dataclass
from fnmatch import fnmatchcase

from django.db.models import Q

from catalog.engine.baseline import binds
from catalog.engine.oracle import CONTAINS_KIND, is_pattern
from catalog.models import Interface, PlacementInterface, PlacementRow, Relation

PATTERNED = (Relation.REQUIRES, Relation.ACCEPTS)


@dataclass(frozen=True)
class Neighbourhood:
    anchors: frozenset[int]  # the named project's (or row's) rows
    rows: frozenset[int]  # the anchors and every row that may be one contract away


def anchor_rows(anchor: str):
    """`anchor` (a project slug or a `project/key` id) as a queryset of its rows."""
    slug, _, key = anchor.partition("/")
    rows = PlacementRow.objects.filter(project__slug=slug)
    return rows.filter(key=key) if key else rows


def _matches(identifier: str, offered: set[str]) -> bool:
    """Whether the requires/accepts entry `identifier` (literal or glob) binds one of `offered`."""
    if not is_pattern(identifier):
        return identifier in offered
    return any(fnmatchcase(interface, identifier) for interface in offered)


def neighbourhood_rows(*, anchor: str, conflicts: bool = False) -> Neighbourhood:
    """The anchor's rows and every row that may compose with one of them (either way) or ship
    or be shipped by one (with `conflicts`, or hold one of their exclusive tokens): a fixed
    number of queries, one pass over the distinct interfaces."""
    anchors = dict(anchor_rows(anchor).values_list("id", "project__slug"))
    if not anchors:
        return Neighbourhood(frozenset(), frozenset())
    offered: set[str] = set()
    wanted: set[str] = set()
    shipped: set[str] = set()
    tokens: set[int] = set()
    for row_id, relation, identifier, interface_id in PlacementInterface.objects.filter(
        row_id__in=anchors
    ).values_list("row_id", "relation", "interface__identifier", "interface_id"):
        if relation == Relation.EXCLUSIVE:
            tokens.add(interface_id)
        elif relation == Relation.PROVIDES and identifier.startswith(CONTAINS_KIND):
            shipped.add(identifier.removeprefix(CONTAINS_KIND))
        elif relation == Relation.PROVIDES and binds(identifier, anchors[row_id]):
            offered.add(identifier)
        elif relation in PATTERNED:
            wanted.add(identifier)
    refs = set(anchor_rows(anchor).values_list("project__slug", "key"))
    ships_us = {f"{CONTAINS_KIND}{slug}" for slug, _ in refs}
    ships_us |= {f"{CONTAINS_KIND}{slug}/{key}" for slug, key in refs}
    consumed, provided, containers = [], [], []
    for pk, identifier in Interface.objects.values_list("id", "identifier").iterator(5000):
        if identifier in ships_us:
            containers.append(pk)
        elif _matches(identifier, offered):
            consumed.append(pk)
        if wanted and any(_matches(pattern, {identifier}) for pattern in wanted):
            provided.append(pk)
    found = set(anchors)
    related = Q(relation__in=PATTERNED, interface_id__in=consumed) | Q(
        relation=Relation.PROVIDES, interface_id__in=provided + containers
    )
    if conflicts and tokens:
        related |= Q(relation=Relation.EXCLUSIVE, interface_id__in=tokens)
    for row_id, slug, identifier, relation in PlacementInterface.objects.filter(
        related
    ).values_list("row_id", "row__project__slug", "interface__identifier", "relation"):
        if relation != Relation.PROVIDES or identifier in ships_us or binds(identifier, slug):
            found.add(row_id)
    if shipped:
        slugs = {name for name in shipped if "/" not in name}
        named = [name.partition("/") for name in shipped if "/" in name]
        query = Q(project__slug__in=slugs)
        for slug, _, key in named:
            query |= Q(project__slug=slug, key=key)
        found.update(PlacementRow.objects.filter(query).values_list("id", flat=True))
    return Neighbourhood(frozenset(anchors), frozenset(found))
