"""Catalog writes of one project serialise: two imports creating the same new project at once
give one create and one update, never a duplicate-key error, and history starts from real values."""

from __future__ import annotations

import json
import threading

import pytest
from django.db import connection

from catalog.imports.services import import_submit
from catalog.models import CatalogChange, Project
from tests.factories import bundle, placement, project

pytestmark = pytest.mark.django_db(transaction=True)


def _import_in_thread(document: dict, results: list, barrier: threading.Barrier) -> None:
    try:
        barrier.wait()
        job = import_submit(text=json.dumps(document), source="race", inline=True)
        results.append(job.status)
    except Exception as exc:  # the test reports whatever escaped, it must be nothing
        results.append(repr(exc))
    finally:
        connection.close()


@pytest.mark.skipif(connection.vendor != "postgresql", reason="needs concurrent transactions")
def test_two_imports_creating_one_new_project_at_once_both_succeed_in_order():
    for _trial in range(5):
        Project.objects.filter(slug="raced").delete()
        documents = [
            bundle(project("raced", placement("x", promise=f"Promise {n}."), name=f"Raced {n}"))
            for n in (1, 2)
        ]
        results: list = []
        barrier = threading.Barrier(2)
        threads = [
            threading.Thread(target=_import_in_thread, args=(document, results, barrier))
            for document in documents
        ]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=60)

        assert sorted(results) == ["succeeded", "succeeded"], results
        assert Project.objects.filter(slug="raced").count() == 1
        names = list(
            CatalogChange.objects.filter(project_slug="raced", row_key="")
            .order_by("id")
            .values_list("action", "changes")
        )
        # One created it; the other updated it from the name the first really stored.
        assert [action for action, _changes in names[-2:]] == ["created", "updated"]
        renamed = names[-1][1]["name"]
        assert {renamed["old"], renamed["new"]} == {"Raced 1", "Raced 2"}
