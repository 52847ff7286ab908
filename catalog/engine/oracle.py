"""Pairwise verdicts one pair at a time, straight from DESIGN.md: the reference for the matrix."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fnmatch import fnmatchcase

from catalog.engine.baseline import KUBERNETES_BASELINE
from catalog.engine.rows import Row

# Display order: a cell shows the first verdict that holds. Bit i of a holds flag is VERDICTS[i].
VERDICTS: tuple[str, ...] = ("conflicts", "composes", "competes", "incomparable", "independent")
CONFLICTS, COMPOSES, COMPETES, INCOMPARABLE, INDEPENDENT = VERDICTS


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

    def to_dict(self) -> dict[str, object]:
        return {
            "a": self.a,
            "b": self.b,
            "verdict": self.verdict,
            "holds": list(self.holds),
            "links": [link.to_dict() for link in self.links],
            "shared_exclusive": list(self.shared_exclusive),
            "shared_units": list(self.shared_units),
            "same_project": self.same_project,
            "reasons": list(self.reasons),
        }


def links_between(provider: Row, consumer: Row) -> list[Link]:
    """Every provides of `provider` matched by a requires/accepts pattern of `consumer`."""
    links = [
        Link(provider.id, consumer.id, interface, pattern, relation)
        for relation, patterns in (("requires", consumer.requires), ("accepts", consumer.accepts))
        for pattern in patterns
        for interface in provider.provides
        # The cluster already offers baseline interfaces, so providing one again binds nothing.
        if interface not in KUBERNETES_BASELINE and fnmatchcase(interface, pattern)
    ]
    # Sets have no order; sort once so results (and reasons) are reproducible.
    return sorted(
        links, key=lambda link: (link.interface, link.relation != "requires", link.pattern)
    )


def _composes_reason(links: Sequence[Link], labels: dict[str, str]) -> str:
    parts = []
    for link in links:
        named = "" if link.pattern == link.interface else f" ({link.pattern})"
        parts.append(
            f"{labels[link.provider]} provides {link.interface}, "
            f"which {labels[link.consumer]} {link.relation}{named}"
        )
    return "; ".join(parts)


def _units(units: frozenset[str]) -> str:
    return ", ".join(sorted(units)) or "no unit listed"


def pair_verdicts(r: Row, s: Row) -> PairResult:
    """The verdicts that hold for rows r and s, in display order, each with its reason."""
    labels = {r.id: r.label, s.id: s.label}
    holds: list[str] = []
    reasons: list[str] = []

    shared_exclusive = tuple(sorted(r.exclusive & s.exclusive))
    if shared_exclusive:
        plural = "s" if len(shared_exclusive) > 1 else ""
        holds.append(CONFLICTS)
        reasons.append(
            f"both hold the exclusive token{plural} {', '.join(shared_exclusive)}: "
            "they cannot run on the same node pool"
        )

    links = tuple(links_between(r, s) + links_between(s, r))
    if links:
        holds.append(COMPOSES)
        reasons.append(_composes_reason(links, labels))

    shared_units = tuple(sorted(r.resource_units & s.resource_units))
    if r.layer == s.layer:
        if shared_units:
            holds.append(COMPETES)
            reasons.append(
                f"same layer ({r.layer}) and overlapping resource units: "
                f"{', '.join(shared_units)} — alternatives; compare isolation, overhead, "
                "observability, reconfiguration cost"
            )
        else:
            holds.append(INCOMPARABLE)
            reasons.append(
                f"same layer ({r.layer}), disjoint units ({_units(r.resource_units)} vs "
                f"{_units(s.resource_units)}): compare them only after fixing a common unit"
            )
    elif not holds:
        # DESIGN: "different layers, no contract between them: they can coexist". A link is a
        # contract, and a shared exclusive token means they cannot coexist on one pool, so
        # either one rules `independent` out.
        holds.append(INDEPENDENT)
        reasons.append(
            f"different layers ({r.layer}, {s.layer}) and no contract between them: "
            "they can coexist; comparing them head-on is a category error"
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
    )


def matrix_oracle(rows: Sequence[Row]) -> list[PairResult]:
    """Every pair i < j, in row-major order of the upper triangle."""
    return [
        pair_verdicts(rows[i], rows[j]) for i in range(len(rows)) for j in range(i + 1, len(rows))
    ]
