"""/healthz tells anyone only whether the site is healthy (issue 41, L2): during a broker outage an
anonymous or ordinary signed-in caller gets 503 and {"status": "down"}, with no host, port or
error text; staff (the site's operators) see each check with its error. /readyz names what is
down and nothing more."""

from __future__ import annotations

import pytest
from django.test import Client

from tests.factories import make_user
from tests.test_readyz import _closed_port, _use_broker

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def broker_port():
    return _closed_port()


@pytest.fixture
def broker_down(settings, broker_port):
    """The broker URL points at a closed port, with a password in it."""
    yield from _use_broker(settings, f"redis://:hunter2-secret@127.0.0.1:{broker_port}/0")


def _client(user=None) -> Client:
    client = Client()
    if user is not None:
        client.force_login(user)
    return client


def _leaks(text: str, port: int) -> list[str]:
    return [word for word in ("127.0.0.1", str(port), "hunter2", "redis", "Error") if word in text]


def test_anonymous_gets_only_down_during_a_broker_outage(broker_down, broker_port):
    response = _client().get("/healthz")

    assert response.status_code == 503
    assert response.json() == {"status": "down"}
    assert _leaks(response.content.decode(), broker_port) == []


def test_anonymous_gets_only_ok_when_healthy():
    response = _client().get("/healthz")

    assert response.status_code == 200
    assert response.json() == {"status": "ok"}


def test_a_signed_in_member_who_is_not_staff_gets_the_same_short_answer(broker_down, broker_port):
    response = _client(make_user("bob")).get("/healthz")

    assert response.status_code == 503
    assert response.json() == {"status": "down"}


def test_staff_see_each_check_and_the_brokers_error(broker_down, broker_port):
    response = _client(make_user("ops", is_staff=True)).get("/healthz")

    assert response.status_code == 503
    body = response.json()
    assert body["status"] == "down"
    assert body["database"] == {"status": "ok", "vendor": "postgresql"}
    assert body["broker"]["status"] == "down"
    assert str(broker_port) in body["broker"]["error"]  # what an operator needs to know
    assert "hunter2" not in response.content.decode()


def test_readyz_names_what_is_down_and_no_host_or_port(broker_down, broker_port):
    response = _client().get("/readyz")

    assert response.status_code == 503
    assert response.json()["down"] == ["broker"]
    assert [w for w in _leaks(response.content.decode(), broker_port) if w != "redis"] == []
