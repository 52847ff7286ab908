"""Functions on placement rows (what question a row answers), verification dates, and the catalog's
own housekeeping: retired rows, rows paired with themselves."""

from __future__ import annotations

import datetime as dt
from io import StringIO

import pytest
from django.core.management import call_command
from django.urls import reverse
from rest_framework.test import APIClient

from catalog.coverage.selectors import catalog_coverage
from catalog.engine.bundle import BundleInvalid
from catalog.matrix.services import matrix_refresh_request, matrix_snapshot_compute
from catalog.models import CatalogChange, PlacementRow
from catalog.selectors import bundle_export
from tests.factories import apply, bundle, placement, project

pytestmark = pytest.mark.django_db


def test_a_bundle_without_functions_gets_them_inferred_and_marked():
    apply(
        bundle(
            project(
                "queue",
                placement(
                    "controller",
                    "control_plane",
                    enforcement_points=["admission"],
                    provides=["capability:quota", "capability:gang-scheduling"],
                ),
            )
        )
    )

    row = PlacementRow.objects.get(key="controller")
    assert row.functions == ["quota", "gang"]
    assert row.functions_inferred


def test_listed_functions_are_kept_in_vocabulary_order_and_not_marked():
    apply(bundle(project("p", placement("x", functions=["observe", "present"]))))

    row = PlacementRow.objects.get(key="x")
    assert row.functions == ["present", "observe"]
    assert not row.functions_inferred


def test_a_function_of_another_layer_is_refused_with_its_path_and_the_layers_functions():
    with pytest.raises(BundleInvalid) as refused:
        apply(bundle(project("p", placement("x", "data_plane", functions=["present", "quota"]))))

    [error] = refused.value.errors
    assert error.path == "projects[0].placements[0].functions[1]"
    assert "belongs to the control_plane layer" in error.message
    assert "present" in error.allowed and "quota" not in error.allowed


def test_an_unknown_function_names_the_allowed_ones():
    with pytest.raises(BundleInvalid) as refused:
        apply(bundle(project("p", placement("x", functions=["sharing"]))))

    [error] = refused.value.errors
    assert error.message == "unknown function 'sharing'"
    assert "device_placement" in error.allowed


def test_an_export_leaves_inferred_functions_out_so_a_reimport_infers_them_again():
    apply(bundle(project("p", placement("guessed"), placement("stated", functions=["observe"]))))

    exported = {p["key"]: p for p in bundle_export()["projects"][0]["placements"]}

    assert "functions" not in exported["guessed"]
    assert exported["stated"]["functions"] == ["observe"]
    assert apply(bundle_export()).changed == 0


def test_the_api_shows_functions_verification_and_the_functions_vocabulary(bob):
    apply(
        bundle(
            project("p", placement("x", functions=["observe"], verified_at="2026-12-01")),
        )
    )
    client = APIClient()
    client.force_authenticate(bob)

    row = client.get("/api/v1/placements/").json()["results"][0]
    vocabulary = client.get("/api/v1/vocabulary/").json()

    assert row["functions"] == ["observe"]
    assert row["functions_inferred"] is False
    assert row["verified_at"] == "2026-12-01"
    quota = next(term for term in vocabulary["functions"] if term["key"] == "quota")
    assert quota["layer_key"] == "control_plane"
    assert quota["name_zh"] == "配额"


def test_a_row_paired_with_itself_is_not_a_pair_on_the_page_or_in_the_api(bob_client, bob):
    apply(bundle(project("p", placement("x"), placement("y", "control_plane"))))
    snapshot = matrix_refresh_request()
    matrix_snapshot_compute(snapshot_id=snapshot.id)

    page = bob_client.get(reverse("matrix:pair"), {"a": "p/x", "b": "p/x"})
    client = APIClient()
    client.force_authenticate(bob)
    api = client.get("/api/v1/matrix/pair/", {"a": "p/x", "b": "p/x"})

    assert page.status_code == 400
    assert "A row paired with itself is not a pair" in page.content.decode()
    assert api.status_code == 400
    assert "paired with itself" in str(api.json())


def test_coverage_lists_rows_least_recently_verified_first_and_flags_the_stale_ones():
    apply(
        bundle(
            project(
                "p",
                placement("fresh", verified_at="2026-11-30"),
                placement("old", verified_at="2025-06-01"),
                placement("never"),
            )
        )
    )

    coverage = catalog_coverage()

    assert [row.ref for row in coverage.rows] == ["p/never", "p/old", "p/fresh"]
    stale = {row.ref for row in coverage.stale_rows(today=dt.date(2026, 12, 1))}
    assert stale == {"p/never", "p/old"}


def test_load_catalog_retires_moved_rows_keeps_their_history_and_then_changes_nothing():
    apply(bundle(project("volcano", placement("vgpu-device-plugin"))))
    out = StringIO()

    call_command("load_catalog", stdout=out)
    again = StringIO()
    call_command("load_catalog", stdout=again)

    assert not PlacementRow.objects.filter(project__slug="volcano", key="vgpu-device-plugin")
    assert "retired volcano/vgpu-device-plugin" in out.getvalue()
    assert CatalogChange.objects.filter(
        project_slug="volcano", row_key="vgpu-device-plugin", action="deleted"
    ).exists()
    assert again.getvalue().strip().endswith("0 items changed")
