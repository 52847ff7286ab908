"""Who may use which API endpoint: anonymous users none, readers read, maintainers write."""

import pytest
from rest_framework.test import APIClient

from ecomap.tokens import token_create_for, token_revoke_for
from tests.factories import apply, bundle, placement, project

pytestmark = pytest.mark.django_db

READ_ENDPOINTS = [
    "/api/v1/projects/",
    "/api/v1/projects/hami/",
    "/api/v1/placements/",
    "/api/v1/interfaces/",
    "/api/v1/vocabulary/",
    "/api/v1/imports/",
    "/api/v1/imports/csv-template/",
    "/api/v1/export/",
    "/api/v1/schema/bundle/",
]
WRITES = [
    ("post", "/api/v1/projects/"),
    ("put", "/api/v1/projects/hami/"),
    ("delete", "/api/v1/projects/hami/"),
    ("post", "/api/v1/imports/"),
]


@pytest.fixture(autouse=True)
def hami(db):
    apply(bundle(project("hami", placement("device-plugin"))))


@pytest.mark.parametrize("url", READ_ENDPOINTS)
def test_anonymous_requests_are_refused_with_401(url):
    assert APIClient().get(url).status_code == 401


@pytest.mark.parametrize(("method", "url"), WRITES)
def test_anonymous_writes_are_refused_with_401(method, url):
    assert getattr(APIClient(), method)(url, {}, format="json").status_code == 401


@pytest.mark.parametrize("url", READ_ENDPOINTS)
def test_a_signed_in_reader_can_read_everything(bob, url):
    client = APIClient()
    client.force_authenticate(bob)

    assert client.get(url).status_code == 200


@pytest.mark.parametrize(("method", "url"), WRITES)
def test_a_reader_without_the_maintainer_permission_cannot_write(bob, method, url):
    client = APIClient()
    client.force_authenticate(bob)

    response = getattr(client, method)(url, {"slug": "x", "name": "X"}, format="json")

    assert response.status_code == 403


def test_a_token_authenticates_api_requests(bob):
    key = token_create_for(user=bob).key
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {key}")

    assert client.get("/api/v1/projects/").status_code == 200


def test_a_revoked_token_no_longer_works(bob):
    key = token_create_for(user=bob).key
    token_revoke_for(user=bob)
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {key}")

    assert client.get("/api/v1/projects/").status_code == 401
