"""Shared fixtures: personas, the built-in catalog, a Celery app on the real Redis."""

from __future__ import annotations

import pytest
import redis
from django.core.management import call_command

from ecomap.celery import app
from tests.factories import make_user
from tests.worker import redis_url, transport_options


@pytest.fixture
def alice(db):
    """A catalog maintainer."""
    return make_user("alice", maintainer=True)


@pytest.fixture
def bob(db):
    """A signed-in reader without catalog write permission."""
    return make_user("bob")


@pytest.fixture
def bob_client(client, bob):
    client.force_login(bob)
    return client


@pytest.fixture
def alice_client(client, alice):
    client.force_login(alice)
    return client


@pytest.fixture
def builtin_catalog(db):
    call_command("load_catalog", verbosity=0)


@pytest.fixture(autouse=True)
def _empty_cache():
    """Pages cache catalog data per catalog revision, and factories build catalogs without
    recording a revision: every test starts from an empty (per-process) cache."""
    from django.core.cache import cache

    cache.clear()


@pytest.fixture(autouse=True)
def _seeded_vocabulary(request):
    """Transactional tests flush every table, the seeded vocabulary included: put it back."""
    marker = request.node.get_closest_marker("django_db")
    if marker and marker.kwargs.get("transaction"):
        from catalog.models import EnforcementPoint, Function, Layer, ResourceUnit
        from catalog.vocabulary import seed_functions, seed_vocabulary

        request.getfixturevalue("transactional_db")
        seed_vocabulary(Layer, ResourceUnit, EnforcementPoint)
        seed_functions(Function, Layer)


@pytest.fixture
def celery_broker(settings):
    """The project's Celery app pointed at the real Redis (own key prefix), not eager."""
    url = redis_url()
    previous = dict(app.conf)
    app.conf.update(
        broker_url=url,
        task_always_eager=False,
        result_backend=None,
        broker_transport_options=transport_options(),
    )
    # The app may already hold a memory:// producer pool from eager tests: drop it.
    app._pool = None
    app.amqp._producer_pool = None
    settings.CELERY_TASK_ALWAYS_EAGER = False
    yield url
    app.conf.update(
        broker_url=previous["broker_url"],
        task_always_eager=previous["task_always_eager"],
        result_backend=previous["result_backend"],
        broker_transport_options=previous["broker_transport_options"],
    )
    app._pool = None
    app.amqp._producer_pool = None
    client = redis.Redis.from_url(url)
    for key in client.scan_iter(match=f"{transport_options()['global_keyprefix']}*"):
        client.delete(key)
