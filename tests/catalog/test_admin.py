"""The admin edits the catalog through the same service as imports, so edits are recorded."""

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Permission
from django.urls import reverse

from catalog.models import (
    CatalogChange,
    EnforcementPoint,
    Layer,
    PlacementRow,
    Project,
    ResourceUnit,
)
from tests.factories import apply, bundle, placement, project

pytestmark = pytest.mark.django_db


@pytest.fixture
def admin_client(client):
    admin = get_user_model().objects.create_superuser("root", "root@example.org", "pw-root-123")
    client.force_login(admin)
    return client


def _row_form(row, **changes):
    data = {
        "component": row.component,
        "layer": Layer.objects.get(key="data_plane").pk,
        "resource_units": [ResourceUnit.objects.get(key="whole_gpu").pk],
        "enforcement_points": [EnforcementPoint.objects.get(key="driver_hardware").pk],
        "isolation_memory": "hard",
        "isolation_compute": "hard",
        "isolation_fault": "soft",
        "promise": row.promise,
        "non_promise": "",
        "provides": "resource:example.com/gpu",
        "requires": "",
        "accepts": "",
        "exclusive": "owner:node/example-gpu",
        "signals": "",
        "failure_mode_lines": "Pods stay Pending.",
        "evidence_lines": "https://example.org/docs — the docs",
        "unverified_lines": "",
        "project_version": "v1",
        "reviewed_on": "2026-11-29",
    }
    for aspect in ("performance", "reconfiguration", "intrusiveness", "compatibility"):
        data[f"cost_{aspect}"] = "low"
        data[f"cost_{aspect}_note"] = "cheap"
    data.update(changes)
    return data


def test_an_admin_edit_of_a_row_is_validated_applied_and_recorded(admin_client):
    apply(bundle(project("plugin", placement("dp"))))
    row = PlacementRow.objects.get()

    response = admin_client.post(
        reverse("admin:catalog_placementrow_change", args=[row.pk]),
        _row_form(row, promise="Advertises GPUs."),
    )

    assert response.status_code == 302, response.content.decode()[:2000]
    row.refresh_from_db()
    assert row.promise == "Advertises GPUs."
    change = CatalogChange.objects.filter(row_key="dp", source="admin").get()
    assert change.actor.username == "root"
    assert change.changes["promise"]["new"] == "Advertises GPUs."


def test_an_admin_edit_with_a_malformed_interface_is_refused_with_a_message(admin_client):
    apply(bundle(project("plugin", placement("dp"))))
    row = PlacementRow.objects.get()

    response = admin_client.post(
        reverse("admin:catalog_placementrow_change", args=[row.pk]),
        _row_form(row, provides="not an identifier"),
    )

    assert response.status_code == 200
    assert "provides" in response.content.decode()
    assert PlacementRow.objects.get().promise == row.promise


def test_a_maintainer_adds_and_changes_a_project_through_the_admin_with_history(admin_client):
    add = admin_client.post(
        reverse("admin:catalog_project_add"),
        {"slug": "newp", "name": "New P", "vendor": "", "homepage": "", "repository": "",
         "license": "", "description": "", "tag_names": "gpu-sharing, dra"},
    )  # fmt: skip
    assert add.status_code == 302
    project = Project.objects.get(slug="newp")
    assert sorted(project.tags.values_list("name", flat=True)) == ["dra", "gpu-sharing"]

    change = admin_client.post(
        reverse("admin:catalog_project_change", args=[project.pk]),
        {"name": "New Project", "vendor": "ACME", "homepage": "", "repository": "",
         "license": "", "description": "", "tag_names": "dra"},
    )  # fmt: skip
    assert change.status_code == 302
    project.refresh_from_db()
    assert (project.name, project.vendor) == ("New Project", "ACME")
    assert CatalogChange.objects.filter(project_slug="newp", source="admin").count() == 2


def test_an_invalid_project_shows_the_error_on_the_form_and_saves_nothing(admin_client):
    response = admin_client.post(
        reverse("admin:catalog_project_add"),
        {"slug": "bad", "name": "x" * 300, "vendor": "", "homepage": "", "repository": "",
         "license": "", "description": "", "tag_names": ""},
    )  # fmt: skip

    assert response.status_code == 200
    assert not Project.objects.filter(slug="bad").exists()
    assert "was added successfully" not in response.content.decode()


def test_staff_without_the_catalog_maintainer_permission_cannot_change_the_catalog(client):
    staff = get_user_model().objects.create_user("staff", password="pw-staff-123", is_staff=True)
    staff.user_permissions.add(
        *Permission.objects.filter(codename__in=["add_project", "change_project", "view_project"])
    )
    client.force_login(staff)
    apply(bundle(project("kept")))

    add = client.get(reverse("admin:catalog_project_add"))
    change = client.post(
        reverse("admin:catalog_project_change", args=[Project.objects.get(slug="kept").pk]),
        {"name": "Changed", "tag_names": ""},
    )

    assert add.status_code == 403
    assert change.status_code == 403
    assert Project.objects.get(slug="kept").name != "Changed"


def test_an_admin_edit_keeps_the_rows_detection_signatures(admin_client):
    detect = {"daemonsets": ["*example-device-plugin"], "note": "release-name prefix"}
    apply(bundle(project("plugin", placement("dp", detect=detect))))
    row = PlacementRow.objects.get()

    response = admin_client.post(
        reverse("admin:catalog_placementrow_change", args=[row.pk]),
        _row_form(row, promise="Advertises GPUs."),
    )

    assert response.status_code == 302, response.content.decode()[:2000]
    row.refresh_from_db()
    assert row.promise == "Advertises GPUs."
    assert row.detect == detect
