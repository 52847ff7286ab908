"""Misjudgements among candidates put up as alternatives (METHOD: 组合≠竞品)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from catalog.engine.functions import comparable_functions
from catalog.engine.oracle import (
    COMPLEMENTS,
    CONFLICTS,
    INCOMPARABLE,
    Link,
    pair_verdicts,
    presents_no_unit,
)
from catalog.engine.rows import LAYERS, Row
from catalog.engine.text import _, joined
from catalog.engine.words import FUNCTION_WORDS, LAYER_WORDS, words

CROSS_LAYER = "cross_layer"
PLATFORM_AS_MECHANISM = "platform_as_mechanism"
NO_COMMON_UNIT = "no_common_unit"
DIFFERENT_JOBS = "different_jobs"
KINDS: tuple[str, ...] = (CROSS_LAYER, PLATFORM_AS_MECHANISM, DIFFERENT_JOBS, NO_COMMON_UNIT)

LAYER_NAMES = LAYER_WORDS


@dataclass(frozen=True, slots=True)
class Misjudgement:
    """Candidates that should not be compared head-on, and what to compare instead."""

    kind: str
    rows: tuple[str, ...]
    message: str
    links: tuple[Link, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "rows": list(self.rows),
            "message": self.message,
            "links": [link.to_dict() for link in self.links],
        }


def _named(row: Row) -> str:
    return _("%(row)s (%(layer)s)", row=row.label, layer=LAYER_NAMES[row.layer])


def _listed(items: Sequence[str], keep: int = 4) -> str:
    # Past a handful the list stops being read; the full set travels in `links`.
    items = list(items)
    if len(items) > keep:
        items = [*items[: keep - 1], _("%(count)s more", count=len(items) - keep + 1)]
    if len(items) <= 1:
        return "".join(items)
    return _("%(items)s and %(last)s", items=joined(", ", items[:-1]), last=items[-1])


def _link_sentences(links: Sequence[Link], labels: dict[str, str]) -> list[str]:
    """One sentence per provider → consumer direction and relation, interfaces sorted."""
    grouped: dict[tuple[str, str, str], list[str]] = {}
    for link in links:
        grouped.setdefault((link.provider, link.consumer, link.relation), []).append(link.interface)
    return [
        _(
            "%(provider)s provides %(interfaces)s, which %(consumer)s %(relation)s",
            provider=labels[provider],
            interfaces=_listed(sorted(set(interfaces))),
            consumer=labels[consumer],
            relation=_(relation),
        )
        for (provider, consumer, relation), interfaces in sorted(grouped.items())
    ]


def _cross_layer(a: Row, b: Row) -> Misjudgement:
    lower, upper = sorted((a, b), key=lambda r: LAYERS.index(r.layer))
    result = pair_verdicts(lower, upper)
    head = _("%(a)s and %(b)s are not competitors", a=_named(lower), b=_named(upper))
    if result.links:
        labels = {lower.id: lower.label, upper.id: upper.label}
        message = _(
            "%(head)s — they compose through interface contracts: %(links)s. Compare them only "
            "through that contract: can the control plane express the data plane's unit, and "
            "does the data plane give the signals the control plane's policies need?",
            head=head,
            links=joined("; ", _link_sentences(result.links, labels)),
        )
    else:
        message = _(
            "%(head)s — no contract ties them: they can coexist; compare them only through "
            "interface contracts",
            head=head,
        )
    if CONFLICTS in result.holds:
        message = _(
            "%(message)s; note they cannot share a node pool (%(tokens)s)",
            message=message,
            tokens=", ".join(result.shared_exclusive),
        )
    return Misjudgement(CROSS_LAYER, (lower.id, upper.id), message, result.links)


def _platform_as_mechanism(platform: Row, mechanisms: Sequence[Row]) -> Misjudgement:
    relies = [
        _("requires %(ids)s", ids=", ".join(sorted(platform.requires)))
        if platform.requires
        else "",
        _("accepts %(ids)s", ids=", ".join(sorted(platform.accepts))) if platform.accepts else "",
    ]
    relies_on = joined("; ", [part for part in relies if part]) or _(
        "it declares no requires or accepts, so ask its vendor which mechanisms it runs on"
    )
    links = tuple(link for m in mechanisms for link in pair_verdicts(platform, m).links)
    labels = {r.id: r.label for r in (platform, *mechanisms)}
    if links:
        among = _(
            "Among the candidates, %(links)s",
            links=joined("; ", _link_sentences(links, labels)),
        )
    else:
        among = _(
            "None of the other candidates provides or uses these: evaluate the mechanisms it "
            "relies on on their own layer"
        )
    message = _(
        "%(platform)s is not a substitute for a mechanism: decompose which data-plane and "
        "control-plane capabilities it relies on: %(relies_on)s. %(among)s",
        platform=_named(platform),
        relies_on=relies_on,
        among=among,
    )
    rows = (platform.id, *(m.id for m in mechanisms))
    return Misjudgement(PLATFORM_AS_MECHANISM, rows, message, links)


def _no_common_unit(a: Row, b: Row) -> Misjudgement:
    result = pair_verdicts(a, b)

    def units(row: Row) -> str:
        return ", ".join(sorted(row.resource_units)) or _("no unit listed")

    message = _(
        "%(a)s and %(b)s are both %(layer)s but present disjoint units (%(units_a)s vs "
        "%(units_b)s): compare only after fixing a common unit",
        a=a.label,
        b=b.label,
        layer=LAYER_NAMES[a.layer],
        units_a=units(a),
        units_b=units(b),
    )
    if {a.resource_units, b.resource_units} & {frozenset(), frozenset({"none"})}:
        # A row that presents no unit (an exporter, a labeller) is never the other's alternative.
        message = _(
            "%(message)s; one of them presents no resource unit, so it is no alternative at all",
            message=message,
        )
    return Misjudgement(NO_COMMON_UNIT, (a.id, b.id), message, result.links)


def _different_jobs(a: Row, b: Row) -> Misjudgement:
    result = pair_verdicts(a, b)

    def jobs(row: Row) -> str:
        return words(FUNCTION_WORDS, comparable_functions(row.layer, row.functions))

    shared = comparable_functions(a.layer, a.functions) & comparable_functions(b.layer, b.functions)
    if shared and result.links:
        # The same job, but one consumes what the other provides: one chain, not rivals.
        message = _(
            "%(a)s and %(b)s are both %(layer)s and share a job (%(jobs)s), but one consumes "
            "what the other provides: they work together, not instead of each other; compare "
            "them only through their contracts",
            a=a.label,
            b=b.label,
            layer=LAYER_NAMES[a.layer],
            jobs=words(FUNCTION_WORDS, shared),
        )
    elif shared and (presents_no_unit(a) or presents_no_unit(b)):
        message = _(
            "%(a)s and %(b)s are both %(layer)s and share a job (%(jobs)s), but %(row)s "
            "presents no resource unit: nothing to compare, so no alternative; compare them "
            "only through their contracts",
            a=a.label,
            b=b.label,
            layer=LAYER_NAMES[a.layer],
            jobs=words(FUNCTION_WORDS, shared),
            row=(a if presents_no_unit(a) else b).label,
        )
    else:
        message = _(
            "%(a)s and %(b)s are both %(layer)s but do different jobs (%(jobs_a)s vs "
            "%(jobs_b)s): they are not alternatives; compare them only through their contracts",
            a=a.label,
            b=b.label,
            layer=LAYER_NAMES[a.layer],
            jobs_a=jobs(a),
            jobs_b=jobs(b),
        )
    return Misjudgement(DIFFERENT_JOBS, (a.id, b.id), message, result.links)


def misjudgements(rows: Sequence[Row]) -> list[Misjudgement]:
    """What goes wrong if these candidates are compared as alternatives (METHOD: 组合≠竞品)."""
    candidates = sorted({r.id: r for r in rows}.values(), key=lambda r: r.id)
    found: list[Misjudgement] = []
    for i, a in enumerate(candidates):
        for b in candidates[i + 1 :]:
            if a.project == b.project:
                continue  # two components of one project are parts, never alternatives
            if a.layer == b.layer:
                # Same layer, same job and a common unit is a fair comparison.
                holds = pair_verdicts(a, b).holds
                if INCOMPARABLE in holds:
                    found.append(_no_common_unit(a, b))
                elif COMPLEMENTS in holds:
                    found.append(_different_jobs(a, b))
            elif "platform" not in (a.layer, b.layer):
                found.append(_cross_layer(a, b))
    mechanisms = [r for r in candidates if r.layer != "platform"]
    if mechanisms:
        found.extend(
            _platform_as_mechanism(r, mechanisms) for r in candidates if r.layer == "platform"
        )
    return sorted(found, key=lambda m: (KINDS.index(m.kind), m.rows))
