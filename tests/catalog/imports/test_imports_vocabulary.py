"""A queued import re-checks the vocabulary, which may change between submit and run."""

import json

import pytest
from django.test import override_settings

from catalog.imports.models import ImportJob
from catalog.imports.services import import_run, import_submit
from catalog.models import Project, ResourceUnit
from tests.factories import synthetic_bundle

pytestmark = pytest.mark.django_db


@override_settings(IMPORT_INLINE_MAX_ITEMS=1)
def test_a_queued_import_fails_cleanly_if_its_vocabulary_was_removed_meanwhile(alice):
    job = import_submit(text=json.dumps(synthetic_bundle(3)), actor=alice, inline=False)
    assert job.status == ImportJob.Status.PENDING
    ResourceUnit.objects.filter(key="whole_gpu").delete()

    import_run(job_id=job.id)

    job.refresh_from_db()
    assert job.status == ImportJob.Status.FAILED
    assert job.errors[0]["path"].endswith("resource_units")
    assert "whole_gpu" in job.errors[0]["message"]
    assert Project.objects.count() == 0


@override_settings(IMPORT_INLINE_MAX_ITEMS=1)
def test_a_queued_import_run_twice_applies_once(alice):
    job = import_submit(text=json.dumps(synthetic_bundle(3)), actor=alice, inline=False)

    import_run(job_id=job.id)
    import_run(job_id=job.id)

    job.refresh_from_db()
    assert job.status == ImportJob.Status.SUCCEEDED
    assert job.counts["projects"]["created"] == 3
    assert Project.objects.count() == 3
