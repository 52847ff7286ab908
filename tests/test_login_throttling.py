"""Sign-in throttling (django-axes): repeated failures lock one account from one address for a
while, on the site and in the admin, and the page says when to try again. Failures elsewhere
never lock the account's owner out (issue 28, L9)."""

from __future__ import annotations

import pytest
from axes.utils import reset
from django.test import Client
from django.urls import reverse

from tests.factories import make_user

pytestmark = pytest.mark.django_db

PASSWORD = "right-horse-battery-staple"


@pytest.fixture
def erin():
    user = make_user("erin", is_staff=True, is_superuser=True)
    user.set_password(PASSWORD)
    user.save()
    yield user
    reset()


def sign_in(client: Client, url: str, password: str, address: str = "203.0.113.7"):
    return client.post(
        url, {"username": "erin", "password": password}, REMOTE_ADDR=address, follow=False
    )


@pytest.mark.parametrize("url_name", ["login", "admin:login"])
def test_after_five_wrong_passwords_even_the_right_one_is_refused(client, erin, settings, url_name):
    url = reverse(url_name)
    for _ in range(settings.AXES_FAILURE_LIMIT - 1):
        assert sign_in(client, url, "wrong").status_code == 200  # the form again, with an error
    assert sign_in(client, url, "wrong").status_code == 429  # the limit: locked from now on

    locked = sign_in(client, url, PASSWORD)

    assert locked.status_code == 429
    assert "Try again in 15 minutes" in locked.content.decode()
    assert "_auth_user_id" not in client.session


def test_failures_from_another_address_do_not_lock_the_account_here(client, erin, settings):
    url = reverse("login")
    for _ in range(settings.AXES_FAILURE_LIMIT):
        sign_in(client, url, "wrong", address="198.51.100.9")  # someone else, elsewhere
    assert sign_in(client, url, PASSWORD, address="198.51.100.9").status_code == 429

    response = sign_in(client, url, PASSWORD, address="203.0.113.7")  # erin, at her desk

    assert response.status_code == 302
    assert client.session["_auth_user_id"] == str(erin.pk)


def test_failures_for_other_accounts_do_not_lock_this_one_from_the_same_address(
    client, erin, settings
):
    url = reverse("login")
    for _ in range(settings.AXES_FAILURE_LIMIT):
        client.post(url, {"username": "nobody", "password": "x"}, REMOTE_ADDR="198.51.100.9")

    response = sign_in(client, url, PASSWORD, address="198.51.100.9")

    assert response.status_code == 302


def test_a_success_before_the_limit_clears_the_count(client, erin, settings):
    url = reverse("login")
    for _ in range(settings.AXES_FAILURE_LIMIT - 1):
        sign_in(client, url, "wrong")

    assert sign_in(client, url, PASSWORD).status_code == 302
    client.logout()
    for _ in range(settings.AXES_FAILURE_LIMIT - 1):
        assert sign_in(client, url, "wrong").status_code == 200


def test_a_forged_forwarded_for_header_does_not_dodge_the_lockout(client, erin, settings):
    url = reverse("login")
    for i in range(settings.AXES_FAILURE_LIMIT):
        client.post(
            url,
            {"username": "erin", "password": "wrong"},
            REMOTE_ADDR="198.51.100.9",
            HTTP_X_FORWARDED_FOR=f"192.0.2.{i}",
        )

    response = client.post(
        url,
        {"username": "erin", "password": PASSWORD},
        REMOTE_ADDR="198.51.100.9",
        HTTP_X_FORWARDED_FOR="192.0.2.200",
    )

    assert response.status_code == 429


def test_behind_a_trusted_proxy_each_client_address_counts_apart(client, erin, settings):
    settings.TRUSTED_PROXIES = 1
    url = reverse("login")
    proxy = "10.0.0.2"
    for _ in range(settings.AXES_FAILURE_LIMIT):
        client.post(
            url,
            {"username": "erin", "password": "wrong"},
            REMOTE_ADDR=proxy,
            HTTP_X_FORWARDED_FOR="6.6.6.6, 198.51.100.9",  # the proxy appended the last one
        )
    locked = client.post(
        url,
        {"username": "erin", "password": PASSWORD},
        REMOTE_ADDR=proxy,
        HTTP_X_FORWARDED_FOR="198.51.100.9",
    )
    assert locked.status_code == 429

    response = client.post(
        url,
        {"username": "erin", "password": PASSWORD},
        REMOTE_ADDR=proxy,
        HTTP_X_FORWARDED_FOR="203.0.113.7",
    )

    assert response.status_code == 302
