"""The busiest catalog reads answer from caches keyed on the catalog revision: few queries once
warm, yet a catalog write, another language or another query shows at once."""

import gzip
import json

import pytest
from django.test import Client
from django.urls import reverse

from catalog.models import Project
from catalog.services import project_delete
from tests.factories import apply, bundle, placement, project, synthetic_bundle

pytestmark = pytest.mark.django_db

CATALOG = "/catalog/"
PROJECTS_API = "/api/v1/projects/"


def test_the_catalog_page_answers_in_four_queries_once_warm(
    bob_client, django_assert_max_num_queries
):
    apply(synthetic_bundle(60, rows_per_project=3))
    bob_client.get(CATALOG)

    # The session, the user, the catalog revision and the inbox's unread count.
    with django_assert_max_num_queries(4):
        response = bob_client.get(CATALOG)

    assert response.status_code == 200
    assert b"Project 00000" in response.content


def test_the_catalog_page_shows_a_write_at_once(bob_client):
    apply(bundle(project("first", placement())))
    assert b"Second Project" not in bob_client.get(CATALOG).content

    apply(bundle(project("second", placement("main", "control_plane"), name="Second Project")))
    response = bob_client.get(CATALOG)

    assert b"Second Project" in response.content
    assert b"2 projects" in response.content


def test_the_catalog_page_shows_a_deletion_at_once(bob_client):
    apply(bundle(project("first", placement()), project("gone", placement(), name="Gone Soon")))
    assert b"Gone Soon" in bob_client.get(CATALOG).content

    project_delete(project=Project.objects.get(slug="gone"))

    assert b"Gone Soon" not in bob_client.get(CATALOG).content


def test_the_cached_catalog_page_follows_the_readers_language(bob_client, builtin_catalog):
    english = bob_client.get(CATALOG).content.decode()
    bob_client.cookies["django_language"] = "zh-hans"
    chinese = bob_client.get(CATALOG).content.decode()

    assert "Data plane" in english and "数据平面" not in english
    assert "数据平面" in chinese


def test_the_cached_catalog_page_follows_the_query(bob_client):
    apply(bundle(project("sched", placement("s", "control_plane")), project("dp", placement())))
    bob_client.get(CATALOG)

    filtered = bob_client.get(CATALOG, {"layer": "control_plane"})

    assert [p.slug for p in filtered.context["page"].object_list] == ["sched"]
    assert b"Clear all filters" in filtered.content


def test_the_navigation_stays_the_readers_own(alice, bob):
    apply(bundle(project("first", placement())))
    alice_client, bob_client = Client(), Client()
    alice_client.force_login(alice)
    bob_client.force_login(bob)
    alice_page = alice_client.get(CATALOG).content.decode()

    bob_page = bob_client.get(CATALOG).content.decode()

    assert "alice" in alice_page and "alice" not in bob_page
    assert "bob" in bob_page


def test_the_unplaced_queue_still_lists_each_projects_tags(alice_client):
    apply(bundle(project("lonely", tags=["awaiting-review"])))

    response = alice_client.get(reverse("imports:unplaced"))

    assert response.status_code == 200
    assert b"awaiting-review" in response.content


def test_the_project_list_api_answers_in_few_queries_once_warm(
    bob_client, django_assert_max_num_queries
):
    apply(synthetic_bundle(60, rows_per_project=3))
    first = bob_client.get(PROJECTS_API).json()

    # The session, the user and the catalog revision.
    with django_assert_max_num_queries(3):
        again = bob_client.get(PROJECTS_API).json()

    assert again == first
    assert len(again["results"]) == 50


def test_the_project_list_api_shows_a_write_at_once(bob_client):
    apply(bundle(project("first", placement())))
    assert [p["slug"] for p in bob_client.get(PROJECTS_API).json()["results"]] == ["first"]

    apply(bundle(project("first", placement(), name="First, renamed"), project("second")))
    results = bob_client.get(PROJECTS_API).json()["results"]

    assert [p["slug"] for p in results] == ["first", "second"]
    assert results[0]["name"] == "First, renamed"


def test_the_project_list_api_caches_each_filter_and_page_apart(bob_client):
    apply(synthetic_bundle(60, rows_per_project=1))
    bob_client.get(PROJECTS_API)

    second = bob_client.get(PROJECTS_API, {"page": 2}).json()
    control = bob_client.get(PROJECTS_API, {"layer": "control_plane"}).json()

    assert len(second["results"]) == 10
    assert second["previous"].endswith("/api/v1/projects/")
    assert control["count"] == 20
    assert {row["layer"] for p in control["results"] for row in p["placements"]} == {
        "control_plane"
    }


def test_the_placement_list_api_shows_a_write_at_once(bob_client):
    apply(bundle(project("first", placement())))
    assert bob_client.get("/api/v1/placements/").json()["count"] == 1

    apply(bundle(project("first", placement(), placement("second", "control_plane"))))

    assert bob_client.get("/api/v1/placements/").json()["count"] == 2


def _gzipped_projects(client, **extra):
    response = client.get(PROJECTS_API, HTTP_ACCEPT_ENCODING="gzip, deflate", **extra)
    assert response["Content-Encoding"] == "gzip"
    assert "Accept-Encoding" in response["Vary"]
    return response


def test_the_project_list_api_compresses_once_yet_pads_each_answer(bob_client, monkeypatch):
    apply(synthetic_bundle(20, rows_per_project=2))
    plain = bob_client.get(PROJECTS_API)
    assert "Content-Encoding" not in plain

    compressions = []
    compress = gzip.compress
    monkeypatch.setattr(
        "ecomap.middleware.gzip.compress",
        lambda *args, **kwargs: compressions.append(1) or compress(*args, **kwargs),
    )

    answers = [_gzipped_projects(bob_client) for _ in range(3)]

    # The same document, compressed once, but with a fresh random padding each time (a file
    # name of 1-100 letters in the gzip header, as Django adds against BREACH).
    assert len(compressions) == 1
    assert all(gzip.decompress(answer.content) == plain.content for answer in answers)
    assert len({answer.content for answer in answers}) > 1
    first = answers[0]
    assert int(first["Content-Length"]) == len(first.content) < len(plain.content)


def test_the_compressed_project_list_shows_a_write_at_once(bob_client):
    apply(bundle(project("first", placement())))
    _gzipped_projects(bob_client)

    apply(bundle(project("first", placement(), name="First, renamed"), project("second")))
    results = json.loads(gzip.decompress(_gzipped_projects(bob_client).content))["results"]

    assert [p["slug"] for p in results] == ["first", "second"]
    assert results[0]["name"] == "First, renamed"


def test_the_browsable_project_list_stays_html(bob_client):
    apply(bundle(project("first", placement())))
    bob_client.get(PROJECTS_API)

    page = bob_client.get(PROJECTS_API, HTTP_ACCEPT="text/html")
    indented = bob_client.get(PROJECTS_API, HTTP_ACCEPT="application/json; indent=2")

    assert page["Content-Type"].startswith("text/html")
    assert b"first" in page.content
    assert indented["Content-Type"] == "application/json"
    assert indented.content.startswith(b'{\n  "count": 1')


def test_a_page_past_the_end_of_a_cached_list_is_still_a_404(bob_client):
    apply(bundle(project("first", placement())))
    bob_client.get(PROJECTS_API)

    response = bob_client.get(PROJECTS_API, {"page": 9})
    again = bob_client.get(PROJECTS_API, {"page": 9})

    assert response.status_code == again.status_code == 404
    assert again.json() == {"detail": "Invalid page."}


# The map page draws its body (filters, table, the figure's data) once per catalog revision,
# language and query (catalog/map/views.py).
MAP = "/map/"


def test_the_map_page_answers_in_four_queries_once_warm(bob_client, django_assert_max_num_queries):
    apply(synthetic_bundle(60, rows_per_project=3))
    bob_client.get(MAP)

    # The session, the user, the catalog revision and the inbox's unread count.
    with django_assert_max_num_queries(4):
        response = bob_client.get(MAP)

    assert response.status_code == 200
    assert b"Project 00000" in response.content


def test_the_map_page_shows_a_write_at_once(bob_client):
    apply(bundle(project("first", placement())))
    assert b"Second Project" not in bob_client.get(MAP).content

    apply(bundle(project("second", placement("main", "control_plane"), name="Second Project")))

    assert b"Second Project" in bob_client.get(MAP).content


def test_the_cached_map_follows_the_readers_language_and_query(bob_client, builtin_catalog):
    english = bob_client.get(MAP).content.decode()
    bob_client.cookies["django_language"] = "zh-hans"
    chinese = bob_client.get(MAP).content.decode()
    bob_client.cookies["django_language"] = "en"
    kueue = bob_client.get(MAP, {"near": "kueue"}).content.decode()

    assert "Rows and contracts" in english and "Rows and contracts" not in chinese
    assert "Three layers, two boundaries" not in chinese
    assert english.count("data-map-row") > kueue.count("data-map-row") > 0


def test_the_embed_link_names_the_host_the_reader_used(bob_client, builtin_catalog):
    bob_client.get(MAP, HTTP_HOST="127.0.0.1")

    content = bob_client.get(MAP, {"layer": "control_plane"}, HTTP_HOST="localhost").content

    assert b'href="http://localhost/map/embed/?layer=control_plane"' in content
