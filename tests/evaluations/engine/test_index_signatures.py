"""The index answers a contract question once per pair of signatures: it must give, for every pair
of rows, what `links_between` gives for that very pair (the signatures hold all it reads)."""

from __future__ import annotations

from dataclasses import replace

from catalog.engine.oracle import links_between
from evaluations.engine.index import _Index
from tests.factories import builtin_rows


def _catalog_with_look_alikes():
    """The built-in rows plus forks of forty of them: alike in contracts, not in project (a
    baseline interface binds only from the project that defines it)."""
    rows = dict(builtin_rows())
    forks = [
        replace(row, id=f"fork-{number}/{row.id.split('/')[1]}", project=f"fork-{number}")
        for number, row in enumerate(sorted(rows.values(), key=lambda r: r.id)[:40])
    ]
    # The same wildcard accepts (resource:*) three ways: a scheduler that does not assign HAMi's
    # resources (the wildcard must not bind them), the same row not scheduling (it binds them),
    # and the scheduler providing HAMi's assigner (it binds them).
    armada = rows["armada/scheduler"]
    looks_alike = [
        replace(armada, id="alike-a/no-scheduling", project="alike-a",
                enforcement_points=armada.enforcement_points - {"scheduler"}),
        replace(armada, id="alike-b/assigns-hami", project="alike-b",
                provides=armada.provides | {"assigner:hami"}),
    ]  # fmt: skip
    return [*rows.values(), *forks, *looks_alike]


def test_feeds_is_links_between_for_every_pair_of_rows():
    rows = _catalog_with_look_alikes()
    index = _Index(rows)
    wrong = [
        (provider.id, consumer.id)
        for provider in rows
        for consumer in rows
        if index.feeds(provider, consumer)
        != tuple(sorted({link.interface for link in links_between(provider, consumer)}))
    ]
    assert len(rows) > 100
    assert wrong == []
    hami = next(row for row in rows if row.id == "hami/device-plugin")
    takes = {
        row.id: index.feeds(hami, row) for row in rows if row.id.startswith(("armada", "alike"))
    }
    assert "resource:nvidia.com/gpu" not in takes["armada/scheduler"]
    assert "resource:nvidia.com/gpu" in takes["alike-a/no-scheduling"]
    assert "resource:nvidia.com/gpu" in takes["alike-b/assigns-hami"]


def test_signal_sources_is_the_same_for_rows_alike_and_right_for_each():
    rows = _catalog_with_look_alikes()
    index = _Index(rows)
    for presenter in rows:
        if presenter.layer != "data_plane":
            continue
        fresh = _Index(rows)  # nothing asked before: the answer for this presenter alone
        assert index.signal_sources(presenter) == fresh.signal_sources(presenter), presenter.id
