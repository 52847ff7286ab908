"""The three-layer map's geometry: placement rows to positions in bands, contracts to edge paths."""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from catalog.engine.compatibility import (
    COMPOSES_BIT,
    CONFLICTS_BIT,
    CONTAINS_BIT,
    MatrixResult,
    MatrixTooLarge,
    compute_matrix,
)
from catalog.engine.oracle import Link, containment, links_between
from catalog.engine.rows import Row

# Bottom to top: band i spans y in [i, i + 1], so the platform sits on top as in METHOD.md.
BANDS: tuple[str, ...] = ("data_plane", "control_plane", "platform")
# The part of a band's height the lanes use; the rest keeps nodes clear of the boundaries.
_BAND_FILL = 0.6
# Where the lanes' middle sits in a band: above its middle, since labels hang below the nodes.
_LANES_CENTRE = 0.58
# Horizontal space left between two unit columns, in grid columns.
_COLUMN_GAP = 0.5
# Edges inside one band are drawn as arcs sampled at this many segments, so they do not run
# straight through the nodes between their ends.
_ARC_SEGMENTS = 10

EdgeKind = str  # "composes" | "conflicts" | "project"


@dataclass(frozen=True, slots=True)
class Node:
    row_id: str
    project: str
    layer: str
    unit: str  # the column the row sits in: its coarsest unit in vocabulary order
    point: str  # its first enforcement point in vocabulary order, which sets its marker
    x: float
    y: float


@dataclass(frozen=True, slots=True)
class Edge:
    """A line between two nodes: a contract (provider → consumer), a conflict or a project tie."""

    kind: EdgeKind
    source: str
    target: str
    # composes: the interfaces the source provides to the target; conflicts: the shared tokens.
    labels: tuple[str, ...]
    relation: str  # composes: "requires" when any link is a hard dependency, else "accepts"
    xs: tuple[float, ...]
    ys: tuple[float, ...]
    # A bundle of contracts between two projects, drawn once between its busiest pair of rows:
    # the (provider, consumer) row pairs it stands for.
    pairs: tuple[tuple[str, str], ...] = ()

    @property
    def count(self) -> int:
        return len(self.pairs) or 1


@dataclass(frozen=True, slots=True)
class Column:
    unit: str
    x0: float
    x1: float

    @property
    def centre(self) -> float:
        return (self.x0 + self.x1) / 2


@dataclass(frozen=True)
class MapLayout:
    nodes: tuple[Node, ...]
    edges: tuple[Edge, ...]
    columns: tuple[Column, ...]
    lanes: int
    width: float
    hidden_edges: int  # contracts and conflicts left out to keep the figure readable and light
    bundled: bool = False  # one composes edge per pair of projects

    def node(self, row_id: str) -> Node:
        return self._by_id[row_id]

    @property
    def _by_id(self) -> dict[str, Node]:
        # Built on demand; layouts are short-lived and looked up a few times each.
        return {node.row_id: node for node in self.nodes}


# A catalog whose rows relate in more pairs than this is drawn without composes/conflict edges:
# the matrix behind them would not fit a web process (issue 28 H1).
CONTRACT_MAX_PAIRS = 20_000_000


@dataclass(frozen=True)
class Contracts:
    """What ties rows together on the map: composes links, conflicting pairs and (issue 43) which
    row ships which."""

    links: tuple[Link, ...]
    conflicts: tuple[tuple[str, str, tuple[str, ...]], ...]  # (row a, row b, shared tokens)
    containments: tuple[tuple[str, str], ...] = ()  # (container row, contained row)


def catalog_contracts(
    rows: Sequence[Row], *, matrix: MatrixResult | None = None, limit: int | None = None
) -> Contracts:
    """The engine's composes links and conflicts among `rows`, read off the compatibility matrix.

    `limit` caps the pairs explained per verdict: a catalog of thousands of rows can compose in
    hundreds of thousands of pairs, and only a readable few are ever drawn.
    """
    if not rows:
        return Contracts((), ())
    if matrix is None:
        try:
            matrix = compute_matrix(rows, max_pairs=CONTRACT_MAX_PAIRS)
        except MatrixTooLarge:
            return Contracts((), ())  # a map without edges, not an exhausted process
    links: list[Link] = []
    for i, j in _pairs(matrix, COMPOSES_BIT, limit):
        links += links_between(rows[i], rows[j]) + links_between(rows[j], rows[i])
    conflicts = [
        (rows[i].id, rows[j].id, tuple(sorted(rows[i].exclusive & rows[j].exclusive)))
        for i, j in _pairs(matrix, CONFLICTS_BIT, limit)
    ]
    wholes = (containment(rows[i], rows[j]) for i, j in _pairs(matrix, CONTAINS_BIT, limit))
    contained = tuple((whole.id, part.id) for whole, part in (w for w in wholes if w))
    return Contracts(tuple(links), tuple(conflicts), contained)


def _pairs(matrix: MatrixResult, bit: int, limit: int | None) -> Iterable[tuple[int, int]]:
    """Pairs i < j whose flag has `bit`, in row-major order, read off the stored (sparse)
    pairs: a pair not stored is `independent` and has neither composes nor conflicts."""
    found_i: list[np.ndarray] = []
    found_j: list[np.ndarray] = []
    left = limit
    for i, j, flags in matrix.stored_chunks():
        hit = (flags & bit) != 0
        ii, jj = i[hit], j[hit]
        if left is not None:
            ii, jj = ii[:left], jj[:left]
            left -= len(ii)
        found_i.append(ii)
        found_j.append(jj)
        if left == 0:
            break
    if not found_i:
        return []
    return zip(np.concatenate(found_i).tolist(), np.concatenate(found_j).tolist(), strict=True)


def _rank(values: Iterable[str], order: dict[str, int]) -> list[str]:
    return sorted(values, key=lambda value: (order.get(value, len(order)), value))


def choose_lanes(
    cell_sizes: dict[tuple[str, str], int], units: Sequence[str], aspect: float
) -> int:
    """The fewest lanes per band whose grid is at most `aspect` times wider than it is tall."""
    biggest = max(cell_sizes.values(), default=1)
    for lanes in range(1, biggest + 1):
        width = sum(
            max((math.ceil(cell_sizes.get((band, unit), 0) / lanes) for band in BANDS), default=0)
            for unit in units
        )
        if width <= aspect * lanes * len(BANDS):
            return lanes
    return biggest


def layout_map(
    rows: Sequence[Row],
    *,
    contracts: Contracts = Contracts((), ()),
    unit_order: Sequence[str] = (),
    point_order: Sequence[str] = (),
    aspect: float = 1.6,
    max_edges: int = 1500,
    straight: bool | None = None,
    visible: Iterable[str] | None = None,
    bundle: bool = False,
    conflicts: bool = True,
    project_ties: bool = True,
) -> MapLayout:
    """Place every row in its layer's band, columns by resource unit, lanes by enforcement point.

    Rows that share their coarsest unit share a column in every band, so what competes sits
    together and a control plane sits above the data planes whose units it governs. Inside a
    cell rows are ordered by enforcement point then project, filling the lanes top-down first.
    Positions depend on all `rows`; edges are drawn only between `visible` ones (default: all),
    so filtering the map never moves what stays on it. `bundle` draws one edge per pair of
    projects (carrying every row pair it stands for) instead of one per pair of rows;
    `conflicts` and `project_ties` leave those edges out when false.
    """
    units_rank = {unit: i for i, unit in enumerate(unit_order)}
    points_rank = {point: i for i, point in enumerate(point_order)}
    placed: list[tuple[Row, str, str]] = []
    for row in rows:
        unit = (_rank(row.resource_units, units_rank) or ["none"])[0]
        point = (_rank(row.enforcement_points, points_rank) or [""])[0]
        placed.append((row, unit, point))

    cells: dict[tuple[str, str], list[tuple[Row, str, str]]] = defaultdict(list)
    for item in placed:
        cells[(item[0].layer, item[1])].append(item)
    units = _rank({unit for _, unit, _ in placed}, units_rank)
    lanes = choose_lanes({cell: len(items) for cell, items in cells.items()}, units, aspect)

    nodes: list[Node] = []
    columns: list[Column] = []
    x = 0.0
    for unit in units:
        width = max(math.ceil(len(cells.get((band, unit), ())) / lanes) for band in BANDS)
        columns.append(Column(unit, x, x + width))
        for band_index, band in enumerate(BANDS):
            items = sorted(
                cells.get((band, unit), ()),
                key=lambda item: (points_rank.get(item[2], len(points_rank)), item[0].id),
            )
            used_lanes = min(lanes, len(items)) or 1
            for k, (row, _, point) in enumerate(items):
                column, lane = divmod(k, used_lanes)
                nodes.append(
                    Node(
                        row.id,
                        row.project,
                        row.layer,
                        unit,
                        point,
                        round(x + column + 0.5, 4),
                        round(_lane_y(band_index, lane, lanes), 4),
                    )
                )
        x += width + _COLUMN_GAP
    width = max(x - _COLUMN_GAP, 1.0)
    shown = None if visible is None else set(visible)
    positions = {node.row_id: node for node in nodes if shown is None or node.row_id in shown}
    if straight is None:
        straight = len(positions) > 300
    if not conflicts:
        contracts = Contracts(contracts.links, (), contracts.containments)
    conflict_pairs: dict[tuple[str, str], tuple[tuple[str, str], ...]] = {}
    if bundle:
        conflict_pairs = bundled_conflicts(contracts.conflicts, positions)
        folded = tuple(
            (
                a,
                b,
                tuple(
                    sorted({t for x, y, ts in contracts.conflicts if (x, y) in pairs for t in ts})
                ),
            )
            for (a, b), pairs in conflict_pairs.items()
        )
        contracts = Contracts(
            bundled_links(contracts.links, positions), folded, contracts.containments
        )
    edges, hidden = _edges(
        rows, contracts, positions, max_edges, straight, project_ties, conflict_pairs
    )
    return MapLayout(tuple(nodes), tuple(edges), tuple(columns), lanes, width, hidden, bundle)


def _lane_y(band_index: int, lane: int, lanes: int) -> float:
    if lanes == 1:
        return band_index + _LANES_CENTRE
    top = band_index + _LANES_CENTRE + _BAND_FILL / 2
    return top - lane * _BAND_FILL / (lanes - 1)


def _edges(
    rows: Sequence[Row],
    contracts: Contracts,
    positions: dict[str, Node],
    max_edges: int,
    straight: bool,
    project_ties: bool = True,
    conflict_pairs: Mapping[tuple[str, str], tuple[tuple[str, str], ...]] | None = None,
) -> tuple[list[Edge], int]:
    # One edge per provider → consumer, carrying every interface that binds them.
    bound: dict[tuple[str, str], list[Link]] = defaultdict(list)
    for link in contracts.links:
        if link.provider in positions and link.consumer in positions:
            bound[(link.provider, link.consumer)].append(link)
    composes = sorted(
        bound.items(),
        # Hard dependencies first: if the budget cuts, it cuts the optional `accepts` wildcards.
        key=lambda item: (all(link.relation != "requires" for link in item[1]), item[0]),
    )
    conflicts = sorted(
        (a, b, tokens) for a, b, tokens in contracts.conflicts if a in positions and b in positions
    )
    hidden = max(len(composes) - max_edges, 0) + max(len(conflicts) - max_edges, 0)

    edges: list[Edge] = []
    for (provider, consumer), links in composes[:max_edges]:
        relation = "requires" if any(link.relation == "requires" for link in links) else "accepts"
        interfaces = tuple(sorted({link.interface for link in links}))
        xs, ys = _path(positions[provider], positions[consumer], straight)
        pairs = tuple(sorted({pair for link in links for pair in _bundled_pairs(link)}))
        edges.append(Edge("composes", provider, consumer, interfaces, relation, xs, ys, pairs))
    for a, b, tokens in conflicts[:max_edges]:
        xs, ys = _path(positions[a], positions[b], straight, bend=-1.0)
        pairs = (conflict_pairs or {}).get((a, b), ())
        edges.append(Edge("conflicts", a, b, tokens, "", xs, ys, pairs))
    by_project: dict[str, list[Node]] = defaultdict(list)
    for row in rows if project_ties else ():
        if row.id in positions:
            by_project[row.project].append(positions[row.id])
    for members in by_project.values():
        chain = sorted(members, key=lambda node: (node.y, node.x))
        for first, second in zip(chain, chain[1:], strict=False):
            xs, ys = _path(first, second, straight, bend=0.5)
            edges.append(Edge("project", first.row_id, second.row_id, (), "", xs, ys))
    return edges, hidden


def _path(
    start: Node, end: Node, straight: bool, bend: float = 1.0
) -> tuple[tuple[float, ...], tuple[float, ...]]:
    if straight or start.layer != end.layer:
        return (start.x, end.x), (start.y, end.y)
    # A quadratic curve whose control point sits off the chord, bulging more for longer edges
    # but never past the band's edge.
    mx, my = (start.x + end.x) / 2, (start.y + end.y) / 2
    dx, dy = end.x - start.x, end.y - start.y
    length = math.hypot(dx, dy) or 1.0
    lift = min(0.12 + 0.04 * length, 0.42) * bend
    cx, cy = mx - dy / length * lift, my + dx / length * lift
    xs, ys = [], []
    for step in range(_ARC_SEGMENTS + 1):
        t = step / _ARC_SEGMENTS
        xs.append(round((1 - t) ** 2 * start.x + 2 * (1 - t) * t * cx + t**2 * end.x, 4))
        ys.append(round((1 - t) ** 2 * start.y + 2 * (1 - t) * t * cy + t**2 * end.y, 4))
    return tuple(xs), tuple(ys)


@dataclass(frozen=True, slots=True)
class BundledLink(Link):
    """A link standing for several: every (provider row, consumer row) pair of two projects."""

    pairs: tuple[tuple[str, str], ...] = ()


def _bundled_pairs(link: Link) -> tuple[tuple[str, str], ...]:
    if isinstance(link, BundledLink):
        return link.pairs
    return ((link.provider, link.consumer),)


def bundled_links(links: Iterable[Link], positions: Mapping[str, Node]) -> tuple[Link, ...]:
    """The links between every two projects (either direction) folded into one per interface,
    all anchored on the pair of rows that shares the most interfaces (ties: the first by id)."""
    by_pair: dict[tuple[str, str], list[Link]] = defaultdict(list)
    for link in links:
        if link.provider in positions and link.consumer in positions:
            ends = (positions[link.provider].project, positions[link.consumer].project)
            by_pair[tuple(sorted(ends))].append(link)
    folded: list[Link] = []
    for _projects, members in sorted(by_pair.items()):
        weight: dict[tuple[str, str], int] = defaultdict(int)
        for link in members:
            weight[(link.provider, link.consumer)] += 1
        provider, consumer = min(weight, key=lambda pair: (-weight[pair], pair))
        pairs = tuple(sorted(weight))
        for interface, relation in sorted({(link.interface, link.relation) for link in members}):
            folded.append(BundledLink(provider, consumer, interface, interface, relation, pairs))
    return tuple(folded)


def bundled_conflicts(
    conflicts: Iterable[tuple[str, str, tuple[str, ...]]], positions: Mapping[str, Node]
) -> dict[tuple[str, str], tuple[tuple[str, str], ...]]:
    """Conflicting row pairs folded per pair of projects: the first pair (by id) stands for
    them all, mapped to every pair it stands for."""
    by_projects: dict[tuple[str, str], list[tuple[str, str]]] = defaultdict(list)
    for a, b, _tokens in conflicts:
        if a in positions and b in positions:
            ends = tuple(sorted((positions[a].project, positions[b].project)))
            by_projects[ends].append((a, b))
    return {min(pairs): tuple(sorted(pairs)) for pairs in by_projects.values()}
