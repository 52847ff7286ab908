"""Data plane × control plane: can a control plane express a data plane's unit, and how?

METHOD.md's cross-layer question ("can this control plane express that resource unit?") for
every pair of a control-plane row and a data-plane row, with the contract and the gaps.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from fnmatch import fnmatchcase

from catalog.engine.baseline import KUBERNETES_BASELINE
from catalog.engine.oracle import Link, links_between
from catalog.engine.rows import Row


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
