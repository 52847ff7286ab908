"""With the cache (Redis) unreachable, requests fail open: rate limits let writes through with a
logged warning instead of a 500 (issue 28, M3)."""

from __future__ import annotations

import logging
import os
import socket
import subprocess
import sys

import pytest
from django.core.cache import cache
from rest_framework.test import APIClient
from rest_framework.throttling import SimpleRateThrottle

from catalog.models import Project
from tests.factories import placement, project

pytestmark = pytest.mark.django_db


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]  # nothing listens once the socket is closed


def _rates(settings, monkeypatch, rates: dict[str, str]) -> None:
    """Throttle rates on, in the settings and where DRF's base class read them at import."""
    rates = {**settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"], **rates}
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "DEFAULT_THROTTLE_RATES": rates}
    monkeypatch.setattr(SimpleRateThrottle, "THROTTLE_RATES", rates)


@pytest.fixture
def cache_down(settings, monkeypatch):
    """Production's cache backend, pointed at a port where no Redis answers."""
    settings.CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": f"redis://127.0.0.1:{_closed_port()}/0",
        }
    }
    _rates(settings, monkeypatch, {"catalog_write": "120/min", "import": "20/min"})


@pytest.fixture
def throttled(settings, monkeypatch):
    """Low rate limits on the test's (working) local cache."""
    _rates(settings, monkeypatch, {"catalog_write": "2/min", "import": "2/min"})
    cache.clear()
    yield
    cache.clear()


@pytest.fixture
def maintainer_api(alice):
    client = APIClient()
    client.force_authenticate(alice)
    return client


def test_a_catalog_write_succeeds_with_a_warning_when_the_cache_is_down(
    cache_down, maintainer_api, caplog
):
    with caplog.at_level(logging.WARNING, logger="ecomap.outage"):
        response = maintainer_api.post(
            "/api/v1/projects/",
            project("kueue", placement("controller", "control_plane")),
            format="json",
        )

    assert response.status_code == 201
    assert Project.objects.filter(slug="kueue").exists()
    assert any("cache is unreachable" in record.message for record in caplog.records)


def test_catalog_writes_over_the_rate_are_refused_while_the_cache_works(throttled, maintainer_api):
    for slug in ("a-one", "a-two"):
        body = project(slug, placement("controller", "control_plane"))
        assert maintainer_api.post("/api/v1/projects/", body, format="json").status_code == 201

    response = maintainer_api.post(
        "/api/v1/projects/", project("a-three", placement("x", "control_plane")), format="json"
    )

    assert response.status_code == 429
    assert not Project.objects.filter(slug="a-three").exists()


@pytest.fixture
def site_cache_down(settings):
    """The site's cache as settings build it from a redis:// CACHE_URL, with no Redis there."""
    settings.CACHES = {
        "default": {
            "BACKEND": settings.FAIL_OPEN_REDIS_CACHE,
            "LOCATION": f"redis://127.0.0.1:{_closed_port()}/0",
        }
    }


@pytest.mark.parametrize(
    ("module", "environment"),
    [
        ("ecomap.settings.local", {"CACHE_URL": "redis://127.0.0.1:6379/2"}),
        ("ecomap.settings.production", {"BROKER_URL": "redis://127.0.0.1:6379/0"}),
    ],
)
def test_a_redis_cache_gets_the_fail_open_backend(module, environment):
    env = {
        **{k: v for k, v in os.environ.items() if k != "CACHE_URL"},
        **environment,
        "DJANGO_SETTINGS_MODULE": module,
        "SECRET_KEY": "x" * 60,
        "ALLOWED_HOSTS": "example.org",
    }
    code = "from django.conf import settings; print(settings.CACHES['default']['BACKEND'])"
    out = subprocess.run(  # noqa: S603
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
    )

    assert out.stdout.strip() == "ecomap.outage.FailOpenRedisCache"


@pytest.mark.parametrize(
    "path", ["/catalog/", "/map/", "/matrix/", "/api/v1/projects/", "/", "/inbox/"]
)
def test_pages_that_cache_answer_with_the_cache_down(site_cache_down, client, alice, path, caplog):
    Project.objects.create(slug="kueue", name="Kueue")
    client.force_login(alice)

    with caplog.at_level(logging.WARNING, logger="ecomap.outage"):
        response = client.get(path)

    assert response.status_code == 200, path
