"""API tokens: created, regenerated and revoked from the account page; the API honours them."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone
from rest_framework.test import APIClient

from ecomap.accounts.models import ApiToken, key_hash
from ecomap.tokens import token_create_for, token_revoke_for

pytestmark = pytest.mark.django_db

TOKEN_URL = reverse("account:token")
CREATE_URL = reverse("account:token-create")
REVOKE_URL = reverse("account:token-revoke")


def api_status(key: str) -> int:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    return client.get("/api/v1/projects/").status_code


def test_a_created_token_authenticates_api_requests(bob):
    token = token_create_for(user=bob)

    assert api_status(token.key) == 200


def test_regenerating_changes_the_key_and_the_old_one_stops_working(bob):
    old = token_create_for(user=bob).key

    new = token_create_for(user=bob).key

    assert new != old
    assert ApiToken.objects.filter(user=bob).count() == 1
    assert api_status(old) == 401
    assert api_status(new) == 200


def test_revoking_makes_the_api_answer_401(bob):
    key = token_create_for(user=bob).key

    assert token_revoke_for(user=bob) is True

    assert api_status(key) == 401
    assert token_revoke_for(user=bob) is False


def test_the_token_page_needs_a_signed_in_user(client):
    response = client.get(TOKEN_URL)

    assert response.status_code == 302
    assert response["Location"].startswith(reverse("login"))


def test_the_page_creates_a_token_and_shows_the_key_only_once(bob_client, bob):
    response = bob_client.post(CREATE_URL)

    assert response.status_code == 302
    first = bob_client.get(TOKEN_URL).content.decode()
    key = re.search(r'value="([0-9a-f]{40})"', first).group(1)
    assert ApiToken.objects.get(user=bob).key_hash == key_hash(key)
    second = bob_client.get(TOKEN_URL).content.decode()
    assert key in first
    assert key not in second
    assert key[:6] in second  # the prefix identifies it
    assert "Authorization: Token $ECOMAP_TOKEN" in first


def test_the_page_regenerates_the_token(bob_client, bob):
    old = token_create_for(user=bob).key

    bob_client.post(CREATE_URL)

    assert ApiToken.objects.get(user=bob).key_hash != key_hash(old)


def test_the_page_revokes_the_token(bob_client, bob):
    key = token_create_for(user=bob).key

    bob_client.post(REVOKE_URL)

    assert not ApiToken.objects.filter(user=bob).exists()
    assert api_status(key) == 401
    assert "You have no API token." in bob_client.get(TOKEN_URL).content.decode()


def test_tokens_are_changed_only_by_post(bob_client, bob):
    assert bob_client.get(CREATE_URL).status_code == 405
    assert bob_client.get(REVOKE_URL).status_code == 405
    assert not ApiToken.objects.filter(user=bob).exists()


def test_one_users_actions_never_touch_another_users_token(bob_client, alice):
    key = token_create_for(user=alice).key

    bob_client.post(REVOKE_URL)

    assert api_status(key) == 200


def test_only_a_hash_of_the_key_is_stored(bob):
    key = token_create_for(user=bob).key

    stored = ApiToken.objects.get(user=bob)
    assert key not in {stored.key_hash, stored.prefix}
    assert stored.key_hash == key_hash(key)
    assert stored.prefix == key[:6]


def test_an_expired_token_is_refused_with_a_reason(bob, settings):
    key = token_create_for(user=bob).key
    ApiToken.objects.filter(user=bob).update(expires_at=timezone.now() - timedelta(seconds=1))
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {key}")

    response = client.get("/api/v1/projects/")

    assert response.status_code == 401
    assert "expired" in response.json()["detail"]


def test_a_token_expires_after_the_configured_days_and_records_its_last_use(bob, settings):
    settings.API_TOKEN_DAYS = 30
    key = token_create_for(user=bob).key
    stored = ApiToken.objects.get(user=bob)
    assert abs((stored.expires_at - timezone.now()) - timedelta(days=30)) < timedelta(minutes=1)
    assert stored.last_used_at is None

    assert api_status(key) == 200

    assert ApiToken.objects.get(user=bob).last_used_at is not None


def test_the_page_shows_expiry_and_last_use_but_never_the_key_again(bob_client, bob):
    key = token_create_for(user=bob).key
    api_status(key)

    page = bob_client.get(TOKEN_URL).content.decode()

    assert "It expires on" in page
    assert "Last used" in page
    assert key not in page
