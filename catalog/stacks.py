"""Stacks named on the command line or in a form (`slug`, `slug/row` as pages and `matrix
--json` write a row, or `slug:row`), resolved to engine rows."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from catalog.engine.profile import Profile
from catalog.engine.rows import Row
from catalog.engine.stack import StackReport, check_stack
from catalog.selectors import engine_rows


class StackSpecError(ValueError):
    """A stack names a project or row that is not in the catalog."""


@dataclass
class ResolvedStack:
    rows: list[Row]
    pools: dict[str, list[str]]


def _resolve(spec: str, by_project: dict[str, list[Row]], by_id: dict[str, Row]) -> list[Row]:
    # Slugs and row keys hold neither "/" nor ":", so the first of either separates them.
    slug, _, key = spec.strip().replace("/", ":", 1).partition(":")
    if slug not in by_project:
        raise StackSpecError(f"no project {slug!r} in the catalog")
    if not key:
        return by_project[slug]
    row = by_id.get(f"{slug}/{key}")
    if row is None:
        keys = ", ".join(r.key for r in by_project[slug])
        raise StackSpecError(f"project {slug!r} has no row {key!r}; its rows: {keys}")
    return [row]


def stack_resolve(*, members: Sequence[str], pools: Iterable[str] = ()) -> ResolvedStack:
    """`members`: cluster-wide `slug[/row]` items; `pools`: `NAME=slug[/row],slug[/row]` items
    (`slug:row` is read the same)."""
    catalog = engine_rows()
    by_id = {row.id: row for row in catalog}
    by_project: dict[str, list[Row]] = {}
    for row in catalog:
        by_project.setdefault(row.project, []).append(row)
    chosen: dict[str, Row] = {}
    for spec in members:
        for row in _resolve(spec, by_project, by_id):
            chosen[row.id] = row
    pool_members: dict[str, list[str]] = {}
    for pool_spec in pools:
        name, sep, items = pool_spec.partition("=")
        if not sep or not name.strip() or not items.strip():
            raise StackSpecError(f"a pool is NAME=slug[/row],... — got {pool_spec!r}")
        ids = pool_members.setdefault(name.strip(), [])
        for spec in items.split(","):
            for row in _resolve(spec, by_project, by_id):
                chosen[row.id] = row
                ids.append(row.id)
    return ResolvedStack(rows=list(chosen.values()), pools=pool_members)


def stack_check(
    *, members: Sequence[str], pools: Iterable[str] = (), profile: Profile | None = None
) -> tuple[ResolvedStack, StackReport]:
    stack = stack_resolve(members=members, pools=pools)
    return stack, check_stack(stack.rows, pools=stack.pools or None, profile=profile)
