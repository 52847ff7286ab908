"""Vendor data is untrusted: catalog text reaches Plotly figures escaped, never as markup."""

from __future__ import annotations

import json

import pytest
from django.urls import reverse

from catalog.matrix.services import matrix_refresh_request, matrix_snapshot_compute
from catalog.models import Layer
from tests.factories import apply, bundle, placement, project

pytestmark = pytest.mark.django_db

LINK = '<a href="https://evil.example/phish">EVIL</a>'
STYLE = '<span style="filter:url(http://127.0.0.1:8999/f.svg#f)">S</span>'


@pytest.fixture
def hostile_catalog():
    apply(
        bundle(
            project(
                "evil",
                placement(
                    "plugin",
                    provides=["resource:example.com/<b>gpu</b>"],
                    exclusive=["owner:node/<i>gpu</i>"],
                ),
                name=LINK,
            ),
            project(
                "victim",
                placement(
                    "scheduler",
                    "control_plane",
                    enforcement_points=["admission"],
                    accepts=["resource:*"],
                ),
                placement("plugin", exclusive=["owner:node/<i>gpu</i>"]),
                name=STYLE,
            ),
        )
    )


def test_the_map_shows_a_project_named_like_markup_as_text(bob_client, hostile_catalog):
    # Conflicts are drawn behind the toggle (issue 31): asked for, their hover text shows.
    payload = bob_client.get(reverse("map:data"), {"conflicts": "1"}).json()
    figure = json.dumps(payload["figure"])

    assert "<a href" not in figure
    assert '<span style=\\"filter' not in figure
    assert "&lt;a href=" in figure
    assert "&lt;b&gt;gpu&lt;/b&gt;" in figure  # an interface in an edge's hover text
    assert "&lt;i&gt;gpu&lt;/i&gt;" in figure  # an ownership token in a conflict's hover text


def test_the_heatmap_shows_names_like_markup_as_text(bob_client, hostile_catalog):
    # The heatmap's labels and hover text are built from row ids and vocabulary names (the
    # vocabulary is admin-editable); reasons are on the pair page, which Django escapes.
    Layer.objects.filter(key="data_plane").update(name_en=LINK)
    snapshot = matrix_refresh_request()
    matrix_snapshot_compute(snapshot_id=snapshot.id)

    payload = json.dumps(bob_client.get(reverse("matrix:page")).context["figure"])
    pair = bob_client.get(reverse("matrix:pair"), {"a": "evil/plugin", "b": "victim/plugin"})

    assert "<a href" not in payload
    assert "&lt;a href=" in payload
    assert "owner:node/&lt;i&gt;gpu&lt;/i&gt;" in pair.content.decode()
