"""Error pages look like the site (header, what happened in the reader's language, a way back)
with DEBUG off, for 400, 403, a CSRF failure, 404 and 500; the API keeps answering in JSON."""

import pytest
from django.test import Client

pytestmark = pytest.mark.django_db

ENGLISH = {"HTTP_ACCEPT_LANGUAGE": "en"}
CHINESE = {"HTTP_ACCEPT_LANGUAGE": "zh-hans"}


def assert_branded(page: str, code: int):
    assert 'class="topbar"' in page and "EcoMap" in page  # the site's header
    assert f'<p class="error-code">{code}</p>' in page
    assert 'href="/catalog/"' in page  # a way back
    assert "Traceback" not in page and "URLconf" not in page


@pytest.mark.parametrize(("headers", "language"), [(ENGLISH, "en"), (CHINESE, "zh-hans")])
def test_an_unknown_address_gets_the_branded_404_in_the_readers_language(
    settings, bob_client, headers, language
):
    settings.DEBUG = False

    response = bob_client.get("/no-such-page/", **headers)

    assert response.status_code == 404
    page = response.content.decode()
    assert_branded(page, 404)
    assert f'<html lang="{language}">' in page
    assert 'href="/evaluations/"' in page  # signed in: their evaluations too


def test_the_404_page_is_branded_for_visitors_too(settings, client):
    settings.DEBUG = False

    response = client.get("/no-such-page/", **ENGLISH)

    assert response.status_code == 404
    assert_branded(response.content.decode(), 404)
    assert "Sign in" in response.content.decode()


def test_a_refused_page_gets_the_branded_403_with_the_reason(settings, bob_client):
    settings.DEBUG = False

    response = bob_client.post("/catalog/imports/upload/", **ENGLISH)

    assert response.status_code == 403
    page = response.content.decode()
    assert_branded(page, 403)
    assert "Importing needs the catalog-maintainer permission." in page


def test_a_refused_page_speaks_chinese_to_a_chinese_reader(settings, bob_client):
    settings.DEBUG = False

    page = bob_client.post("/catalog/imports/upload/", **CHINESE).content.decode()

    assert '<html lang="zh-hans">' in page
    assert_branded(page, 403)


def test_a_form_without_a_valid_csrf_token_gets_the_branded_csrf_page(settings, bob):
    settings.DEBUG = False
    client = Client(enforce_csrf_checks=True)
    client.force_login(bob)

    response = client.post("/evaluations/new/", {"title": "x"}, **ENGLISH)

    assert response.status_code == 403
    page = response.content.decode()
    assert_branded(page, 403)
    assert "This form could not be sent" in page
    assert "CSRF verification failed" not in page  # not Django's plain page


def test_a_bad_host_gets_the_branded_400(settings, client):
    settings.DEBUG = False

    response = client.get("/catalog/", HTTP_HOST="attacker.example", **ENGLISH)

    assert response.status_code == 400
    assert_branded(response.content.decode(), 400)


@pytest.mark.parametrize(("headers", "language"), [(ENGLISH, "en"), (CHINESE, "zh-hans")])
def test_a_crash_gets_the_branded_500_in_the_readers_language(settings, headers, language):
    settings.DEBUG = False
    settings.ROOT_URLCONF = "tests.error_urls"
    client = Client(raise_request_exception=False)

    response = client.get("/crash/", **headers)

    assert response.status_code == 500
    page = response.content.decode()
    assert_branded(page, 500)
    assert f'<html lang="{language}">' in page
    assert "a bug" not in page


def test_a_crash_under_the_api_is_still_json(settings):
    settings.DEBUG = False
    settings.ROOT_URLCONF = "tests.error_urls"

    response = Client(raise_request_exception=False).get("/api/v1/crash/")

    assert response.status_code == 500
    assert response.json() == {"detail": "Server error."}


def test_the_demo_runs_with_debug_off():
    from pathlib import Path

    from django.conf import settings

    makefile = (Path(settings.BASE_DIR) / "Makefile").read_text()
    demo_recipe = makefile.split("\ndemo:", 1)[1].split("\n\n", 1)[0]
    assert "DEBUG=false" in demo_recipe and "runserver" in demo_recipe
