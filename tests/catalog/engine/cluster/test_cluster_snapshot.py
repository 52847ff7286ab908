"""Reading `ecomap.cluster/v1` snapshots: untrusted uploads, refused with a JSON path and why."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest

from catalog.engine.cluster import (
    MAX_BODY_BYTES,
    MAX_DEPTH,
    MAX_NODES,
    SnapshotError,
    load_snapshot,
    parse_snapshot,
    snapshot_schema,
)
from catalog.engine.cluster.snapshot import kubernetes_minor

CLUSTERS = Path(__file__).resolve().parents[3] / "data" / "clusters"
FIXTURES = sorted(CLUSTERS.glob("*.json"))


def minimal(**extra) -> dict:
    document = {
        "format": "ecomap.cluster/v1",
        "cluster": "lab",
        "nodes": {"apiVersion": "v1", "kind": "List", "items": [{"metadata": {"name": "n1"}}]},
    }
    document.update(extra)
    return document


def refused(document) -> list[tuple[str, str]]:
    with pytest.raises(SnapshotError) as caught:
        if isinstance(document, (str, bytes)):
            load_snapshot(document)
        else:
            parse_snapshot(document)
    return caught.value.errors


@pytest.mark.parametrize("path", FIXTURES, ids=lambda p: p.name)
def test_every_fixture_is_a_valid_snapshot_by_the_published_schema(path):
    document = json.loads(path.read_text())
    jsonschema.Draft202012Validator(snapshot_schema()).validate(document)
    snapshot = load_snapshot(path.read_bytes())
    assert snapshot.items("nodes")
    assert snapshot.kubernetes_minor is not None


def test_the_schema_is_draft_2020_12_and_checks_itself():
    schema = snapshot_schema()
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    jsonschema.Draft202012Validator.check_schema(schema)


def test_a_minimal_snapshot_has_only_nodes_and_the_other_lists_read_as_not_collected():
    snapshot = parse_snapshot(minimal())
    assert snapshot.cluster == "lab"
    assert [n["metadata"]["name"] for n in snapshot.items("nodes")] == ["n1"]
    assert snapshot.items("daemonsets") == ()
    assert not snapshot.collected("daemonsets")


def test_nodes_are_required():
    document = minimal()
    del document["nodes"]
    assert refused(document) == [("$", "'nodes' is a required property")]


def test_an_object_without_a_name_is_refused_at_its_path():
    document = minimal(daemonsets={"kind": "List", "items": [{"metadata": {"namespace": "x"}}]})
    assert refused(document) == [("daemonsets.items[0].metadata", "'name' is a required property")]


def test_another_format_is_refused():
    assert refused(minimal(format="ecomap.bundle/v1")) == [
        ("format", "must be 'ecomap.cluster/v1'")
    ]


def test_a_kubernetes_version_that_does_not_read_as_one_is_refused():
    [(path, message)] = refused(minimal(kubernetes_version="latest"))
    assert path == "kubernetes_version"
    assert "v1.33.2" in message


@pytest.mark.parametrize(
    ("version", "minor"),
    [("v1.33.2", (1, 33)), ("v1.30.4-eks-a737599", (1, 30)), ("1.34", (1, 34)), ("", None)],
)
def test_the_kubernetes_minor_is_read_from_managed_offerings_git_versions(version, minor):
    assert kubernetes_minor(version) == minor


def test_a_body_over_the_size_limit_is_refused_before_it_is_read():
    [(path, message)] = refused(b" " * (MAX_BODY_BYTES + 1))
    assert path == "$"
    assert f"{MAX_BODY_BYTES:,}" in message


def test_nul_characters_are_refused_raw_or_escaped():
    text = json.dumps(minimal())
    assert refused(text.replace("lab", "la\x00b")) == [("$", "NUL characters are not accepted")]
    escaped = json.dumps(minimal(cluster="la\x00b"))  # \u0000 in the JSON text
    assert refused(escaped) == [("cluster", "NUL characters are not accepted")]


def test_nesting_deeper_than_the_limit_is_refused_with_its_path():
    deep: dict = {}
    cursor = deep
    for _ in range(MAX_DEPTH + 5):
        cursor["a"] = {}
        cursor = cursor["a"]
    [(path, message)] = refused(minimal(collector=None, extra=deep))[:1]
    assert path.startswith("extra.a.a")
    assert message == f"nested deeper than {MAX_DEPTH} levels"


def test_nesting_that_would_overflow_the_json_parser_is_refused_not_crashed():
    assert refused("[" * 200_000) == [("$", f"nested deeper than {MAX_DEPTH} levels")]


def test_more_nodes_than_the_limit_are_refused():
    nodes = [{"metadata": {"name": f"n{i}"}} for i in range(MAX_NODES + 1)]
    errors = refused(minimal(nodes={"kind": "List", "items": nodes}))
    assert errors[0][0] == "nodes.items"
    assert f"{MAX_NODES:,}" in errors[0][1]


def test_text_that_is_not_json_is_refused_with_where():
    [(path, message)] = refused('{"format": ')
    assert path == "$"
    assert message.startswith("not JSON:")
    assert "line 1" in message
