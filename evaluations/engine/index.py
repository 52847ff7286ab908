"""The catalog as drafting reads it: every contract question a draft asks (who provides a pattern,
which rows complete a presenter, which exporters and watchers a row feeds) answered once."""

from __future__ import annotations

from collections.abc import Iterable
from fnmatch import fnmatchcase
from functools import lru_cache

from catalog.engine.baseline import KUBERNETES_BASELINE, binds
from catalog.engine.oracle import SCHEDULING_POINT, links_between
from catalog.engine.rows import Row
from catalog.engine.stack import governed
from catalog.engine.units import (
    UNIT_CEILINGS,
)

_GLOB_CHARS = frozenset("*?[")


@lru_cache(maxsize=1 << 12)
def _baseline_offers(pattern: str) -> bool:
    return any(fnmatchcase(ident, pattern) for ident in KUBERNETES_BASELINE)


class _Index:
    """The catalog, with the contract questions drafting asks thousands of times answered once.

    Every answer is looked up, not searched for: who provides a pattern, which rows can be the
    other half of a presenter, which exporters and watchers a row feeds. A draft then costs the
    same whether the catalog holds fifty rows or thousands.
    """

    def __init__(self, rows: Iterable[Row]) -> None:
        self.rows = sorted({r.id: r for r in rows}.values(), key=lambda r: r.id)
        # Projects with a row that governs queues, quotas or priority (one governor per scope).
        self.governing_projects = frozenset(r.project for r in self.rows if governed(r))
        self._signals = {
            r.id: frozenset(i for i in r.signals | r.provides if i.startswith("signal:"))
            for r in self.rows
        }
        self._by_interface: dict[str, list[Row]] = {}  # interface -> rows providing it
        # interface -> rows whose provides of it can link them to another row (baseline
        # interfaces link only from the project defining them; see oracle.links_between)
        self._binding: dict[str, list[Row]] = {}
        # (layer, requires/accepts pattern) -> the rows of that layer stating it
        self._wanting: dict[tuple[str, str], list[Row]] = {}
        for row in self.rows:
            for ident in row.provides:
                self._by_interface.setdefault(ident, []).append(row)
                if binds(ident, row.project):
                    self._binding.setdefault(ident, []).append(row)
            for pattern in row.requires | row.accepts:
                self._wanting.setdefault((row.layer, pattern), []).append(row)
        self._wildcards = [key for key in self._wanting if not _GLOB_CHARS.isdisjoint(key[1])]
        self._consumers: dict[tuple[str, str], tuple[Row, ...]] = {}
        self._linkers: dict[str, tuple[Row, ...]] = {}
        self._exporters = [r for r in self.rows if r.layer == "data_plane" and self._signals[r.id]]
        self.richest_exporter = min(
            self._exporters, key=lambda r: (-len(self._signals[r.id]), r.id), default=None
        )
        # Platform rows that only observe: what cost and usage visibility is drafted from.
        self._watchers = [
            r
            for r in self.rows
            if r.layer == "platform"
            and r.provides
            and not r.resource_units - {"none"}
            and all(i.startswith("signal:") for i in r.provides)
        ]
        self._providers: dict[str, tuple[Row, ...]] = {}
        self._provider_ids: dict[str, frozenset[str]] = {}
        self._feeds: dict[tuple[int, int], tuple[str, ...]] = {}
        self._offers: dict[str, int] = {}  # row id -> its offer signature's number
        self._wants: dict[str, int] = {}  # row id -> its want signature's number
        self._signatures: dict[tuple[bool, tuple[object, ...]], int] = {}
        self._bundles: dict[str, tuple[Row, ...]] = {}
        self._sources: dict[tuple[frozenset[str], frozenset[str]], tuple[tuple[int, Row], ...]] = {}
        self._watched: dict[str, dict[str, int]] = {}
        self._watcher_by_id = {w.id: w for w in self._watchers}
        # Pool facts per (plan, rows), for the one profile a ranking is made for (see
        # evaluations.engine.pools.pool_facts); the plans live as long as the ranking.
        self.pool_facts: dict[tuple[object, ...], object] = {}

    def signals(self, row: Row) -> frozenset[str]:
        return self._signals[row.id]

    def providers(self, pattern: str) -> tuple[Row, ...]:
        """The rows whose provides match `pattern`, by id."""
        if pattern not in self._providers:
            if _GLOB_CHARS.isdisjoint(pattern):
                found = self._by_interface.get(pattern, [])
            else:
                found = {
                    r.id: r
                    for ident, rows in self._by_interface.items()
                    if fnmatchcase(ident, pattern)
                    for r in rows
                }.values()
            self._providers[pattern] = tuple(sorted(found, key=lambda r: r.id))
            self._provider_ids[pattern] = frozenset(r.id for r in self._providers[pattern])
        return self._providers[pattern]

    def offers(self, row: Row, pattern: str) -> bool:
        if pattern not in self._provider_ids:
            self.providers(pattern)
        return row.id in self._provider_ids[pattern]

    def satisfied(self, pattern: str, rows: Iterable[Row]) -> bool:
        return _baseline_offers(pattern) or any(self.offers(r, pattern) for r in rows)

    def met(self, pattern: str, ids: set[str]) -> bool:
        """satisfied() for rows given by id."""
        if pattern not in self._provider_ids:
            self.providers(pattern)
        return _baseline_offers(pattern) or not self._provider_ids[pattern].isdisjoint(ids)

    def feeds(self, provider: Row, consumer: Row) -> tuple[str, ...]:
        """Interfaces `provider` offers that `consumer` requires or accepts: asked once per pair
        of signatures (`_offer_signature`, `_want_signature`), which is all `links_between`
        reads, so rows alike in their contracts share the answer."""
        key = (self._signature(provider, offer=True), self._signature(consumer, offer=False))
        found = self._feeds.get(key)
        if found is None:
            links = links_between(provider, consumer)
            found = self._feeds[key] = tuple(sorted({link.interface for link in links}))
        return found

    def _signature(self, row: Row, *, offer: bool) -> int:
        """A small number standing for the row's offer (or want) signature."""
        numbers = self._offers if offer else self._wants
        number = numbers.get(row.id)
        if number is None:
            signature = (offer, _offer_signature(row) if offer else _want_signature(row))
            number = numbers[row.id] = self._signatures.setdefault(signature, len(self._signatures))
        return number

    def links(self, a: Row, b: Row) -> list[str]:
        return sorted(set(self.feeds(a, b)) | set(self.feeds(b, a)))

    def consumers(self, interface: str, layer: str) -> tuple[Row, ...]:
        """Rows of `layer` whose requires or accepts match `interface`: all it can feed there."""
        key = (layer, interface)
        if key not in self._consumers:
            found = {r.id: r for r in self._wanting.get(key, ())}
            for wildcard in self._wildcards:
                if wildcard[0] == layer and fnmatchcase(interface, wildcard[1]):
                    found.update((r.id, r) for r in self._wanting[wildcard])
            self._consumers[key] = tuple(found.values())
        return self._consumers[key]

    def fed_by(self, row: Row, layer: str) -> dict[str, Row]:
        """Rows of `layer` `row` may feed, by id (feeds() says what, if anything, it does)."""
        return {
            r.id: r
            for ident in row.provides
            if binds(ident, row.project)
            for r in self.consumers(ident, layer)
        }

    def linkers(self, pattern: str) -> tuple[Row, ...]:
        """Rows whose provides can link to a row requiring or accepting `pattern`."""
        if pattern not in self._linkers:
            if _GLOB_CHARS.isdisjoint(pattern):
                found = self._binding.get(pattern, [])
            else:
                found = {
                    r.id: r
                    for ident, rows in self._binding.items()
                    if fnmatchcase(ident, pattern)
                    for r in rows
                }.values()
            self._linkers[pattern] = tuple(found)
        return self._linkers[pattern]

    def linked(self, row: Row, layer: str) -> list[Row]:
        """Rows of `layer` a contract may tie to `row` either way, by id: the only rows for
        which links() can say something."""
        found = self.fed_by(row, layer)
        for pattern in row.requires | row.accepts:
            found.update((r.id, r) for r in self.linkers(pattern) if r.layer == layer)
        return [found[i] for i in sorted(found)]

    def bundle(self, presenter: Row) -> tuple[Row, ...]:
        if presenter.id not in self._bundles:
            self._bundles[presenter.id] = tuple(_data_plane(presenter, self))
        return self._bundles[presenter.id]

    def signal_sources(self, presenter: Row) -> tuple[tuple[int, Row], ...]:
        """Exporters `presenter` feeds, best wired first: (interfaces fed, row).

        The answer depends only on what the presenter can offer: the provides that bind from its
        project (what `fed_by` and `links_between` read) and the assigners it requires (which
        decide whether a wildcard accepts binds them). Rows alike in those (forks, editions, a
        vendor's variants) share one answer: with many, asking each anew was most of a ranking's
        time (45 s of 70 s at 93,000 rows)."""
        key = _offer_signature(presenter)
        if key not in self._sources:
            fed = self.fed_by(presenter, "data_plane")
            options = [
                (len(self.feeds(presenter, row)), row)
                for row in self._exporters
                if row.id in fed and self.feeds(presenter, row)
            ]
            self._sources[key] = tuple(
                sorted(options, key=lambda option: (-option[0], option[1].id))
            )
        return self._sources[key]

    def watched(self, member: Row) -> dict[str, int]:
        """Watcher id -> interfaces `member` feeds it, for the watchers it feeds at all."""
        if member.id not in self._watched:
            fed = self.fed_by(member, "platform")
            counts = {w.id: len(self.feeds(member, w)) for w in self._watchers if w.id in fed}
            self._watched[member.id] = {i: n for i, n in counts.items() if n}
        return self._watched[member.id]

    def watcher(self, watcher_id: str) -> Row:
        return self._watcher_by_id[watcher_id]


def _offer_signature(row: Row) -> tuple[frozenset[str], frozenset[str]]:
    """What decides which rows `row` feeds and through which interfaces (see signal_sources)."""
    bound = frozenset(ident for ident in row.provides if binds(ident, row.project))
    return bound, frozenset(ident for ident in row.requires if ident.startswith("assigner:"))


def _want_signature(row: Row) -> tuple[object, ...]:
    """What decides which interfaces `row` takes from a provider (see links_between): its
    requires and accepts, whether it schedules (a wildcard accepts of a scheduler does not bind
    what only another scheduler assigns) and the assigners it provides."""
    assigners = frozenset(ident for ident in row.provides if ident.startswith("assigner:"))
    return row.requires, row.accepts, SCHEDULING_POINT in row.enforcement_points, assigners


def _known_units(row: Row) -> list[str]:
    return sorted(u for u in row.resource_units if u in UNIT_CEILINGS)


def _data_plane(presenter: Row, index: _Index) -> list[Row]:
    """The presenter and its same-unit partners: the other half of one mechanism.

    A partner shares a unit with the presenter, holds none of its ownership tokens and is tied
    to it by a contract (a MIG layout manager and the device plugin strategy advertising it).
    One row per contract: forks of one library (HAMi-core) hold no ownership token, so only the
    first that ties to the presenter through contracts not yet covered joins.
    """
    bundle = [presenter]
    units = set(_known_units(presenter))
    covered: set[str] = set()
    for row in index.linked(presenter, "data_plane"):
        if (
            row.id == presenter.id
            or not units & row.resource_units
            or any(row.exclusive & member.exclusive for member in bundle)
        ):
            continue  # asked first: the contracts are the costly part
        contracts = set(index.links(presenter, row))
        if contracts - covered:
            bundle.append(row)
            covered |= contracts
    return bundle
