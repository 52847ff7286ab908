"""Tokens issued before hashing keep working after the migration, and no plaintext remains."""

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from rest_framework.test import APIClient

from tests.factories import make_user

pytestmark = pytest.mark.django_db(transaction=True)

BEFORE = [("accounts", "0001_api_token"), ("authtoken", "0004_alter_tokenproxy_options")]
AFTER = [("accounts", "0002_hash_existing_tokens")]


def _migrate(targets):
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(targets)
    return executor.loader.project_state(targets).apps


def test_plaintext_tokens_become_hashed_and_still_authenticate():
    try:
        old_apps = _migrate(BEFORE)
        user = make_user("legacy")
        plain = old_apps.get_model("authtoken", "Token").objects.create(
            key="0123456789abcdef0123456789abcdef01234567", user_id=user.pk
        )

        new_apps = _migrate(AFTER)

        assert not new_apps.get_model("authtoken", "Token").objects.exists()
        stored = new_apps.get_model("accounts", "ApiToken").objects.get(user_id=user.pk)
        assert stored.prefix == "012345" and plain.key not in stored.key_hash
    finally:
        _migrate(MigrationExecutor(connection).loader.graph.leaf_nodes())
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {plain.key}")
    assert client.get("/api/v1/projects/").status_code == 200
