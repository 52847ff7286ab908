"""Re-importing a placement that states only some fields keeps the others (merge), unless the
import asks for `mode=replace`, whose dry run lists every field it would clear."""

from __future__ import annotations

import pytest
import yaml
from django.core.management import call_command
from rest_framework.test import APIClient

from catalog.imports.services import ImportRejected, import_submit
from catalog.selectors import stored_projects
from tests.factories import make_user

pytestmark = pytest.mark.django_db

# What docs/import-formats.md says a bundle needs: identity and the required fields only.
MINIMAL = yaml.safe_dump(
    {
        "format": "ecomap.bundle/v1",
        "projects": [
            {
                "slug": "hami",
                "name": "HAMi",
                "placements": [
                    {
                        "key": "device-plugin",
                        "layer": "data_plane",
                        "resource_units": ["vgpu", "memory_compute_quota"],
                        "enforcement_points": ["runtime_interception"],
                        "promise": "Shares each GPU between pods.",
                    }
                ],
            }
        ],
    }
)
KEPT = ("evidence", "exclusive", "provides", "requires", "costs", "non_promise", "reviewed")


def _row(slug: str = "hami", key: str = "device-plugin") -> dict:
    return stored_projects(slugs=[slug])[slug].rows[key][1]


def _row_changes(job) -> dict:
    """The field-by-field changes the job recorded for hami/device-plugin."""
    return next(item for item in job.changes if item["row"] == "device-plugin")["changes"]


def test_a_minimal_re_import_keeps_every_field_it_leaves_out(builtin_catalog):
    before = _row()
    assert all(before[field] for field in KEPT) and before["isolation"]["memory"] == "hard"

    job = import_submit(text=MINIMAL, source="vendor sheet")

    after = _row()
    assert job.counts["rows"]["updated"] == 1
    assert after["promise"] == "Shares each GPU between pods."
    assert {field: after[field] for field in KEPT} == {field: before[field] for field in KEPT}
    assert after["isolation"] == before["isolation"]
    assert after["functions"] == before["functions"]
    assert set(_row_changes(job)) == {"promise"}


def test_replace_mode_clears_what_the_placement_leaves_out_and_its_dry_run_says_so(
    builtin_catalog,
):
    dry = import_submit(text=MINIMAL, dry_run=True, mode="replace")
    listed = set(_row_changes(dry))
    assert set(KEPT) <= listed and "isolation" in listed
    assert _row()["evidence"]  # a dry run writes nothing

    import_submit(text=MINIMAL, mode="replace")

    after = _row()
    assert not after["evidence"] and not after["exclusive"] and not after["costs"]
    assert after["isolation"] == {"memory": "none", "compute": "none", "fault": "none"}


def test_a_stated_field_replaces_the_stored_one_whole(builtin_catalog):
    document = yaml.safe_load(MINIMAL)
    document["projects"][0]["placements"][0]["evidence"] = [
        {"url": "https://github.com/Project-HAMi/HAMi/releases/tag/v2.7.0", "claim": "release"}
    ]
    import_submit(text=yaml.safe_dump(document))

    assert [item["url"] for item in _row()["evidence"]] == [
        "https://github.com/Project-HAMi/HAMi/releases/tag/v2.7.0"
    ]
    assert _row()["exclusive"]  # still merged


def test_functions_left_out_keep_the_stored_list_or_are_inferred_again(builtin_catalog):
    stated = _row()["functions"]
    assert not _row()["functions_inferred"]

    import_submit(text=MINIMAL)

    assert _row()["functions"] == stated and not _row()["functions_inferred"]


def test_an_unknown_mode_is_refused_with_the_modes_it_takes(builtin_catalog):
    with pytest.raises(ImportRejected) as rejected:
        import_submit(text=MINIMAL, mode="overwrite")
    assert "merge, replace" in rejected.value.job.errors[0]["message"]

    client = APIClient()
    client.force_authenticate(make_user("maintainer", maintainer=True))
    response = client.post(
        "/api/v1/imports/?mode=overwrite", MINIMAL, content_type="application/yaml"
    )
    assert response.status_code == 400
    assert _row()["evidence"]


def test_the_command_merges_unless_told_to_replace(builtin_catalog, tmp_path):
    path = tmp_path / "minimal.yaml"
    path.write_text(MINIMAL)

    call_command("import_bundle", str(path), verbosity=0)
    assert _row()["evidence"]
    call_command("import_bundle", str(path), "--replace", verbosity=0)
    assert not _row()["evidence"]


def test_inferred_functions_are_inferred_again_from_the_merged_row(db):
    def placement(**extra):
        return {
            "key": "plugin",
            "layer": "data_plane",
            "resource_units": ["whole_gpu"],
            "enforcement_points": ["driver_hardware"],
            "promise": "Presents GPUs.",
            **extra,
        }

    def bundle(row):
        document = {"slug": "acme", "name": "Acme", "placements": [row]}
        return yaml.safe_dump({"format": "ecomap.bundle/v1", "projects": [document]})

    import_submit(text=bundle(placement(provides=["resource:acme.example/gpu"])))
    assert _row("acme", "plugin")["functions"] == ["present"]  # inferred from what it provides

    import_submit(text=bundle(placement(promise="Presents GPUs, now in words.")))

    row = _row("acme", "plugin")
    assert row["provides"] == ["resource:acme.example/gpu"]
    assert row["functions"] == ["present"] and row["functions_inferred"]
