"""What-if choices at any catalog size (issue 41 H1): each list of replacements offers at most
SWAP_CHOICES_UP_TO rows and counts the rest; a swap loads the decided rows, the replacement and
the migration paths' companions only."""

from __future__ import annotations

import pytest
from django.urls import reverse

from catalog.models import PlacementRow
from evaluations.decisions import whatif
from evaluations.decisions.whatif import whatif_choices
from tests.evaluations.decisions.test_whatif import DEVICE_PLUGIN, DRA_GPU, decided
from tests.evaluations.factories import make_cast

pytestmark = pytest.mark.django_db


@pytest.fixture
def cast(builtin_catalog):
    return make_cast()


def test_each_list_offers_at_most_the_cap_and_counts_the_rest(cast, monkeypatch):
    evaluation = decided(cast, [DEVICE_PLUGIN, "kueue/controller"])
    whole = {c.row.id: c for c in whatif_choices(evaluation)}
    monkeypatch.setattr(whatif, "SWAP_CHOICES_UP_TO", 2)

    capped = {c.row.id: c for c in whatif_choices(evaluation)}

    plugin, before = capped[DEVICE_PLUGIN], whole[DEVICE_PLUGIN]
    assert plugin.suggested == before.suggested[:2] and plugin.others == before.others[:2]
    offered = len(before.suggested) + len(before.others)
    assert plugin.unlisted == offered - len(plugin.suggested) - len(plugin.others) > 0
    assert before.unlisted == 0
    data_plane = PlacementRow.objects.filter(layer__key="data_plane").count()
    assert offered + before.other_vendor_count == data_plane - 1  # the decided row itself


def test_the_page_says_how_many_rows_it_does_not_offer(cast, client, monkeypatch):
    evaluation = decided(cast, [DEVICE_PLUGIN, "kueue/controller"])
    monkeypatch.setattr(whatif, "SWAP_CHOICES_UP_TO", 2)
    client.force_login(cast.bob)

    page = client.get(
        reverse("evaluations:what-if", args=[evaluation.pk]), {"row": DEVICE_PLUGIN, "to": DRA_GPU}
    )

    content = page.content.decode()
    assert page.status_code == 200
    assert "more rows of the layer are not offered here" in content
    assert page.context["result"].swap.new == DRA_GPU  # a row not offered can still be named
