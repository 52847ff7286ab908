"""The map's data as a table (rows × contracts): the list beside the figure, the phone view and
the CSV download all read it, so they always say what the figure draws."""

from __future__ import annotations

import csv
import io
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from django.utils.translation import gettext as _

from catalog.engine.map_focus import RowContract, row_contracts
from catalog.map.draw import MapView, RowDetail, _names, _title

# The page lists at most this many rows; the CSV has them all.
TABLE_ROWS_UP_TO = 300


@dataclass(frozen=True)
class PartnerLine:
    row_id: str
    project: str
    name: str  # "Project · key", readable
    interfaces: tuple[str, ...]
    optional: bool


@dataclass(frozen=True)
class TableRow:
    row_id: str
    project: str
    project_name: str
    title: str
    layer: str
    layer_key: str
    units: str
    points: str
    pool: str
    uses: tuple[PartnerLine, ...]
    provides_to: tuple[PartnerLine, ...]
    conflicts: tuple[PartnerLine, ...]
    contains: tuple[PartnerLine, ...] = ()  # what the row ships (issue 43)
    contained_in: tuple[PartnerLine, ...] = ()  # what ships it


def _partner(view: MapView, contract: RowContract) -> PartnerLine:
    project = contract.partner.partition("/")[0]
    detail = view.catalog.details.get(contract.partner, RowDetail())
    key = contract.partner.partition("/")[2]
    return PartnerLine(
        contract.partner,
        project,
        f"{detail.project_name or project} · {key}",
        contract.interfaces,
        contract.optional,
    )


def map_table(view: MapView) -> list[TableRow]:
    """One line per row on the map and node pool it is in (a row in two pools has two), with
    its contracts to the other rows on it (and its conflicts when the map draws them), in the
    figure's order: by layer, then project name, then pool."""
    catalog = view.catalog
    contracts = row_contracts(view.shown, view.contracts)
    layer_order = {key: i for i, key in enumerate(("platform", "control_plane", "data_plane"))}
    out = []
    for row in view.shown:
        detail = catalog.details.get(row.id, RowDetail())
        lines = contracts.get(row.id, [])
        pools = view.row_pools.get(row.id) or (view.pools.get(row.id, ""),)
        out.extend(
            TableRow(
                row_id=row.id,
                project=row.project,
                project_name=detail.project_name or row.project,
                title=_title(row, detail),
                layer=catalog.layers.get(row.layer, row.layer),
                layer_key=row.layer,
                units=", ".join(_names(row.resource_units, catalog.units)),
                points=", ".join(_names(row.enforcement_points, catalog.points)),
                pool=pool,
                uses=tuple(_partner(view, c) for c in lines if c.relation == "uses"),
                provides_to=tuple(_partner(view, c) for c in lines if c.relation == "provides_to"),
                conflicts=tuple(_partner(view, c) for c in lines if c.relation == "conflicts")
                if view.conflicts_drawn
                else (),
                contains=tuple(_partner(view, c) for c in lines if c.relation == "contains"),
                contained_in=tuple(
                    _partner(view, c) for c in lines if c.relation == "contained_in"
                ),
            )
            for pool in pools
        )
    out.sort(
        key=lambda item: (
            layer_order.get(item.layer_key, 9),
            item.project_name.lower(),
            item.row_id,
            item.pool,
        )
    )
    return out


CSV_HEADER = (
    "row", "project", "component", "layer", "resource_units", "pool", "relation", "partner_row",
    "interfaces", "optional",
)  # fmt: skip


def csv_line(values: Sequence[str]) -> str:
    """One CSV line (cells a spreadsheet will not run as formulas are the caller's)."""
    buffer = io.StringIO()
    csv.writer(buffer).writerow(values)
    return buffer.getvalue()


def map_csv_lines(view: MapView) -> Iterator[str]:
    """The table as CSV lines: one per row and contract (a row without any has one line)."""
    yield csv_line(CSV_HEADER)
    for item in map_table(view):
        head = [item.row_id, item.project_name, item.title, item.layer_key, item.units, item.pool]
        lines = [
            (relation, partner)
            for relation, partners in (
                ("uses", item.uses),
                ("provides_to", item.provides_to),
                ("conflicts", item.conflicts),
                ("contains", item.contains),
                ("contained_in", item.contained_in),
            )
            for partner in partners
        ]
        if not lines:
            yield csv_line([*(safe_cell(v) for v in head), "", "", "", ""])
        for relation, partner in lines:
            yield csv_line(
                [*(safe_cell(v) for v in head), relation, partner.row_id,
                 " ".join(partner.interfaces), "yes" if partner.optional else ""]
            )  # fmt: skip


def map_csv(view: MapView) -> str:
    """The table as CSV: one line per row and contract (a row without any has one line)."""
    return "".join(map_csv_lines(view))


def safe_cell(value: str) -> str:
    """A cell a spreadsheet will not run as a formula (catalog text comes from vendors)."""
    return "'" + value if value[:1] in ("=", "+", "-", "@", "\t", "\r") else value


def table_caption(view: MapView) -> str:
    return _("%(shown)s placement rows and their contracts") % {"shown": len(view.shown)}
