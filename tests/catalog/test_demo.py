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


def test_setup_demo_ends_with_the_login_and_writes_seeded_mail_to_files(
    settings, tmp_path, django_capture_on_commit_callbacks
):
    # Issue 32 item 6: the login came after ~60 lines of seeded e-mails; the demo settings
    # (ecomap.settings.local) write them to files instead.
    settings.EMAIL_BACKEND = "django.core.mail.backends.filebased.EmailBackend"
    settings.EMAIL_FILE_PATH = str(tmp_path)
    out = StringIO()

    with django_capture_on_commit_callbacks(execute=True):
        call_command("setup_demo", "--url", "http://127.0.0.1:8107/", stdout=out)

    lines = out.getvalue().strip().splitlines()
    assert lines[-1].startswith("Demo account ready: username 'demo', password")
    assert lines[-1].endswith("Open http://127.0.0.1:8107/")
    assert len(lines) <= 5
    assert "Subject:" not in out.getvalue()
    assert list(tmp_path.iterdir())  # the review e-mails of the seeded team
    assert f"E-mails are written to {tmp_path}" in lines[-2]
