"""`make demo`: setup_demo prints the address actually served; static files come without DEBUG."""

from io import StringIO

import pytest
from django.core.management import call_command

pytestmark = pytest.mark.django_db


def test_setup_demo_prints_the_address_it_was_given():
    out = StringIO()

    call_command("setup_demo", "--url", "http://127.0.0.1:8107/", stdout=out)

    assert "Open http://127.0.0.1:8107/" in out.getvalue()
    assert "8000" not in out.getvalue()


def test_setup_demo_takes_the_address_from_the_environment(monkeypatch):
    monkeypatch.setenv("DEMO_URL", "http://localhost:9001/")
    out = StringIO()

    call_command("setup_demo", stdout=out)

    assert "Open http://localhost:9001/" in out.getvalue()


def test_static_files_are_served_with_debug_off(settings, client):
    settings.DEBUG = False

    response = client.get("/static/css/ecomap.css")

    assert response.status_code == 200
