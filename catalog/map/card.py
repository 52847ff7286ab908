"""The map's side-panel card: a project's rows, each with its contracts as a list of partners."""

from __future__ import annotations

from dataclasses import dataclass

from catalog.engine.map_focus import RowContract, contracts_of_project, row_contracts
from catalog.models import PlacementRow, Project
from catalog.selectors import engine_rows


@dataclass(frozen=True)
class CardPartner:
    row_id: str
    project: str
    name: str  # "Project name · key"
    interfaces: tuple[str, ...]
    optional: bool


@dataclass(frozen=True)
class CardRow:
    row: PlacementRow
    uses: tuple[CardPartner, ...]
    provides_to: tuple[CardPartner, ...]
    conflicts: tuple[CardPartner, ...]
    contains: tuple[CardPartner, ...] = ()  # what the row ships (issue 43)
    contained_in: tuple[CardPartner, ...] = ()  # what ships it


def project_card(*, project: Project, first: str = "") -> list[CardRow]:
    """The project's rows (the row `first`, a `slug/key` id, leading) with their contracts with
    every catalog row."""
    rows = engine_rows()
    contracts = row_contracts(rows, contracts_of_project(rows, project.slug))
    names = dict(Project.objects.values_list("slug", "name"))

    def partner(contract: RowContract) -> CardPartner:
        slug, _, key = contract.partner.partition("/")
        return CardPartner(
            contract.partner,
            slug,
            f"{names.get(slug, slug)} · {key}",
            contract.interfaces,
            contract.optional,
        )

    out = []
    placements = sorted(
        project.placements.all(), key=lambda row: (row.ref != first, row.key)
    )  # uses the access helper's prefetch
    for placement in placements:
        lines = contracts.get(placement.ref, [])
        out.append(
            CardRow(
                placement,
                tuple(partner(c) for c in lines if c.relation == "uses"),
                tuple(partner(c) for c in lines if c.relation == "provides_to"),
                tuple(partner(c) for c in lines if c.relation == "conflicts"),
                tuple(partner(c) for c in lines if c.relation == "contains"),
                tuple(partner(c) for c in lines if c.relation == "contained_in"),
            )
        )
    return out
