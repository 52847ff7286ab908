"""Pages whose cost must not follow the catalog's size: the same SQL statements on the built-in
catalog (61 rows) and on one ten times bigger with a thousand unplaced projects, and bounded
bytes. Time budgets live in bench/scale, not here."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from catalog.matrix.services import matrix_refresh_request, matrix_snapshot_compute
from catalog.models import PlacementRow, Project
from evaluations.review.services import evaluation_submit
from tests.evaluations.factories import fill_steps, make_cast, make_evaluation
from tests.factories import apply, bundle, scaled_projects

pytestmark = [pytest.mark.django_db, pytest.mark.slow]

PAGES = {
    "catalog": "/catalog/",
    "catalog_search": "/catalog/?q=gpu",
    "project": "/catalog/projects/hami/",
    "map": "/map/",
    "map_data": "/map/data/",
    "matrix": "/matrix/",
    "matrix_express": "/matrix/express/",
    "pair": "/matrix/pair/?a=hami/device-plugin&b=kueue/controller",
    "coverage": "/catalog/coverage/",
    "comparison": "/evaluations/{e}/comparison/",
    "recommendations": "/evaluations/{e}/recommendations/",
    "decision": "/evaluations/{e}/decision/",
    "api_projects": "/api/v1/projects/",
    "api_placements": "/api/v1/placements/",
    "api_matrix": "/api/v1/matrix/",
}


def _measure(client, evaluation_id: int) -> dict[str, tuple[int, int]]:
    """(SQL statements, bytes) of each page's second request (the first may fill caches)."""
    found = {}
    for name, url in PAGES.items():
        url = url.format(e=evaluation_id)
        assert client.get(url).status_code == 200, url
        with CaptureQueriesContext(connection) as queries:
            response = client.get(url, HTTP_ACCEPT_ENCODING="gzip")
        assert response.status_code == 200, url
        found[name] = (len(queries), len(response.content))
    return found


@pytest.fixture
def evaluation(builtin_catalog):
    cast = make_cast()
    rows = PlacementRow.objects.select_related("project").order_by("project__slug", "key")
    candidates = [{"row": row.ref, "points_confirmed": True} for row in rows[:12]]
    evaluation = fill_steps(make_evaluation(cast), cast.bob, candidates=candidates)
    evaluation_submit(evaluation=evaluation, actor=cast.bob)
    return cast, evaluation


def test_pages_send_the_same_queries_and_stay_small_when_the_catalog_grows(
    client, evaluation, django_capture_on_commit_callbacks
):
    cast, decided = evaluation
    client.force_login(cast.bob)
    snapshot = matrix_refresh_request()
    matrix_snapshot_compute(snapshot_id=snapshot.pk)
    small = _measure(client, decided.pk)

    unplaced = [
        {"slug": f"listed-{i:04d}", "name": f"Listed {i}", "placements": []} for i in range(1000)
    ]
    with django_capture_on_commit_callbacks(execute=True):
        apply(bundle(*scaled_projects(rows=610, projects=390), *unplaced))
    assert PlacementRow.objects.count() == 610
    assert Project.objects.count() > 1300
    big = _measure(client, decided.pk)

    queries = {name: (small[name][0], big[name][0]) for name in PAGES}
    assert {name: b for name, (s, b) in queries.items() if s != b} == {}, queries
    assert max(size for _queries, size in big.values()) < 2_000_000
    assert big["matrix"][1] < 100_000  # the heatmap is aggregated, not one cell per pair


def test_pages_are_compressed_for_clients_that_accept_gzip(client, evaluation):
    cast, _decided = evaluation
    client.force_login(cast.bob)

    compressed = client.get("/catalog/coverage/", HTTP_ACCEPT_ENCODING="gzip")
    plain = client.get("/catalog/coverage/")

    assert compressed["Content-Encoding"] == "gzip"
    assert "Content-Encoding" not in plain
    assert len(compressed.content) * 3 < len(plain.content)
