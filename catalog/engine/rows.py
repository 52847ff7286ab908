"""Placement rows as the engines see them: immutable, hashable, built from a bundle or the ORM."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from types import MappingProxyType
from typing import Any

from catalog.engine.functions import infer_functions

# The engines branch on these values, so they are fixed here; the rest of the vocabulary (units,
# enforcement points) is admin-editable and only ever compared for equality.
LAYERS: tuple[str, ...] = ("data_plane", "control_plane", "platform")
ISOLATION_ASPECTS: tuple[str, ...] = ("memory", "compute", "fault")
ISOLATION_LEVELS: tuple[str, ...] = ("hard", "soft", "none")
# The GPU vendors a row may declare it serves (a fixed list: a recommender filters on it, so an
# AMD fleet is never offered the NVIDIA device plugin). A row that lists none serves any vendor.
GPU_VENDORS: tuple[str, ...] = ("nvidia", "amd", "intel", "huawei")


def _frozen(values: Iterable[str]) -> frozenset[str]:
    # A bare string would otherwise be split into characters.
    if isinstance(values, str):
        return frozenset((values,))
    return frozenset(values)


def _isolation(values: Mapping[str, str] | None) -> Mapping[str, str]:
    return _isolation_of(tuple(sorted((values or {}).items())))


@lru_cache(maxsize=256)
def _isolation_of(items: tuple[tuple[str, str], ...]) -> Mapping[str, str]:
    """One read-only mapping per distinct isolation (27 at most), shared by every row."""
    values = dict(items)
    merged = dict.fromkeys(ISOLATION_ASPECTS, "none")
    for aspect, level in (values or {}).items():
        if aspect not in ISOLATION_ASPECTS:
            raise ValueError(
                f"unknown isolation aspect {aspect!r}; allowed: {', '.join(ISOLATION_ASPECTS)}"
            )
        if level not in ISOLATION_LEVELS:
            raise ValueError(
                f"unknown isolation level {level!r} for {aspect}; "
                f"allowed: {', '.join(ISOLATION_LEVELS)}"
            )
        merged[aspect] = level
    return MappingProxyType(merged)


def _vendors(values: Iterable[str]) -> frozenset[str]:
    vendors = _frozen(values)
    unknown = sorted(vendors - set(GPU_VENDORS))
    if unknown:
        raise ValueError(f"unknown GPU vendor {unknown[0]!r}; allowed: {', '.join(GPU_VENDORS)}")
    return vendors


@dataclass(frozen=True, slots=True)
class Row:
    """One placement row: a project component placed on the map, with its interface contracts."""

    id: str
    project: str
    key: str
    layer: str
    resource_units: frozenset[str] = frozenset()
    enforcement_points: frozenset[str] = frozenset()
    provides: frozenset[str] = frozenset()
    requires: frozenset[str] = frozenset()
    accepts: frozenset[str] = frozenset()
    exclusive: frozenset[str] = frozenset()
    signals: frozenset[str] = frozenset()
    functions: frozenset[str] = frozenset()
    # The GPU vendors the row serves (GPU_VENDORS); empty means vendor-neutral (any GPUs).
    vendors: frozenset[str] = frozenset()
    # Excluded from hashing: a mapping is not hashable, and the id already identifies the row.
    isolation: Mapping[str, str] = field(default_factory=dict, hash=False)
    name: str = field(default="", compare=False)
    # What the row's claims were verified for (a range or list, "" = not stated) and, per
    # interface, the project versions it appeared in or went with ({"since": v, "until": v}).
    versions: str = field(default="", compare=False)
    contract_versions: Mapping[str, Mapping[str, str]] = field(
        default_factory=dict, hash=False, compare=False
    )

    def __post_init__(self) -> None:
        if self.layer not in LAYERS:
            raise ValueError(f"unknown layer {self.layer!r}; allowed: {', '.join(LAYERS)}")
        # Callers may pass lists; normalising here keeps every engine on set semantics.
        for name in (
            "resource_units",
            "enforcement_points",
            "provides",
            "requires",
            "accepts",
            "exclusive",
            "signals",
            "functions",
        ):
            object.__setattr__(self, name, _frozen(getattr(self, name)))
        object.__setattr__(self, "vendors", _vendors(self.vendors))
        object.__setattr__(self, "isolation", _isolation(self.isolation))

    @classmethod
    def create(cls, project: str, key: str, layer: str, **fields: Any) -> Row:
        """Build a row whose id is the stable `project/key`."""
        return cls(id=row_id(project, key), project=project, key=key, layer=layer, **fields)

    def serves(self, vendor: str | None) -> bool:
        """Whether the row serves GPUs of `vendor`: always when no vendor is asked about or the row
        names none (vendor-neutral), else only when the vendor is one of the row's."""
        return vendor is None or not self.vendors or vendor in self.vendors

    @property
    def label(self) -> str:
        """How reasons name the row: its display name, else its id."""
        return self.name or self.id


def row_id(project: str, key: str) -> str:
    return f"{project}/{key}"


def row_from_bundle(
    project_slug: str, placement: Mapping[str, Any], *, project_name: str = ""
) -> Row:
    """Build a Row from one placement of an `ecomap.bundle/v1` project (already schema-valid)."""
    key = placement["key"]
    return Row(
        id=row_id(project_slug, key),
        project=project_slug,
        key=key,
        layer=placement["layer"],
        resource_units=_frozen(placement.get("resource_units", ())),
        enforcement_points=_frozen(placement.get("enforcement_points", ())),
        provides=_frozen(placement.get("provides", ())),
        requires=_frozen(placement.get("requires", ())),
        accepts=_frozen(placement.get("accepts", ())),
        exclusive=_frozen(placement.get("exclusive", ())),
        signals=_frozen(placement.get("signals", ())),
        functions=_frozen(placement.get("functions") or _inferred_functions(placement)),
        vendors=_frozen(placement.get("vendors") or ()),
        isolation=placement.get("isolation") or {},
        name=f"{project_name} {key}" if project_name else "",
        versions=placement.get("versions") or "",
        contract_versions=placement.get("contract_versions") or {},
    )


def _inferred_functions(placement: Mapping[str, Any]) -> list[str]:
    return infer_functions(
        layer=placement["layer"],
        enforcement_points=placement.get("enforcement_points", ()),
        provides=placement.get("provides", ()),
        resource_units=placement.get("resource_units", ()),
    )
