"""What a focused map shows and how tangled a drawn map is: the rows of a focus and their pools,
each row's contracts as a list, and the number of edge crossings of a layout."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from urllib.parse import urlencode

from catalog.engine.map_layout import Contracts, MapLayout
from catalog.engine.oracle import containment, links_between
from catalog.engine.rows import Row


@dataclass(frozen=True, slots=True)
class RowContract:
    """One line of a row's contract list: what it gives a partner, takes from one, or clashes on."""

    relation: str  # "provides_to" | "uses" | "conflicts" | "contains" | "contained_in"
    partner: str  # the other row's id
    interfaces: tuple[str, ...]  # the interfaces, or for a conflict the shared tokens
    optional: bool = False  # composes through `accepts` only


def row_contracts(rows: Iterable[Row], contracts: Contracts) -> dict[str, list[RowContract]]:
    """Every row's contracts, partners in id order: what it provides to whom, what it uses from
    whom, what it conflicts with. Rows without any get an empty list."""
    ids = [row.id for row in rows]
    known = set(ids)
    bound: dict[tuple[str, str], list] = defaultdict(list)
    for link in contracts.links:
        if link.provider in known and link.consumer in known:
            bound[(link.provider, link.consumer)].append(link)
    out: dict[str, list[RowContract]] = {row_id: [] for row_id in ids}
    for (provider, consumer), links in sorted(bound.items()):
        interfaces = tuple(sorted({link.interface for link in links}))
        optional = all(link.relation != "requires" for link in links)
        out[provider].append(RowContract("provides_to", consumer, interfaces, optional))
        out[consumer].append(RowContract("uses", provider, interfaces, optional))
    for a, b, tokens in sorted(contracts.conflicts):
        if a in known and b in known:
            out[a].append(RowContract("conflicts", b, tuple(tokens)))
            out[b].append(RowContract("conflicts", a, tuple(tokens)))
    for whole, part in sorted(contracts.containments):
        if whole in known and part in known:
            out[whole].append(RowContract("contains", part, ()))
            out[part].append(RowContract("contained_in", whole, ()))
    order = {"contained_in": 0, "contains": 1, "uses": 2, "provides_to": 3, "conflicts": 4}
    for items in out.values():
        items.sort(key=lambda item: (order[item.relation], item.partner))
    return out


Point = tuple[float, float]
Segment = tuple[Point, Point]


def _orientation(a: Point, b: Point, c: Point) -> int:
    cross = (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0])
    if abs(cross) < 1e-12:
        return 0
    return 1 if cross > 0 else -1


def segments_cross(first: Segment, second: Segment) -> bool:
    """True when the two segments cross at a point inside both. Touching at an end (two edges
    meeting at a node) or running along each other is not a crossing."""
    (p, q), (r, s) = first, second
    o1, o2 = _orientation(p, q, r), _orientation(p, q, s)
    o3, o4 = _orientation(r, s, p), _orientation(r, s, q)
    return o1 * o2 < 0 and o3 * o4 < 0


def count_crossings(polylines: Sequence[Sequence[Point]]) -> int:
    """How many times the polylines cross each other (a point where two of them cross counts
    once; a polyline never crosses itself). A sweep over x skips the pairs of segments whose
    x ranges do not overlap, so thousands of edges take seconds, not minutes."""
    segments: list[tuple[float, float, float, float, int, Segment]] = []
    for owner, points in enumerate(polylines):
        for start, end in zip(points, points[1:], strict=False):
            if start == end:
                continue
            x0, x1 = sorted((start[0], end[0]))
            y0, y1 = sorted((start[1], end[1]))
            segments.append((x0, x1, y0, y1, owner, (start, end)))
    segments.sort(key=lambda item: item[0])
    crossings = 0
    active: list[tuple[float, float, float, float, int, Segment]] = []
    for item in segments:
        x0, _x1, y0, y1, owner, segment = item
        active = [other for other in active if other[1] >= x0]
        for _ox0, _ox1, oy0, oy1, other_owner, other in active:
            if other_owner == owner or oy1 < y0 or y1 < oy0:
                continue
            if segments_cross(segment, other):
                crossings += 1
        active.append(item)
    return crossings


def layout_crossings(layout: MapLayout, kinds: Iterable[str] | None = None) -> int:
    """Edge crossings of a laid-out map, over the edges of the given kinds (default: all)."""
    wanted = None if kinds is None else set(kinds)
    return count_crossings(
        [
            tuple(zip(edge.xs, edge.ys, strict=True))
            for edge in layout.edges
            if wanted is None or edge.kind in wanted
        ]
    )


def focus_rows(rows: Sequence[Row], wanted: Iterable[str]) -> list[str]:
    """The ids named in `wanted` (a `project/key` id, or a bare slug for all its project's rows),
    in catalog order; unknown names are ignored."""
    names = set(wanted)
    return [row.id for row in rows if row.id in names or row.project in names]


def pool_of(pools: Mapping[str, Sequence[str]], rows: Sequence[Row]) -> dict[str, str]:
    """Row id -> the name of its node pool (rows named in no pool are left out)."""
    out: dict[str, str] = {}
    for name, members in pools.items():
        for row_id in focus_rows(rows, members):
            out.setdefault(row_id, name)
    return out


def pools_of(pools: Mapping[str, Sequence[str]], rows: Sequence[Row]) -> dict[str, tuple[str, ...]]:
    """Row id -> every node pool it is in, in the pools' order (a row in two pools, e.g. a
    device plugin shared by a training and an inference pool, has both)."""
    out: dict[str, list[str]] = {}
    for name, members in pools.items():
        for row_id in focus_rows(rows, members):
            names = out.setdefault(row_id, [])
            if name not in names:
                names.append(name)
    return {row_id: tuple(names) for row_id, names in out.items()}


def contracts_of_project(rows: Sequence[Row], project: str) -> Contracts:
    """The contracts between `project`'s rows and every row (its own included): composes links
    both ways, and conflicts (a shared exclusive token) with other projects' rows."""
    own = [row for row in rows if row.project == project]
    links = []
    conflicts = []
    wholes = set()
    for mine in own:
        for other in rows:
            if other.id == mine.id:
                continue
            links += links_between(mine, other)
            if other.project != project:
                links += links_between(other, mine)
                shared = mine.exclusive & other.exclusive
                if shared:
                    conflicts.append((mine.id, other.id, tuple(sorted(shared))))
                whole = containment(mine, other)
                if whole is not None:
                    wholes.add((whole[0].id, whole[1].id))
    return Contracts(tuple(links), tuple(conflicts), tuple(sorted(wholes)))


def map_focus_query(
    *, rows: Sequence[str] = (), pools: Mapping[str, Sequence[str]] | None = None
) -> str:
    """The query string of a focus on named rows (and their node pools) that the map and the
    matrix both read: `rows=a/x,b/y&pool=shared:a/x`."""
    params = [("rows", ",".join(rows))] if rows else []
    params += [("pool", f"{name}:{','.join(members)}") for name, members in (pools or {}).items()]
    return urlencode(params)
