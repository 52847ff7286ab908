"""Data plane × control plane: can a control plane express a data plane's unit, and how?

METHOD.md's cross-layer question ("can this control plane express that resource unit?") for
every pair of a control-plane row and a data-plane row, with the contract and the gaps.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from fnmatch import fnmatchcase

from catalog.engine.baseline import KUBERNETES_BASELINE
from catalog.engine.oracle import Link, assigners_missing, links_between
from catalog.engine.rows import Row
from catalog.engine.text import Text, _

# What a row that puts quota on resources provides.
QUOTA = "capability:quota"


@dataclass(frozen=True)
class Expressibility:
    control: str
    data: str
    shared_units: tuple[str, ...]
    links: tuple[Link, ...]
    gaps: tuple[str, ...] = field(default_factory=tuple)

    @property
    def expressible(self) -> bool:
        return bool(self.shared_units) and bool(self.links) and not self.gaps

    def to_dict(self) -> dict[str, object]:
        return {
            "control": self.control,
            "data": self.data,
            "expressible": self.expressible,
            "shared_units": list(self.shared_units),
            "links": [link.to_dict() for link in self.links],
            "gaps": list(self.gaps),
        }


def _resource_requires(row: Row) -> list[str]:
    return sorted(
        pattern
        for pattern in row.requires
        if pattern.startswith("resource:")
        and not any(fnmatchcase(base, pattern) for base in KUBERNETES_BASELINE)
    )


def expressibility(control: Row, data: Row) -> Expressibility:
    shared = tuple(sorted(control.resource_units & data.resource_units))
    links = tuple(links_between(data, control) + links_between(control, data))
    gaps = []
    if not shared:
        units = ", ".join(sorted(data.resource_units))
        gaps.append(f"{control.label} governs none of {data.label}'s units ({units})")
    if not links:
        gaps.append(
            f"no contract: {control.label} neither requires nor accepts what {data.label} provides"
        )
    unmet = [
        p for p in _resource_requires(control) if not any(fnmatchcase(i, p) for i in data.provides)
    ]
    if unmet and links:
        gaps.append(
            f"{control.label} also needs {', '.join(unmet)}, which {data.label} does not provide"
        )
    return Expressibility(control.id, data.id, shared, links, tuple(gaps))


def expressibility_table(rows: Sequence[Row]) -> list[Expressibility]:
    """Every (control-plane row, data-plane row) pair, same-project pairs included (HAMi's
    scheduler extender and its device plugin are exactly such a pair)."""
    controls = [row for row in rows if row.layer == "control_plane"]
    datas = [row for row in rows if row.layer == "data_plane"]
    return [expressibility(control, data) for control in controls for data in datas]


@dataclass(frozen=True, slots=True)
class Unexpressed:
    """A quota row that cannot put quota on or place a resource in use, the rows presenting it
    (empty when none of the rows given presents it) and, of those, the ones whose resource only
    another scheduler can assign (they require an `assigner:` the quota row does not provide)."""

    queue: Row
    resource: str
    providers: tuple[Row, ...]
    assigned_elsewhere: tuple[Row, ...] = ()


def unexpressed(present: Sequence[Row], resources: Iterable[str]) -> list[Unexpressed]:
    """Each (quota row, resource) among `present` where the quota row cannot name the resource.

    A resource some present row provides is expressible only through a contract from one of its
    providers to the quota row: a scheduler's wildcard accepts does not bind a resource only
    another scheduler can assign (oracle.wildcard_restricted: HAMi's resources are assigned by
    HAMi's scheduler, HAMi v2.10.0 README). A resource no present row provides is expressible
    when one of the quota row's requires or accepts patterns matches it. One rule for the
    cluster check (catalog.engine.cluster.resources) and the stack check (fit.quota_fit).
    """
    names = sorted(set(resources))
    found = []
    for queue in present:
        if QUOTA not in queue.provides:
            continue
        patterns = queue.accepts | queue.requires
        for resource in names:
            ident = f"resource:{resource}"
            providers = tuple(p for p in present if ident in p.provides and p.id != queue.id)
            if providers:
                expressible = any(
                    link.interface == ident for p in providers for link in links_between(p, queue)
                )
            else:
                expressible = any(fnmatchcase(ident, p) for p in patterns)
            if not expressible:
                elsewhere = tuple(p for p in providers if assigners_missing(p, queue))
                found.append(Unexpressed(queue, resource, providers, elsewhere))
    return found


# How many resource names a sentence lists before it says how many more there are.
_NAMED = 4


def unexpressed_words(
    queue: Row, resources: Sequence[str], assigned_elsewhere: Iterable[Row]
) -> Text:
    """What a quota row cannot do with `resources`, and who alone can assign them, if anyone."""
    labels = sorted({p.label for p in assigned_elsewhere})
    named = ", ".join(resources[:_NAMED])
    if len(resources) > _NAMED:
        named = _("%(named)s and %(count)s more", named=named, count=len(resources) - _NAMED)
    return _(
        "%(queue)s cannot put quota on or place %(resource)s%(by)s",
        queue=queue.label,
        resource=named,
        by=_(
            " (only the scheduler that %(providers)s requires can assign it)",
            providers=", ".join(labels),
        )
        if labels
        else _(" (none of its requires or accepts names it)"),
    )
