"""The map's table lists one line per (row, pool) (issue 42 item 5): a row decided for two node
pools (a device plugin serving a training and an inference pool) shows once in each, as the
CSV does."""

from __future__ import annotations

import pytest
from django.core.management import call_command
from django.urls import reverse

from catalog.engine.map_focus import pools_of
from catalog.engine.rows import Row

pytestmark = pytest.mark.django_db

QUERY = {
    "pool": [
        "training:hami/device-plugin,volcano/scheduler",
        "inference:hami/device-plugin,kueue/controller",
    ]
}


@pytest.fixture
def builtin(db):
    call_command("load_catalog", verbosity=0)


def test_a_row_in_two_pools_has_a_line_in_each(bob_client, builtin):
    table = bob_client.get(reverse("map:table"), QUERY).content.decode()

    assert table.count("pool training") == 2  # HAMi's and Volcano's lines
    assert table.count("pool inference") == 2  # HAMi's and Kueue's lines


def test_the_engine_keeps_every_pool_of_a_row():
    rows = [Row.create("hami", "device-plugin", "data_plane")]

    pools = pools_of({"training": ["hami/device-plugin"], "inference": ["hami"]}, rows)

    assert pools == {"hami/device-plugin": ("training", "inference")}
