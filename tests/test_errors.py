"""Unrouted URLs: JSON under /api/ (clients parse it), the site's branded HTML pages elsewhere."""

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
    page = response.content.decode()
    assert "This page does not exist" in page
    assert 'href="/catalog/"' in page  # the site's navigation, not a bare error


def test_a_server_error_page_needs_no_request_context():
    from django.template.loader import render_to_string

    page = render_to_string("500.html")

    assert "Something went wrong on our side" in page
    assert 'href="/catalog/"' in page
