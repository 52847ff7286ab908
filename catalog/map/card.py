"""The map's side-panel card: a project's rows, each with its contracts as a list of partners."""

from __future__ import annotations

from dataclasses import dataclass

from django.conf import settings

from catalog.engine.map_focus import RowContract, contracts_of_project, row_contracts
from catalog.engine.rows import Row
from catalog.map.neighbours import neighbourhood_rows
from catalog.models import PlacementRow, Project
from catalog.selectors import engine_rows

# A row's card lists this many partners per relation at most; the rest are counted (issue 41 H1:
# a device plugin's card in a 30,000-row catalog listed thousands of consumers, 1.5 MB).
CARD_PARTNERS_UP_TO = 25


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
    unlisted: int = 0  # partners past CARD_PARTNERS_UP_TO per relation, not listed


@dataclass(frozen=True)
class Card:
    rows: list[CardRow]
    # Past CATALOG_PAGE_MAX_ROWS catalog rows: how many rows may bind to the project, of which
    # the card related it to the first `related` only.
    candidates: int = 0
    related: int = 0

    def __iter__(self):
        return iter(self.rows)

    def __len__(self) -> int:
        return len(self.rows)


def _card_rows(slug: str) -> tuple[list[Row], int, int]:
    """The rows to relate the project to: the whole catalog up to CATALOG_PAGE_MAX_ROWS rows,
    past it the project's rows and that many of the rows that may bind to them."""
    limit = settings.CATALOG_PAGE_MAX_ROWS
    if PlacementRow.objects.count() <= limit:
        return engine_rows(), 0, 0
    near = neighbourhood_rows(anchor=slug, conflicts=True)
    others = sorted(near.rows - near.anchors)
    chosen = set(near.anchors) | set(others[:limit])
    return engine_rows(rows=PlacementRow.objects.filter(pk__in=chosen)), len(others), limit


def project_card(*, project: Project, first: str = "") -> Card:
    """The project's rows (the row `first`, a `slug/key` id, leading) with their contracts with
    every catalog row (in a catalog too big for that, with the rows that may bind to it, up to
    CATALOG_PAGE_MAX_ROWS of them)."""
    rows, candidates, limit = _card_rows(project.slug)
    contracts = row_contracts(rows, contracts_of_project(rows, project.slug))
    names = dict(
        Project.objects.filter(slug__in={row.project for row in rows}).values_list("slug", "name")
    )

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
        by_relation = {
            relation: [c for c in lines if c.relation == relation]
            for relation in ("uses", "provides_to", "conflicts", "contains", "contained_in")
        }
        listed = {
            relation: tuple(partner(c) for c in found[:CARD_PARTNERS_UP_TO])
            for relation, found in by_relation.items()
        }
        out.append(
            CardRow(
                placement,
                listed["uses"],
                listed["provides_to"],
                listed["conflicts"],
                listed["contains"],
                listed["contained_in"],
                unlisted=sum(
                    max(0, len(found) - CARD_PARTNERS_UP_TO) for found in by_relation.values()
                ),
            )
        )
    return Card(out, candidates=candidates, related=min(candidates, limit) if limit else 0)
