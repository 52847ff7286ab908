"""Password reset by e-mail (issue 28, L9): the link works once, the answer never tells whether an
account exists, the mail is in the reader's language and requests are rate-limited per address
(failing open when the cache is down)."""

from __future__ import annotations

import logging
import re
import socket

import pytest
from axes.utils import reset as axes_reset
from django.core import mail
from django.core.cache import cache
from django.test import TestCase
from django.urls import reverse
from rest_framework.throttling import SimpleRateThrottle

from tests.factories import make_user

pytestmark = pytest.mark.django_db

RESET_URL = reverse("account:password-reset")
DONE_URL = reverse("account:password-reset-done")
NEW_PASSWORD = "violet-harbour-lantern-42"
SITE_URL = "https://ecomap.example.org"


@pytest.fixture(autouse=True)
def _site(settings):
    settings.SITE_URL = SITE_URL
    cache.clear()  # no rate-limit counts from an earlier test
    yield
    axes_reset()


@pytest.fixture
def erin(db):
    return make_user("erin", email="erin@example.org")


def _reset_rate(settings, monkeypatch, rate: str | None) -> None:
    rates = {**settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"], "password_reset": rate}
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "DEFAULT_THROTTLE_RATES": rates}
    monkeypatch.setattr(SimpleRateThrottle, "THROTTLE_RATES", rates)


def _link_in(message) -> str:
    """The reset link's path, checked to start with the configured site."""
    url = re.search(r"https?://\S+", message.body).group(0)
    assert url.startswith(SITE_URL + "/account/password-reset/")
    return url.removeprefix(SITE_URL)


def ask_reset(client, data: dict[str, str], **extra):
    """POST the reset form; the mail job it enqueues runs once the request's transaction commits."""
    with TestCase.captureOnCommitCallbacks(execute=True):
        return client.post(RESET_URL, data, **extra)


def _without_tokens(page: bytes) -> bytes:
    """The page without its per-response tokens (CSRF, CSP nonce)."""
    return re.sub(rb'"[A-Za-z0-9+/=_-]{20,}"', b'""', page)


def test_the_sign_in_page_offers_the_reset(client):
    page = client.get(reverse("login")).content.decode()

    assert f'href="{RESET_URL}"' in page
    assert "Forgot your password?" in page


def test_a_forgotten_password_is_replaced_through_the_e_mailed_link(client, erin):
    response = ask_reset(client, {"email": "erin@example.org"})

    assert response.status_code == 302
    assert response["Location"] == DONE_URL
    assert len(mail.outbox) == 1
    assert mail.outbox[0].to == ["erin@example.org"]
    assert "Reset your EcoMap password" in mail.outbox[0].subject
    link = _link_in(mail.outbox[0])

    form_page = client.get(link, follow=True)
    assert "Choose a new password" in form_page.content.decode()
    set_url = form_page.redirect_chain[-1][0]
    done = client.post(set_url, {"new_password1": NEW_PASSWORD, "new_password2": NEW_PASSWORD})
    assert done.status_code == 302
    assert done["Location"] == reverse("account:password-reset-complete")

    client.logout()
    signed_in = client.post(reverse("login"), {"username": "erin", "password": NEW_PASSWORD})
    assert signed_in.status_code == 302
    assert client.session["_auth_user_id"] == str(erin.pk)
    old_password = client.post(reverse("login"), {"username": "erin", "password": "erin-password"})
    assert old_password.status_code == 200  # the form again: the old password is gone

    client.logout()
    again = client.get(link, follow=True).content.decode()
    assert "This reset link no longer works" in again


def test_an_unknown_address_gets_the_same_answer_and_no_mail(client, erin):
    known = ask_reset(client, {"email": "erin@example.org"}, follow=True)
    mail.outbox.clear()

    unknown = ask_reset(client, {"email": "nobody@example.org"}, follow=True)

    assert unknown.redirect_chain == known.redirect_chain
    assert _without_tokens(unknown.content) == _without_tokens(known.content)
    assert mail.outbox == []


def test_the_link_names_the_configured_site_not_the_requests_host(client, erin, settings):
    settings.ALLOWED_HOSTS = ["*"]

    ask_reset(client, {"email": "erin@example.org"}, HTTP_HOST="evil.example.net")

    assert "evil.example.net" not in mail.outbox[0].body
    _link_in(mail.outbox[0])


def test_the_mail_and_pages_are_in_chinese_for_a_chinese_reader(client, erin):
    page = client.get(RESET_URL, HTTP_ACCEPT_LANGUAGE="zh-hans").content.decode()
    ask_reset(client, {"email": "erin@example.org"}, HTTP_ACCEPT_LANGUAGE="zh-hans")

    assert "重置密码" in page
    assert "重置" in mail.outbox[0].subject
    assert "链接" in mail.outbox[0].body
    _link_in(mail.outbox[0])


def test_requests_over_the_rate_are_refused_with_when_to_retry(client, erin, settings, monkeypatch):
    _reset_rate(settings, monkeypatch, "2/hour")
    for _ in range(2):
        assert ask_reset(client, {"email": "erin@example.org"}).status_code == 302

    refused = ask_reset(client, {"email": "erin@example.org"})

    assert refused.status_code == 429
    assert int(refused["Retry-After"]) > 0
    assert "Try again in" in refused.content.decode()
    assert len(mail.outbox) == 2


def test_another_address_is_not_slowed_by_the_first(client, erin, settings, monkeypatch):
    _reset_rate(settings, monkeypatch, "1/hour")
    ask_reset(client, {"email": "erin@example.org"}, REMOTE_ADDR="198.51.100.9")
    # a forged X-Forwarded-For does not make a new address
    forged = ask_reset(
        client,
        {"email": "erin@example.org"},
        REMOTE_ADDR="198.51.100.9",
        HTTP_X_FORWARDED_FOR="203.0.113.99",
    )
    assert forged.status_code == 429

    response = ask_reset(client, {"email": "erin@example.org"}, REMOTE_ADDR="203.0.113.7")

    assert response.status_code == 302


def test_a_reset_request_works_with_a_warning_when_the_cache_is_down(
    client, erin, settings, monkeypatch, caplog
):
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        closed_port = sock.getsockname()[1]
    settings.CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": f"redis://127.0.0.1:{closed_port}/0",
        }
    }
    _reset_rate(settings, monkeypatch, "5/hour")

    with caplog.at_level(logging.WARNING, logger="ecomap.outage"):
        response = ask_reset(client, {"email": "erin@example.org"})

    assert response.status_code == 302
    assert len(mail.outbox) == 1
    assert any("cache is unreachable" in record.message for record in caplog.records)


def test_a_reset_ends_the_lockout_of_the_account(client, erin, settings):
    for _ in range(settings.AXES_FAILURE_LIMIT):
        client.post(reverse("login"), {"username": "erin", "password": "guess"})
    locked = client.post(reverse("login"), {"username": "erin", "password": "erin-password"})
    assert locked.status_code == 429
    assert f'href="{RESET_URL}"' in locked.content.decode()  # the way out, on the lock page

    ask_reset(client, {"email": "erin@example.org"})
    set_url = client.get(_link_in(mail.outbox[0]), follow=True).redirect_chain[-1][0]
    client.post(set_url, {"new_password1": NEW_PASSWORD, "new_password2": NEW_PASSWORD})

    signed_in = client.post(reverse("login"), {"username": "erin", "password": NEW_PASSWORD})
    assert signed_in.status_code == 302
