"""bundle_apply: the one write path of the catalog."""

import pytest
from django.core.management import call_command

from catalog.engine.bundle import BundleInvalid
from catalog.models import CatalogChange, PlacementRow, Project
from catalog.selectors import bundle_export
from tests.factories import apply, bundle, placement, project

pytestmark = pytest.mark.django_db


def test_applying_a_bundle_creates_projects_rows_and_their_contracts():
    result = apply(
        bundle(
            project(
                "hami",
                placement("device-plugin", provides=["resource:nvidia.com/gpumem"],
                          exclusive=["owner:node/nvidia-gpu"]),
            )
        )
    )  # fmt: skip

    assert result.counts()["projects"]["created"] == 1
    row = PlacementRow.objects.get(project__slug="hami", key="device-plugin")
    assert row.layer.key == "data_plane"
    identifiers = {(c.relation, c.interface.identifier) for c in row.contracts.all()}
    assert identifiers == {
        ("provides", "resource:nvidia.com/gpumem"),
        ("exclusive", "owner:node/nvidia-gpu"),
    }


def test_applying_the_same_bundle_twice_changes_nothing_the_second_time():
    document = bundle(project("volcano", placement("scheduler", "control_plane")))
    apply(document)
    changes_before = CatalogChange.objects.count()

    second = apply(document)

    assert second.changed == 0
    assert CatalogChange.objects.count() == changes_before


def test_an_update_records_who_changed_which_field(alice):
    apply(bundle(project("kueue", placement("controller", "control_plane", promise="Old."))))

    result = apply(
        bundle(project("kueue", placement("controller", "control_plane", promise="New."))),
        actor=alice,
    )

    assert result.counts()["rows"]["updated"] == 1
    change = CatalogChange.objects.filter(row_key="controller").first()
    assert change.actor == alice
    assert change.action == "updated"
    assert change.changes == {"promise": {"old": "Old.", "new": "New."}}


def test_a_bundle_with_one_bad_row_writes_nothing_and_names_the_row():
    good = [project(f"good-{i}", placement()) for i in range(3)]
    bad = project("bad", placement(), placement("second", layer="data_plane"))
    bad["placements"][1]["layer"] = "gpu_layer"

    with pytest.raises(BundleInvalid) as caught:
        apply(bundle(*good, bad))

    assert Project.objects.count() == 0
    [error] = caught.value.errors
    assert error.path == "projects[3].placements[1].layer"
    assert "data_plane" in error.allowed


def test_a_dry_run_reports_field_changes_and_writes_nothing():
    apply(bundle(project("gpustack", placement("server", "platform", promise="Before."))))

    result = apply(
        bundle(project("gpustack", placement("server", "platform", promise="After."))),
        dry_run=True,
    )

    [change] = [item for item in result.items if item.action != "unchanged"]
    assert change.changes["promise"] == {"old": "Before.", "new": "After."}
    assert PlacementRow.objects.get(key="server").promise == "Before."


def test_export_then_import_into_an_empty_catalog_gives_the_identical_document(builtin_catalog):
    exported = bundle_export()
    Project.objects.all().delete()

    apply(exported)

    assert bundle_export() == exported


def test_load_catalog_twice_changes_nothing_the_second_time(db):
    call_command("load_catalog", verbosity=0)
    revision = CatalogChange.objects.count()
    projects = Project.objects.count()

    call_command("load_catalog", verbosity=0)

    assert CatalogChange.objects.count() == revision
    assert Project.objects.count() == projects >= 8
