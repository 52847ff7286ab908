"""The comparison of an evaluation's candidates, following the verdict rule (DESIGN.md):
conflicts first, then side-by-side tables of rows that compete, then one line per project pair
for everything else (compose, complement, or coexist)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from itertools import combinations

from catalog.engine.functions import comparable_functions
from catalog.engine.oracle import (
    COMPETES,
    COMPLEMENTS,
    COMPOSES,
    CONFLICTS,
    CONTAINS,
    INCOMPARABLE,
    INDEPENDENT,
    NO_UNIT,
    Link,
    PairResult,
    pair_verdicts,
)
from catalog.engine.rows import LAYERS, Row
from catalog.engine.text import Text, _, joined
from catalog.engine.words import FUNCTION_WORDS, LAYER_WORDS, UNIT_WORDS, words


@dataclass(frozen=True)
class CompeteGroup:
    """Rows that are alternatives to each other: one layer, common jobs and units."""

    layer: str
    functions: tuple[str, ...]
    units: tuple[str, ...]
    rows: tuple[str, ...]

    @property
    def title(self) -> Text:
        return _(
            "%(layer)s · %(functions)s · %(units)s",
            layer=LAYER_WORDS.get(self.layer, self.layer),
            functions=words(FUNCTION_WORDS, self.functions),
            units=words(UNIT_WORDS, self.units),
        )


@dataclass(frozen=True)
class Conflict:
    """Two candidates that cannot share a node pool, and the pools of the decision they break."""

    a: str
    b: str
    tokens: tuple[str, ...]
    pools: tuple[str, ...]
    message: Text


@dataclass(frozen=True)
class ProjectPair:
    """Everything between two candidate projects that is not a competition, on one line."""

    projects: tuple[str, str]
    verdict: str  # contains | composes | incomparable | complements | independent
    links: tuple[Link, ...]
    rows: tuple[tuple[str, str], ...]
    summary: Text


@dataclass
class ComparisonFacts:
    conflicts: list[Conflict] = field(default_factory=list)
    groups: list[CompeteGroup] = field(default_factory=list)
    pairs: list[ProjectPair] = field(default_factory=list)
    alone: list[str] = field(default_factory=list)  # rows with no alternative among candidates

    @property
    def containing(self) -> list[ProjectPair]:
        """One project ships the other (issue 43)."""
        return [pair for pair in self.pairs if pair.verdict == CONTAINS]

    @property
    def composing(self) -> list[ProjectPair]:
        return [pair for pair in self.pairs if pair.verdict == COMPOSES]

    @property
    def incomparable(self) -> list[ProjectPair]:
        return [pair for pair in self.pairs if pair.verdict == INCOMPARABLE]

    @property
    def complementing(self) -> list[ProjectPair]:
        return [pair for pair in self.pairs if pair.verdict == COMPLEMENTS]

    @property
    def independent(self) -> list[ProjectPair]:
        return [pair for pair in self.pairs if pair.verdict == INDEPENDENT]


def compete_groups(rows: Sequence[Row]) -> list[CompeteGroup]:
    """One table per set of rows that compete on a layer, each row once per table.

    Rows are keyed by (layer, function, unit) on what they may be compared on (a governing row
    never joins a device-placement table); keys with the same members become one table naming
    every job and unit they share; a table whose members all sit in a larger one is dropped.
    """
    members: dict[tuple[str, str, str], set[str]] = {}
    for row in rows:
        for function in comparable_functions(row.layer, row.functions):
            for unit in row.resource_units - {NO_UNIT}:
                members.setdefault((row.layer, function, unit), set()).add(row.id)
    merged: dict[tuple[str, frozenset[str]], tuple[set[str], set[str]]] = {}
    for (layer, function, unit), ids in members.items():
        if len(ids) < 2:
            continue
        functions, units = merged.setdefault((layer, frozenset(ids)), (set(), set()))
        functions.add(function)
        units.add(unit)
    keys = list(merged)
    kept = [
        (layer, ids)
        for layer, ids in keys
        if not any(other_layer == layer and ids < other for other_layer, other in keys)
    ]
    groups = [
        CompeteGroup(
            layer=layer,
            functions=tuple(sorted(merged[(layer, ids)][0])),
            units=tuple(sorted(merged[(layer, ids)][1])),
            rows=tuple(sorted(ids)),
        )
        for layer, ids in kept
    ]
    return sorted(groups, key=lambda g: (LAYERS.index(g.layer), g.functions, g.rows))


def _conflict(result: PairResult, labels: Mapping[str, str], pools: tuple[str, ...]) -> Conflict:
    tokens = ", ".join(result.shared_exclusive)
    if pools:
        message = _(
            "%(a)s and %(b)s cannot run on the same node pool (%(tokens)s): the decided pool "
            "%(pools)s holds both",
            a=labels[result.a],
            b=labels[result.b],
            tokens=tokens,
            pools=", ".join(pools),
        )
    else:
        message = _(
            "%(a)s and %(b)s cannot run on the same node pool (%(tokens)s): a stack that uses "
            "both must put them in separate pools",
            a=labels[result.a],
            b=labels[result.b],
            tokens=tokens,
        )
    return Conflict(result.a, result.b, result.shared_exclusive, pools, message)


def _project_summary(
    names: tuple[str, str], verdict: str, links: Sequence[Link], rows: Mapping[str, Row]
) -> Text:
    first, second = names
    if verdict == CONTAINS:
        return _(
            "one of %(a)s and %(b)s ships the other: use the bundled copy, or the contained "
            "project on its own without the other, never both as separate installs",
            a=first,
            b=second,
        )
    if verdict == COMPOSES:
        directions: dict[tuple[str, str, str], list[str]] = {}
        for link in links:
            key = (rows[link.provider].label, rows[link.consumer].label, link.relation)
            directions.setdefault(key, []).append(link.interface)
        sentences = [
            _(
                "%(provider)s provides %(what)s, which %(consumer)s %(relation)s",
                provider=provider,
                what=_listed(sorted(set(interfaces))),
                consumer=consumer,
                relation=_(relation),
            )
            for (provider, consumer, relation), interfaces in sorted(directions.items())
        ]
        count = len({link.interface for link in links})
        return _(
            "%(a)s and %(b)s compose through %(count)s interface(s): %(how)s",
            a=first,
            b=second,
            count=count,
            how=joined("; ", sentences[:2] + ([_("…")] if len(sentences) > 2 else [])),
        )
    if verdict == INCOMPARABLE:
        return _(
            "%(a)s and %(b)s do the same job on one layer but present different units: fix a "
            "common unit before comparing them",
            a=first,
            b=second,
        )
    if verdict == COMPLEMENTS:
        return _(
            "%(a)s and %(b)s do different jobs on the same layer: not alternatives; compare them "
            "only through contracts",
            a=first,
            b=second,
        )
    return _(
        "%(a)s and %(b)s sit on different layers with no contract between them: they coexist; "
        "comparing them head-on is a category error",
        a=first,
        b=second,
    )


def _listed(items: Sequence[str], keep: int = 2) -> Text:
    items = list(items)
    if len(items) > keep:
        return _(
            "%(items)s and %(count)s more", items=", ".join(items[:keep]), count=len(items) - keep
        )
    return joined(", ", items)


def compare(
    rows: Sequence[Row],
    *,
    project_names: Mapping[str, str] | None = None,
    pools: Mapping[str, Sequence[str]] | None = None,
) -> ComparisonFacts:
    """The comparison page's facts for these candidate rows (and the decided pools, if any)."""
    rows = sorted({row.id: row for row in rows}.values(), key=lambda row: row.id)
    by_id = {row.id: row for row in rows}
    labels = {row.id: row.label for row in rows}
    names = dict(project_names or {})
    facts = ComparisonFacts(groups=compete_groups(rows))
    grouped = {row_id for group in facts.groups for row_id in group.rows}
    per_project: dict[tuple[str, str], list[PairResult]] = {}
    for a, b in combinations(rows, 2):
        result = pair_verdicts(a, b)
        # The rule's conflict, not any shared token: two modes of one component that compose
        # (time-slicing the device plugin's own MIG devices) share its owner token jointly.
        if CONFLICTS in result.holds:
            holding = tuple(
                sorted(
                    pool
                    for pool, members in (pools or {}).items()
                    if a.id in members and b.id in members
                )
            )
            facts.conflicts.append(_conflict(result, labels, holding))
        if a.project == b.project or COMPETES in result.holds:
            continue
        per_project.setdefault(tuple(sorted((a.project, b.project))), []).append(result)
    for (first, second), results in sorted(per_project.items()):
        links = tuple(link for result in results for link in result.links)
        holds = {verdict for result in results for verdict in result.holds}
        verdict = next(
            (v for v in (CONTAINS, COMPOSES, INCOMPARABLE, COMPLEMENTS) if v in holds),
            INDEPENDENT,
        )
        facts.pairs.append(
            ProjectPair(
                projects=(first, second),
                verdict=verdict,
                links=links,
                rows=tuple((result.a, result.b) for result in results),
                summary=_project_summary(
                    (names.get(first, first), names.get(second, second)), verdict, links, by_id
                ),
            )
        )
    facts.alone = [row.id for row in rows if row.id not in grouped]
    return facts
