"""Catalog pages for signed-in users, redirects for anonymous ones, and their query budgets."""

import pytest
from django.core.cache import cache
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from tests.factories import apply, bundle, make_user, placement, project, synthetic_bundle

pytestmark = pytest.mark.django_db


def test_anonymous_visitors_are_sent_to_sign_in(client):
    response = client.get(reverse("catalog:project-list"))

    assert response.status_code == 302
    assert response["Location"].startswith(reverse("login"))


def test_the_catalog_lists_projects_with_counts(bob_client, builtin_catalog):
    response = bob_client.get(reverse("catalog:project-list"))

    assert response.status_code == 200
    assert b"HAMi" in response.content
    assert b"Volcano" in response.content
    assert response.context["totals"]["projects"] >= 8


def test_the_catalog_filters_by_layer(bob_client):
    apply(bundle(project("sched", placement("s", "control_plane")), project("dp", placement())))

    response = bob_client.get(reverse("catalog:project-list"), {"layer": "control_plane"})

    names = [p.slug for p in response.context["page"].object_list]
    assert names == ["sched"]


def test_the_catalog_filters_by_free_text_unit_and_tag(bob_client):
    apply(
        bundle(
            project("mig", placement("m", resource_units=["mig_slice"]), tags=["partitioning"]),
            project("ts", placement("t", resource_units=["time_slice"], promise="Takes turns.")),
        )
    )
    url = reverse("catalog:project-list")

    assert [p.slug for p in bob_client.get(url, {"unit": "mig_slice"}).context["page"]] == ["mig"]
    assert [p.slug for p in bob_client.get(url, {"tag": "partitioning"}).context["page"]] == ["mig"]
    assert [p.slug for p in bob_client.get(url, {"q": "turns"}).context["page"]] == ["ts"]


def test_an_empty_result_explains_itself(bob_client):
    response = bob_client.get(reverse("catalog:project-list"), {"q": "no-such-thing"})

    assert b"No project matches these filters" in response.content


def test_the_project_page_shows_each_row_as_a_template_card_with_evidence(bob_client):
    apply(
        bundle(
            project(
                "hami",
                placement(
                    "device-plugin",
                    promise="Caps GPU memory per container.",
                    non_promise="Does not decide which pod gets a GPU.",
                    evidence=[{"url": "https://github.com/Project-HAMi/HAMi", "claim": "README"}],
                ),
            )
        )
    )

    response = bob_client.get(reverse("catalog:project-detail", args=["hami"]))

    content = response.content.decode()
    assert "Caps GPU memory per container." in content
    assert "Does not decide which pod gets a GPU." in content
    assert 'href="https://github.com/Project-HAMi/HAMi"' in content
    assert "Main promise" in content


def test_the_project_page_says_how_generated_configuration_installs_a_row(
    bob_client, builtin_catalog
):
    """HAMi's rows state the chart its v2.10.0 README installs (hami-charts/hami, kube-system)."""
    content = bob_client.get(reverse("catalog:project-detail", args=["hami"])).content.decode()

    assert "Installed by generated configuration" in content
    assert "helm upgrade --install hami hami-charts/hami -n kube-system" in content
    assert 'href="https://github.com/Project-HAMi/HAMi/blob/v2.10.0/README.md"' in content
    bob_client.cookies["django_language"] = "zh-hans"
    chinese = bob_client.get(reverse("catalog:project-detail", args=["hami"])).content.decode()
    assert "生成的部署配置如何安装它" in chinese
    opencost = bob_client.get(reverse("catalog:project-detail", args=["opencost"])).content
    assert "helm upgrade" not in opencost.decode()  # a row without a chart says nothing


def test_an_unknown_project_is_404(bob_client):
    assert bob_client.get(reverse("catalog:project-detail", args=["nope"])).status_code == 404


def test_the_chinese_page_shows_the_chinese_layer_names(bob_client, builtin_catalog):
    bob_client.cookies["django_language"] = "zh-hans"

    content = bob_client.get(reverse("catalog:project-list")).content.decode()

    for name in ("数据平面", "控制面", "平台层"):
        assert name in content
    assert "目录" in content  # "Catalog" in the navigation


def _queries(client, url) -> int:
    # From cold caches each time (the vocabulary's names are cached for a minute), so two
    # measurements differ only by what the page's size costs.
    cache.clear()
    with CaptureQueriesContext(connection) as queries:
        assert client.get(url).status_code == 200
    return len(queries)


def test_the_catalog_list_uses_the_same_number_of_queries_for_10_and_300_projects(bob_client):
    url = reverse("catalog:project-list")
    apply(synthetic_bundle(10, rows_per_project=2))
    small = _queries(bob_client, url)

    apply(synthetic_bundle(300, rows_per_project=2))
    large = _queries(bob_client, url)

    assert small == large


def test_the_project_page_uses_the_same_number_of_queries_for_small_and_large_projects(
    bob_client,
):
    apply(synthetic_bundle(1, rows_per_project=2))
    small = _queries(bob_client, reverse("catalog:project-detail", args=["project-00000"]))

    apply(synthetic_bundle(300, rows_per_project=12))
    large = _queries(bob_client, reverse("catalog:project-detail", args=["project-00299"]))

    assert small == large


def test_healthz_reports_database_and_broker_to_staff(client):
    # Anyone else gets only {"status"} (issue 41 L2, tests/test_healthz.py).
    client.force_login(make_user("ops", is_staff=True))
    response = client.get("/healthz")

    assert response.status_code == 200
    body = response.json()
    assert body["database"]["status"] == "ok"
    assert body["database"]["vendor"] == "postgresql"
    assert body["broker"]["status"] == "ok"
