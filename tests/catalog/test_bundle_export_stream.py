"""The bundle export streams (issue 41 H1): the API and `export_bundle` write the document a few
hundred projects at a time, and what they write is the document `bundle_export` builds whole."""

from __future__ import annotations

import json

import pytest
import yaml
from django.core.management import call_command

from catalog.engine.bundle_text import YAML_DUMPER
from catalog.selectors import bundle_export
from tests.factories import apply, streamed_json, synthetic_bundle

pytestmark = pytest.mark.django_db


@pytest.fixture
def catalog(db):
    apply(synthetic_bundle(30, rows_per_project=2))


def test_the_api_streams_the_document_in_json_and_yaml(bob_client, catalog, monkeypatch):
    monkeypatch.setattr("catalog.selectors.EXPORT_CHUNK_ROWS", 7)  # several reads of projects
    whole = bundle_export()

    as_json = bob_client.get("/api/v1/export/")
    as_yaml = bob_client.get("/api/v1/export/", {"as": "yaml"})

    assert as_json.streaming and as_yaml.streaming
    assert streamed_json(as_json)["projects"] == whole["projects"]
    text = b"".join(as_yaml.streaming_content).decode()
    assert yaml.safe_load(text)["projects"] == whole["projects"]
    assert as_yaml["Content-Type"].startswith("application/yaml")


def test_a_filtered_export_streams_only_its_projects(bob_client, catalog):
    exported = streamed_json(bob_client.get("/api/v1/export/", {"layer": "platform"}))

    assert exported["projects"] == bundle_export(layer="platform")["projects"]
    assert {p["layer"] for item in exported["projects"] for p in item["placements"]} == {"platform"}


def test_an_empty_export_is_still_a_document(bob_client, db):
    exported = streamed_json(bob_client.get("/api/v1/export/", {"project": "nothing-here"}))

    assert exported["projects"] == []
    assert exported["format"] == "ecomap.bundle/v1"


def test_the_command_writes_the_same_text_as_the_whole_document(catalog, tmp_path, monkeypatch):
    monkeypatch.setattr("catalog.selectors.EXPORT_CHUNK_ROWS", 7)
    document = bundle_export(source="EcoMap")

    call_command("export_bundle", str(tmp_path / "c.json"))
    call_command("export_bundle", str(tmp_path / "c.yaml"))

    text = (tmp_path / "c.json").read_text(encoding="utf-8")
    assert text == json.dumps(document, ensure_ascii=False, indent=2) + "\n"
    written = (tmp_path / "c.yaml").read_text(encoding="utf-8")
    assert written == yaml.dump(document, Dumper=YAML_DUMPER, allow_unicode=True, sort_keys=False)
    assert yaml.safe_load(written) == document
