"""A presenter's same-unit partners: one row per contract, however many forks offer it."""

from dataclasses import replace

from evaluations.engine.index import _Index
from tests.factories import builtin_rows


def test_a_library_forked_many_times_joins_the_device_plugin_once():
    rows = builtin_rows()
    library = rows["hami-core/libvgpu"]
    forks = [
        replace(library, id=f"hami-core-d{n}/libvgpu", project=f"hami-core-d{n}") for n in (1, 2)
    ]
    index = _Index([*rows.values(), *forks])

    bundle = [row.id for row in index.bundle(rows["hami/device-plugin"])]

    assert bundle[0] == "hami/device-plugin"
    assert sum(row_id.endswith("/libvgpu") for row_id in bundle) == 1
