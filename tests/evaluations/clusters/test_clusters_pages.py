"""Cluster pages: the list with its upload form, a snapshot's page, and an evaluation's decision
compared with a snapshot (attach for the report)."""

from __future__ import annotations

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.template.loader import render_to_string
from django.test import Client

from catalog.engine.cluster import MAX_BODY_BYTES
from evaluations.clusters.models import ClusterAttachment, ClusterSnapshot
from evaluations.clusters.services import cluster_snapshot_attach, cluster_snapshot_upload
from evaluations.reports.content import TEMPLATE, report_context
from tests.evaluations.cluster_factories import (
    body,
    conflicting_snapshot,
    sign_small_catalog,
    snapshot,
)
from tests.evaluations.factories import fill_steps, make_cast, make_evaluation, small_catalog

pytestmark = pytest.mark.django_db


@pytest.fixture
def cast(db):
    small_catalog()
    sign_small_catalog()
    return make_cast()


def signed_in(user, language: str = "en") -> Client:
    client = Client()
    client.force_login(user)
    client.cookies["django_language"] = language
    return client


def stored(cast, document=None) -> ClusterSnapshot:
    return cluster_snapshot_upload(
        team=cast.team, actor=cast.bob, body=body(document or snapshot()), role="editor"
    )


def snapshot_file(document, name: str = "prod.json") -> SimpleUploadedFile:
    return SimpleUploadedFile(name, body(document), content_type="application/json")


def test_uploading_through_the_page_opens_the_snapshot(cast):
    response = signed_in(cast.bob).post(
        "/clusters/", {"team": "platform", "file": snapshot_file(conflicting_snapshot())}
    )

    snapshot_row = ClusterSnapshot.objects.get()
    assert response.status_code == 302
    assert response["Location"] == f"/clusters/{snapshot_row.pk}/"


def test_a_refused_file_is_explained_by_path_and_stores_nothing(cast):
    document = snapshot()
    del document["nodes"]

    response = signed_in(cast.bob).post(
        "/clusters/", {"team": "platform", "file": snapshot_file(document)}
    )

    assert response.status_code == 400
    assert "nothing was stored" in response.content.decode()
    assert ClusterSnapshot.objects.count() == 0


def test_a_file_over_the_limit_is_refused_with_413(cast, settings):
    settings.FILE_UPLOAD_MAX_MEMORY_SIZE = 1024
    big = SimpleUploadedFile("big.json", b" " * (MAX_BODY_BYTES + 1))

    response = signed_in(cast.bob).post("/clusters/", {"team": "platform", "file": big})

    assert response.status_code == 413
    assert ClusterSnapshot.objects.count() == 0


def test_a_viewer_sees_the_clusters_but_no_upload_form(cast):
    stored(cast)

    page = signed_in(cast.dave).get("/clusters/").content.decode()

    assert "prod-gpu" in page
    assert 'type="file"' not in page


def test_the_list_is_scoped_to_my_teams(cast):
    stored(cast)

    page = signed_in(cast.charlie).get("/clusters/").content.decode()

    assert "prod-gpu" not in page


def test_the_snapshot_page_shows_findings_rows_pools_and_history(cast):
    stored(cast, snapshot(collected_at="2026-11-01T10:00:00Z"))
    newest = stored(cast, conflicting_snapshot())

    response = signed_in(cast.dave).get(f"/clusters/{newest.pk}/")

    page = response.content.decode()
    assert response.status_code == 200
    assert "sev-error" in page  # two device plugins own the same GPUs
    assert "HAMi" in page and "Time Slicer" in page  # catalog names, not keys
    assert "cluster-history" in page and page.count("/clusters/") >= 2
    assert 'id="cluster-map-figure"' in page


def test_the_snapshot_page_reads_in_chinese(cast):
    snap = stored(cast, conflicting_snapshot())

    page = signed_in(cast.dave, "zh-hans").get(f"/clusters/{snap.pk}/").content.decode()

    assert '<html lang="zh-hans">' in page
    assert "Map" not in page.split("mainnav", 1)[1].split("</nav>", 1)[0]  # the nav is Chinese


def test_another_teams_snapshot_page_is_not_found(cast):
    snap = stored(cast)

    assert signed_in(cast.charlie).get(f"/clusters/{snap.pk}/").status_code == 404


def test_compare_lists_decided_but_absent_and_present_but_not_decided(cast):
    evaluation = fill_steps(make_evaluation(cast), cast.bob)  # HAMi + Volcano decided
    snap = stored(cast, conflicting_snapshot())  # HAMi + Time Slicer run

    response = signed_in(cast.dave).get(f"/evaluations/{evaluation.pk}/cluster/?snapshot={snap.pk}")

    page = response.content.decode()
    assert response.status_code == 200
    absent = page[page.index("compare-absent") : page.index("compare-undecided")]
    undecided = page[page.index("compare-undecided") : page.index("compare-both")]
    assert "Volcano" in absent
    assert "Time Slicer" in undecided


def test_the_decision_page_links_to_the_comparison(cast):
    evaluation = fill_steps(make_evaluation(cast), cast.bob)

    page = signed_in(cast.dave).get(f"/evaluations/{evaluation.pk}/decision/").content.decode()

    assert f"/evaluations/{evaluation.pk}/cluster/" in page


def test_an_editor_attaches_a_snapshot_for_the_report_and_a_viewer_cannot(cast):
    evaluation = fill_steps(make_evaluation(cast), cast.bob)
    snap = stored(cast)
    url = f"/evaluations/{evaluation.pk}/cluster/"

    signed_in(cast.dave).post(url, {"snapshot": snap.pk})
    assert not ClusterAttachment.objects.exists()

    signed_in(cast.bob).post(url, {"snapshot": snap.pk})
    assert ClusterAttachment.objects.get(evaluation=evaluation).snapshot == snap

    signed_in(cast.bob).post(url, {"snapshot": ""})
    assert not ClusterAttachment.objects.exists()


def test_another_teams_snapshot_cannot_be_compared(cast):
    evaluation = fill_steps(make_evaluation(cast), cast.bob)
    theirs = cluster_snapshot_upload(
        team=cast.other_team, actor=cast.charlie, body=body(snapshot()), role="admin"
    )

    response = signed_in(cast.bob).get(
        f"/evaluations/{evaluation.pk}/cluster/?snapshot={theirs.pk}"
    )

    assert response.status_code == 404


def test_the_report_gains_a_deployed_state_chapter_once_a_snapshot_is_attached(cast):
    evaluation = fill_steps(make_evaluation(cast), cast.bob)
    assert 'id="deployed"' not in render_to_string(
        TEMPLATE, report_context(evaluation=evaluation, with_map=False)
    )
    cluster_snapshot_attach(evaluation=evaluation, snapshot=stored(cast), actor=cast.bob)

    html = render_to_string(TEMPLATE, report_context(evaluation=evaluation, with_map=False))

    chapter = html[html.index('id="deployed"') :]
    assert "prod-gpu" in chapter
    assert 'Volcano <span class="muted">(scheduler)</span>' in chapter  # decided, absent


def test_the_cluster_list_costs_the_same_queries_for_many_clusters(
    cast, django_assert_max_num_queries
):
    stored(cast)
    client = signed_in(cast.dave)
    client.get("/clusters/")  # warm the session and the translations
    with django_assert_max_num_queries(12) as few:
        client.get("/clusters/")
    for name in ("a", "b", "c", "d", "e"):
        stored(cast, snapshot(f"cluster-{name}"))

    with django_assert_max_num_queries(len(few.captured_queries)):
        page = client.get("/clusters/").content.decode()

    assert "cluster-e" in page
