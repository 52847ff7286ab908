"""Data migrations keep what is in flight: a queued import's payload survives 0005."""

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

from catalog.imports.services import unpack_payload

pytestmark = pytest.mark.django_db(transaction=True)

BEFORE = [("catalog", "0004_matrix_snapshot")]
AFTER = [("catalog", "0005_import_payload_packed")]


def _migrate(targets):
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(targets)
    return executor.loader.project_state(targets).apps


def test_a_queued_imports_json_payload_is_packed_and_back():
    old_apps = _migrate(BEFORE)
    try:
        ImportJob = old_apps.get_model("catalog", "ImportJob")
        document = {"normalized": [{"slug": "hami", "name": "HAMi", "placements": []}]}
        queued = ImportJob.objects.create(format="bundle", total=1, payload=document)
        done = ImportJob.objects.create(format="bundle", total=1, payload=None)

        new_apps = _migrate(AFTER)
        ImportJob = new_apps.get_model("catalog", "ImportJob")
        assert unpack_payload(ImportJob.objects.get(id=queued.id).payload) == document
        assert ImportJob.objects.get(id=done.id).payload is None

        old_apps = _migrate(BEFORE)
        ImportJob = old_apps.get_model("catalog", "ImportJob")
        assert ImportJob.objects.get(id=queued.id).payload == document
    finally:
        _migrate(MigrationExecutor(connection).loader.graph.leaf_nodes())
