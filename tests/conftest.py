"""Shared fixtures: personas, the built-in catalog, a Celery app on the real Redis."""

from __future__ import annotations

import pytest
from django.core.management import call_command

from tests.factories import make_user
from tests.worker import app_on_broker, redis_url


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
    with app_on_broker(redis_url(), settings) as url:
        yield url
