"""The matrix past CATALOG_PAGE_MAX_ROWS (issue 41 H1), on the built-in catalog with a low
limit: no page or API call unpacks the snapshot; the pairs of the projects a reader names are
computed now and agree with the snapshot's; the page says which it shows, in both languages."""

from __future__ import annotations

import pytest
from django.urls import reverse
from rest_framework.test import APIClient

from catalog.matrix import selectors
from catalog.matrix.models import MatrixSnapshot
from catalog.matrix.services import matrix_refresh_request, matrix_snapshot_compute
from catalog.models import PlacementRow

pytestmark = pytest.mark.django_db

CHOSEN = {"project": ["hami", "kueue", "volcano"]}


@pytest.fixture
def computed(builtin_catalog):
    snapshot = MatrixSnapshot.objects.filter(status="pending").first() or matrix_refresh_request()
    matrix_snapshot_compute(snapshot_id=snapshot.id)


@pytest.fixture
def never_unpacked(monkeypatch):
    """The snapshot's unpacking fails the test if anything reaches it."""

    def refuse(snapshot_id):
        raise AssertionError("a page unpacked the matrix snapshot")

    selectors._loaded_result.cache_clear()
    monkeypatch.setattr(selectors, "_loaded_result", refuse)


def api(user) -> APIClient:
    client = APIClient()
    client.force_authenticate(user)
    return client


def test_the_page_asks_for_projects_and_shows_the_whole_matrixs_totals(
    bob_client, computed, settings, never_unpacked
):
    settings.CATALOG_PAGE_MAX_ROWS = 20
    total = PlacementRow.objects.count()

    english = bob_client.get(reverse("matrix:page"))
    bob_client.cookies["django_language"] = "zh-hans"
    chinese = bob_client.get(reverse("matrix:page")).content.decode()

    content = english.content.decode()
    assert "figure" not in english.context or not english.context["figure"]
    assert "Too many rows to compare on one page." in content
    assert f"This catalog has {total} placement rows" in content
    assert "Pairs per verdict in the whole matrix" in content
    assert 'href="?near=' in content  # the largest projects, each a way to a focus
    assert "一页无法比较这么多行。" in chinese


def test_named_projects_are_computed_now_and_agree_with_the_snapshot(
    bob_client, computed, settings, monkeypatch
):
    snapshot_counts = bob_client.get(reverse("matrix:page"), CHOSEN).context["counts"]
    settings.CATALOG_PAGE_MAX_ROWS = 20
    selectors._loaded_result.cache_clear()
    monkeypatch.setattr(selectors, "_loaded_result", lambda pk: pytest.fail("unpacked"))

    response = bob_client.get(reverse("matrix:page"), CHOSEN)

    assert response.context["figure"]
    assert response.context["counts"] == snapshot_counts
    assert "computed now from the catalog" in response.content.decode()


def test_too_many_named_rows_are_refused_with_how_many(
    bob_client, computed, settings, never_unpacked
):
    settings.CATALOG_PAGE_MAX_ROWS = 3

    content = bob_client.get(reverse("matrix:page"), CHOSEN).content.decode()

    assert "a page compares at most 3" in content


def test_a_pair_is_explained_from_its_two_rows(bob_client, computed, settings, never_unpacked):
    settings.CATALOG_PAGE_MAX_ROWS = 20
    pair = {"a": "nvidia-device-plugin/whole-gpu", "b": "hami/device-plugin"}

    page = bob_client.get(reverse("matrix:pair"), pair)
    unknown = bob_client.get(reverse("matrix:pair"), {"a": "x/y", "b": "hami/device-plugin"})

    assert page.status_code == 200
    assert "owner:node/nvidia-gpu" in page.content.decode()  # conflicts
    assert "fix a common unit before comparing them" in page.content.decode()  # incomparable
    assert unknown.status_code == 404


def test_the_api_lists_the_pairs_of_named_projects_and_refuses_the_whole_catalog(
    bob, computed, settings
):
    client = api(bob)
    before = client.get("/api/v1/matrix/", {**CHOSEN, "reasons": "false"}).json()
    pair_before = client.get(
        "/api/v1/matrix/pair/", {"a": "hami/device-plugin", "b": "kueue/controller"}
    ).json()
    settings.CATALOG_PAGE_MAX_ROWS = 20

    named = client.get("/api/v1/matrix/", {**CHOSEN, "reasons": "false"})
    whole = client.get("/api/v1/matrix/")
    pair = client.get("/api/v1/matrix/pair/", {"a": "hami/device-plugin", "b": "kueue/controller"})

    assert named.status_code == 200
    assert named.json()["count"] == before["count"]
    assert named.json()["cells"] == before["cells"]
    assert whole.status_code == 400
    assert "name projects" in whole.json()["errors"][0]["message"]
    assert pair.json()["holds"] == pair_before["holds"]


def test_the_express_table_reads_a_page_of_each_axis_from_the_catalog(
    bob_client, computed, settings, never_unpacked
):
    settings.CATALOG_PAGE_MAX_ROWS = 20

    response = bob_client.get(reverse("matrix:express"))

    table = dict(response.context["table"])
    controls = response.context["controls"]
    cell = table["volcano-vgpu-device-plugin/device-plugin"][controls.index("volcano/scheduler")]
    assert cell.expressible
    assert not table["hami/device-plugin"][controls.index("volcano/scheduler")].expressible
