"""Unrouted URLs: JSON under /api/ (clients parse it), Django's HTML page elsewhere."""

import pytest

pytestmark = pytest.mark.django_db


def test_an_api_url_no_route_matches_is_a_json_404(alice_client):
    response = alice_client.post("/api/v1/evaluations/2.5e-16/reports/")

    assert response.status_code == 404
    assert response["Content-Type"] == "application/json"
    assert response.json() == {"detail": "Not found."}


def test_a_page_url_no_route_matches_is_an_html_404(alice_client):
    response = alice_client.get("/no-such-page/")

    assert response.status_code == 404
    assert response["Content-Type"].startswith("text/html")
