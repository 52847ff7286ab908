"""An import's dry-run diff shows the items a list field gained and lost, not the whole list
twice (issue 31: the `provides` list shown twice for one item removed)."""

from __future__ import annotations

import json

import pytest

from catalog.imports.selectors import import_job_changes
from catalog.imports.services import import_submit
from tests.factories import apply, bundle, placement, project

pytestmark = pytest.mark.django_db

PROVIDES = ["resource:example.com/gpu", "signal:example/util", "capability:quota"]


def _dry_run(alice, provides: list[str]):
    document = bundle(project("plugin", placement("main", provides=provides)))
    return import_submit(text=json.dumps(document), actor=alice, dry_run=True)


def test_one_item_removed_is_shown_as_that_item(alice, alice_client):
    apply(bundle(project("plugin", placement("main", provides=PROVIDES))))

    job = _dry_run(alice, [PROVIDES[0], PROVIDES[2]])

    [item] = [i for i in import_job_changes(job=job) if i.row == "main"]
    [change] = [f for f in item.fields if f.field == "provides"]
    assert (change.removed, change.added) == (("signal:example/util",), ())
    page = alice_client.get(f"/catalog/imports/{job.pk}/").content.decode()
    assert "<del>signal:example/util</del>" in page
    assert "resource:example.com/gpu" not in page  # the items kept are not repeated


def test_an_item_added_and_one_removed_are_both_shown(alice):
    apply(bundle(project("plugin", placement("main", provides=PROVIDES))))

    job = _dry_run(alice, [*PROVIDES[:2], "capability:preemption"])

    [item] = [i for i in import_job_changes(job=job) if i.row == "main"]
    [change] = [f for f in item.fields if f.field == "provides"]
    assert change.added == ("capability:preemption",)
    assert change.removed == ("capability:quota",)


def test_a_text_field_still_shows_before_and_after(alice):
    apply(bundle(project("plugin", placement("main", promise="Old promise."))))

    job = import_submit(
        text=json.dumps(bundle(project("plugin", placement("main", promise="New promise.")))),
        actor=alice,
        dry_run=True,
    )

    [item] = [i for i in import_job_changes(job=job) if i.row == "main"]
    [change] = [f for f in item.fields if f.field == "promise"]
    assert (change.old, change.new) == ("Old promise.", "New promise.")
