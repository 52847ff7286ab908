"""Shared fixtures: personas, the built-in catalog, a Celery app on the real Redis."""

from __future__ import annotations

import pytest
from django.core.management import call_command

from tests.factories import make_user


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
