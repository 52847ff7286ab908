"""The CNCF landscape: 2,413 items become unplaced projects; placed GPU projects are linked."""

from pathlib import Path

import pytest
from django.core.management import call_command

from catalog.imports.models import ImportJob
from catalog.models import Project

# A copy of the CNCF landscape (cncf/landscape, Apache-2.0) as of 2026-11, 2,413 items.
LANDSCAPE = Path(__file__).resolve().parents[2] / "data" / "cncf-landscape.yml"

pytestmark = pytest.mark.django_db


def test_the_landscape_imports_once_links_gpu_projects_and_changes_nothing_the_second_time(
    builtin_catalog,
):
    placed_before = set(Project.objects.placed().values_list("slug", flat=True))

    call_command("import_bundle", str(LANDSCAPE), verbosity=0)
    first = ImportJob.objects.get()
    call_command("import_bundle", str(LANDSCAPE), verbosity=0)
    second = ImportJob.objects.first()

    assert first.total == 2413
    linked = {item["project"] for item in first.linked}
    assert {
        "hami",
        "volcano",
        "kueue",
        "kai-scheduler",
        "koordinator",
        "yunikorn",
        "kuberay",
    } <= linked
    assert not Project.objects.filter(slug__in=["yunikorn-2", "apache-yunikorn"]).exists()
    assert Project.objects.filter(name__iexact="volcano").count() == 1
    assert set(Project.objects.placed().values_list("slug", flat=True)) == placed_before
    assert Project.objects.unplaced().count() > 2000
    assert second.counts["projects"]["created"] == 0
    assert second.counts["projects"]["updated"] == 0
