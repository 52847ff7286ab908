"""Pairwise verdicts one pair at a time, straight from DESIGN.md: the reference for the matrix.

Two rows are alternatives only when they sit on the same layer, see a common unit other than
`none` and do the same job (a common function). For rows r, s of a pair, in display order:
conflicts (a shared exclusive token) > composes (a provides of one matches a requires/accepts of
the other) > competes (same layer, common unit, common function) > incomparable (same layer,
common function, no common unit) > complements (same layer, different jobs) > independent
(different layers, nothing ties them).

Issue 43 put `contains` first: one row ships the other's project (`contains:SLUG` or
`contains:SLUG/KEY` in its provides: Run:ai packages KAI, the GPU Operator deploys the device
plugin). A part is not compared with its whole, so a contained pair holds none of the layer
verdicts (competes, incomparable, complements, independent); a shared exclusive token and the
contract links still hold beside it, because they say what a second, separate install of the
part would fight over and how the bundled copy is wired.

Issue 27 sharpened three edges. A row that presents no unit (`none` only: an exporter, a
labeller) is never `incomparable`: there is no unit to fix, so a shared job leaves them
complements. A function shared by a consumer and the interface it consumes is not rivalry: a
linked pair is neither `competes` nor `incomparable` but complements (KAI and the DRA core both
allocate claims, one after the other). And two rows of one project that compose are one
component configured both ways (the device plugin time-slicing its own MIG devices): the owner
token they share is theirs jointly, not a conflict.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fnmatch import fnmatchcase
from functools import lru_cache

from catalog.engine.baseline import binds
from catalog.engine.functions import comparable_functions
from catalog.engine.rows import Row
from catalog.engine.text import Text, _, joined
from catalog.engine.words import LAYER_WORDS, function_words, unit_words

# Display order: a cell shows the first verdict that holds. Bit i of a holds flag is VERDICTS[i].
VERDICTS: tuple[str, ...] = (
    "contains",
    "conflicts",
    "composes",
    "competes",
    "incomparable",
    "complements",
    "independent",
)
CONTAINS, CONFLICTS, COMPOSES, COMPETES, INCOMPARABLE, COMPLEMENTS, INDEPENDENT = VERDICTS
NO_UNIT = "none"  # presents no unit: never a common unit
# A row that ships another project (or one of its rows) provides `contains:SLUG` or
# `contains:SLUG/KEY` (docs/interfaces.md).
CONTAINS_KIND = "contains:"
SCHEDULING_POINT = "scheduler"
_GLOB_CHARS = frozenset("*?[")


@dataclass(frozen=True, slots=True)
class Link:
    """One contract between two rows: the provider offers an interface the consumer names."""

    provider: str
    consumer: str
    interface: str
    pattern: str
    relation: str  # "requires" | "accepts"

    def to_dict(self) -> dict[str, str]:
        return {
            "provider": self.provider,
            "consumer": self.consumer,
            "interface": self.interface,
            "pattern": self.pattern,
            "relation": self.relation,
        }


@dataclass(frozen=True, slots=True)
class PairResult:
    """Everything the matrix says about one pair, with the reasons in words."""

    a: str
    b: str
    verdict: str
    holds: tuple[str, ...]
    links: tuple[Link, ...]
    shared_exclusive: tuple[str, ...]
    shared_units: tuple[str, ...]
    same_project: bool
    reasons: tuple[str, ...]
    shared_functions: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, object]:
        return {
            "a": self.a,
            "b": self.b,
            "verdict": self.verdict,
            "holds": list(self.holds),
            "links": [link.to_dict() for link in self.links],
            "shared_exclusive": list(self.shared_exclusive),
            "shared_units": list(self.shared_units),
            "shared_functions": list(self.shared_functions),
            "same_project": self.same_project,
            "reasons": list(self.reasons),
        }


def assigners_missing(provider: Row, consumer: Row) -> frozenset[str]:
    """The `assigner:` contracts `provider` requires that `consumer` does not provide."""
    return frozenset(i for i in provider.requires if i.startswith("assigner:")) - consumer.provides


def wildcard_restricted(provider: Row, consumer: Row) -> bool:
    """A scheduling row's wildcard accepts does not bind resources that only another scheduler
    can assign (the provider requires an assigner the consumer does not provide)."""
    return SCHEDULING_POINT in consumer.enforcement_points and bool(
        assigners_missing(provider, consumer)
    )


def is_pattern(identifier: str) -> bool:
    return not _GLOB_CHARS.isdisjoint(identifier)


@lru_cache(maxsize=1 << 14)
def _offered(project: str, provides: frozenset[str]) -> tuple[str, ...]:
    """What a row's provides can bind (baseline interfaces only from their defining project; a
    `contains:` token says what the row ships, it is no interface to consume)."""
    return tuple(i for i in provides if binds(i, project) and not i.startswith(CONTAINS_KIND))


@lru_cache(maxsize=1 << 14)
def _literal_prefix(pattern: str) -> str:
    return pattern[: next(i for i, c in enumerate(pattern) if c in _GLOB_CHARS)]


def links_between(provider: Row, consumer: Row) -> list[Link]:
    """Every provides of `provider` matched by a requires/accepts pattern of `consumer`."""
    offered = _offered(provider.project, provider.provides)
    if not offered:
        return []
    restricted = wildcard_restricted(provider, consumer)
    links = []
    for relation, patterns in (("requires", consumer.requires), ("accepts", consumer.accepts)):
        for pattern in patterns:
            if not is_pattern(pattern):  # most patterns are literal identifiers
                if pattern in offered:
                    links.append(Link(provider.id, consumer.id, pattern, pattern, relation))
            elif not restricted:
                prefix = _literal_prefix(pattern)
                links.extend(
                    Link(provider.id, consumer.id, interface, pattern, relation)
                    for interface in offered
                    if interface.startswith(prefix) and fnmatchcase(interface, pattern)
                )
    # Sets have no order; sort once so results (and reasons) are reproducible.
    return sorted(
        links, key=lambda link: (link.interface, link.relation != "requires", link.pattern)
    )


def _composes_reason(links: Sequence[Link], labels: dict[str, str]) -> Text:
    parts = []
    for link in links:
        named = "" if link.pattern == link.interface else f" ({link.pattern})"
        parts.append(
            _(
                "%(provider)s provides %(interface)s, which %(consumer)s %(relation)s%(named)s",
                provider=labels[link.provider],
                interface=link.interface,
                consumer=labels[link.consumer],
                relation=_(link.relation),
                named=named,
            )
        )
    return joined("; ", parts)


def contained_names(row: Row) -> frozenset[str]:
    """The projects (`slug`) and rows (`slug/key`) a row says it ships."""
    return frozenset(
        i.removeprefix(CONTAINS_KIND) for i in row.provides if i.startswith(CONTAINS_KIND)
    )


def contains(container: Row, part: Row) -> bool:
    """`container` ships `part` (its project or that very row); never within one project."""
    names = contained_names(container)
    return container.project != part.project and bool(names & {part.project, part.id})


def containment(r: Row, s: Row) -> tuple[Row, Row] | None:
    """(container, part) when one row of the pair ships the other, else None."""
    if contains(r, s):
        return r, s
    if contains(s, r):
        return s, r
    return None


def presents_no_unit(row: Row) -> bool:
    """The row presents no resource unit at all (`none` and nothing else): nothing to compare."""
    return NO_UNIT in row.resource_units and not row.resource_units - {NO_UNIT}


def one_component(r: Row, s: Row, linked: bool) -> bool:
    """Rows of one project that compose: one component configured both ways."""
    return linked and r.project == s.project


def common_units(r: Row, s: Row) -> frozenset[str]:
    return (r.resource_units & s.resource_units) - {NO_UNIT}


def common_functions(r: Row, s: Row) -> frozenset[str]:
    """The jobs both rows do, each compared on what it may be compared on."""
    return comparable_functions(r.layer, r.functions) & comparable_functions(s.layer, s.functions)


def _jobs(row: Row) -> Text:
    jobs = comparable_functions(row.layer, row.functions)
    return function_words(jobs) if jobs else _("no listed job")


def _units(row: Row) -> Text:
    return unit_words(row.resource_units) if row.resource_units else _("no unit listed")


def pair_verdicts(r: Row, s: Row) -> PairResult:
    """The verdicts that hold for rows r and s, in display order, each with its reason."""
    if r.id == s.id:
        raise ValueError(f"a row paired with itself is not a pair: {r.id}")
    labels = {r.id: r.label, s.id: s.label}
    holds: list[str] = []
    reasons: list[str] = []

    shared_exclusive = tuple(sorted(r.exclusive & s.exclusive))
    links = tuple(links_between(r, s) + links_between(s, r))
    whole = containment(r, s)
    if whole is not None:
        container, part = whole
        holds.append(CONTAINS)
        reasons.append(
            _(
                "%(container)s contains %(part)s: it ships its own copy, so they are neither "
                "alternatives nor independent; use the bundled copy, or run %(part)s on its own "
                "without %(container)s — never both as separate installs",
                container=container.label,
                part=part.label,
            )
        )
    if shared_exclusive and not one_component(r, s, bool(links)):
        holds.append(CONFLICTS)
        reasons.append(
            _(
                "both hold the exclusive token %(tokens)s: they cannot run on the same node pool",
                tokens=", ".join(shared_exclusive),
            )
        )

    if links:
        holds.append(COMPOSES)
        reasons.append(_composes_reason(links, labels))

    shared_units = tuple(sorted(common_units(r, s)))
    shared_functions = tuple(sorted(common_functions(r, s)))
    if whole is not None:
        pass  # a part is not compared with its whole: no layer verdict
    elif r.layer == s.layer:
        layer = LAYER_WORDS.get(r.layer, r.layer)
        if shared_functions and links:
            # A consumer and the interface it consumes share the job one after the other.
            holds.append(COMPLEMENTS)
            reasons.append(
                _(
                    "same layer (%(layer)s) and a shared job (%(functions)s), but one consumes "
                    "what the other provides: one chain, not rivals; compare them only through "
                    "contracts",
                    layer=layer,
                    functions=function_words(shared_functions),
                )
            )
        elif shared_functions and shared_units:
            holds.append(COMPETES)
            reasons.append(
                _(
                    "same layer (%(layer)s), a common unit (%(units)s) and the same job "
                    "(%(functions)s): alternatives — compare isolation, overhead, "
                    "observability, reconfiguration cost",
                    layer=layer,
                    units=unit_words(shared_units),
                    functions=function_words(shared_functions),
                )
            )
        elif shared_functions and (presents_no_unit(r) or presents_no_unit(s)):
            holds.append(COMPLEMENTS)
            reasons.append(
                _(
                    "same layer (%(layer)s) and a shared job (%(functions)s), but %(row)s presents "
                    "no resource unit: there is no unit to compare, so they are not alternatives; "
                    "compare them only through contracts",
                    layer=layer,
                    functions=function_words(shared_functions),
                    row=(r if presents_no_unit(r) else s).label,
                )
            )
        elif shared_functions:
            holds.append(INCOMPARABLE)
            reasons.append(
                _(
                    "same layer (%(layer)s) and the same job (%(functions)s) but no common unit "
                    "(%(a)s vs %(b)s): fix a common unit before comparing them",
                    layer=layer,
                    functions=function_words(shared_functions),
                    a=_units(r),
                    b=_units(s),
                )
            )
        else:
            holds.append(COMPLEMENTS)
            reasons.append(
                _(
                    "same layer (%(layer)s), different jobs: %(a)s does %(jobs_a)s, %(b)s does "
                    "%(jobs_b)s — not alternatives; compare them only through contracts",
                    layer=layer,
                    a=r.label,
                    jobs_a=_jobs(r),
                    b=s.label,
                    jobs_b=_jobs(s),
                )
            )
    elif not holds:
        # DESIGN: "different layers, no contract between them: they can coexist". A link is a
        # contract, and a shared exclusive token means they cannot coexist on one pool, so
        # either one rules `independent` out.
        holds.append(INDEPENDENT)
        reasons.append(
            _(
                "different layers (%(a)s, %(b)s) and no contract between them: they can coexist; "
                "comparing them head-on is a category error",
                a=LAYER_WORDS.get(r.layer, r.layer),
                b=LAYER_WORDS.get(s.layer, s.layer),
            )
        )

    return PairResult(
        a=r.id,
        b=s.id,
        verdict=holds[0],
        holds=tuple(holds),
        links=links,
        shared_exclusive=shared_exclusive,
        shared_units=shared_units,
        same_project=r.project == s.project,
        reasons=tuple(reasons),
        shared_functions=shared_functions,
    )


def matrix_oracle(rows: Sequence[Row]) -> list[PairResult]:
    """Every pair i < j, in row-major order of the upper triangle."""
    return [
        pair_verdicts(rows[i], rows[j]) for i in range(len(rows)) for j in range(i + 1, len(rows))
    ]
