"""/readyz (DESIGN "readiness", issue 32 item 5): 200 when the database, broker and cache answer;
503 naming what is down, quickly, without echoing connection strings."""

from __future__ import annotations

import socket
import time

import pytest

from ecomap.celery import app

pytestmark = pytest.mark.django_db(transaction=True)


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]  # nothing listens once the socket is closed


def _use_broker(settings, url: str):
    previous = dict(app.conf)
    app.conf.update(broker_url=url, task_always_eager=False)
    app._pool = None
    app.amqp._producer_pool = None
    settings.CELERY_TASK_ALWAYS_EAGER = False
    yield
    app.conf.update(
        broker_url=previous["broker_url"], task_always_eager=previous["task_always_eager"]
    )
    app._pool = None
    app.amqp._producer_pool = None


@pytest.fixture
def broker_up(settings):
    """A real Redis broker (the test Redis), not eager mode."""
    yield from _use_broker(settings, settings.TEST_REDIS_URL)


@pytest.fixture
def broker_down(settings):
    """The broker URL points at a closed port, with a password in it that must not leak."""
    yield from _use_broker(settings, f"redis://:hunter2-secret@127.0.0.1:{_closed_port()}/0")


@pytest.fixture
def redis_cache(settings):
    """Production's cache backend on the test Redis."""
    settings.CACHES = {
        "default": {
            "BACKEND": "ecomap.outage.FailOpenRedisCache",
            "LOCATION": settings.TEST_REDIS_URL,
        }
    }


def test_it_is_ready_when_database_broker_and_cache_answer(client, broker_up, redis_cache):
    response = client.get("/readyz")

    assert response.status_code == 200
    assert response.json() == {
        "status": "ready",
        "checks": {"database": "ok", "broker": "ok", "cache": "ok"},
        "down": [],
    }


def test_it_answers_503_naming_the_broker_when_the_broker_is_stopped(client, broker_down):
    started = time.perf_counter()
    response = client.get("/readyz")

    assert time.perf_counter() - started < 5  # READYZ_TIMEOUT (2 s) plus slack
    assert response.status_code == 503
    body = response.json()
    assert body["down"] == ["broker"]
    assert body["checks"]["database"] == "ok"
    assert "hunter2" not in response.content.decode()
    assert "redis://" not in response.content.decode()


def test_it_names_the_cache_when_redis_as_cache_is_unreachable(client, settings):
    # The fail-open cache would hide the outage from pages; readiness must not be fooled.
    settings.CACHES = {
        "default": {
            "BACKEND": "ecomap.outage.FailOpenRedisCache",
            "LOCATION": f"redis://:hunter2-secret@127.0.0.1:{_closed_port()}/0",
        }
    }

    response = client.get("/readyz")

    assert response.status_code == 503
    assert response.json()["down"] == ["cache"]
    assert "hunter2" not in response.content.decode()


def test_a_hanging_dependency_is_reported_as_a_timeout(client, settings, monkeypatch):
    from ecomap import health

    settings.READYZ_TIMEOUT = 0.3
    monkeypatch.setitem(health.READINESS_CHECKS, "cache", lambda: time.sleep(2))

    started = time.perf_counter()
    response = client.get("/readyz")

    assert time.perf_counter() - started < 1.5
    assert response.status_code == 503
    assert response.json()["checks"]["cache"] == "timeout"
