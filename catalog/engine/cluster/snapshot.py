"""Reading an `ecomap.cluster/v1` snapshot: untrusted input, so limits first, then the schema.

A snapshot is the raw output of read-only kubectl and helm commands (see
catalog/schemas/cluster-v1.schema.json and docs/cluster-snapshot.md). Every refusal is a
`SnapshotError` whose `errors` are (JSON path, message) pairs.
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import jsonschema
import jsonschema_rs

from catalog.engine.bundle import json_path

SNAPSHOT_FORMAT = "ecomap.cluster/v1"
SCHEMA_PATH = Path(__file__).resolve().parent.parent.parent / "schemas" / "cluster-v1.schema.json"

# Limits on an uploaded snapshot. The web layer checks the body size before reading it; the rest
# is checked here on the parsed document. A 5,000-node cluster with its workloads is ~30 MB of
# raw kubectl output but a few MB once the collector keeps only these kinds.
MAX_BODY_BYTES = 20 * 1024 * 1024
MAX_DEPTH = 64
MAX_NODES = 20_000
MAX_OBJECTS = 50_000  # items in all lists together, nodes included
MAX_ERRORS = 20  # errors reported at most; one is enough to refuse

# The kubectl lists a snapshot may hold, in the order they are read.
LIST_KEYS: tuple[str, ...] = (
    "nodes",
    "daemonsets",
    "deployments",
    "crds",
    "resourceslices",
    "deviceclasses",
    "mutatingwebhookconfigurations",
    "clusterqueues",
    "queues",
    "kaiqueues",
)

_VERSION = re.compile(r"^v?(\d+)\.(\d+)(?:\.(\d+))?")


class SnapshotError(ValueError):
    """A refused snapshot; `errors` lists (JSON path, message) pairs."""

    def __init__(self, errors: list[tuple[str, str]]):
        self.errors = errors
        super().__init__(
            f"{len(errors)} error(s) in snapshot: "
            + "; ".join(f"{path}: {message}" for path, message in errors[:3])
        )


@dataclass(frozen=True, slots=True)
class Snapshot:
    """A parsed snapshot: the kubectl lists' items, the Helm releases and the server version."""

    cluster: str
    collected_at: str = ""
    kubernetes_version: str = ""
    helm_releases: tuple[Mapping[str, Any], ...] = ()
    lists: Mapping[str, tuple[Mapping[str, Any], ...]] = field(default_factory=dict)

    def items(self, kind: str) -> tuple[Mapping[str, Any], ...]:
        """The items of one list (`nodes`, `daemonsets`, …); empty when not collected."""
        return self.lists.get(kind, ())

    def collected(self, kind: str) -> bool:
        """Whether the collector gathered that list at all (empty and absent differ)."""
        return kind in self.lists

    @property
    def kubernetes_minor(self) -> tuple[int, int] | None:
        return kubernetes_minor(self.kubernetes_version)


def kubernetes_minor(version: str) -> tuple[int, int] | None:
    """`v1.33.2` or `v1.30.4-eks-a737599` → (1, 33); None when it does not read as a version."""
    match = _VERSION.match(version.strip()) if version else None
    if match is None:
        return None
    return int(match.group(1)), int(match.group(2))


@functools.cache
def snapshot_schema() -> dict[str, Any]:
    """The JSON Schema of `ecomap.cluster/v1` (the API serves it as is)."""
    return json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))


@functools.cache
def _fast_check() -> jsonschema_rs.Validator:
    return jsonschema_rs.validator_for(snapshot_schema())


@functools.cache
def _validator() -> jsonschema.protocols.Validator:
    schema = snapshot_schema()
    return jsonschema.validators.validator_for(schema)(schema)


def load_snapshot(body: bytes | str) -> Snapshot:
    """Parse raw JSON text (an upload or a file) with every limit applied, then the snapshot."""
    size = len(body.encode("utf-8") if isinstance(body, str) else body)
    if size > MAX_BODY_BYTES:
        raise SnapshotError(
            [("$", f"the snapshot is {size:,} bytes; at most {MAX_BODY_BYTES:,} are accepted")]
        )
    try:
        text = body.decode("utf-8") if isinstance(body, bytes) else body
    except UnicodeDecodeError as error:
        message = f"not UTF-8 text: {error.reason} at byte {error.start}"
        raise SnapshotError([("$", message)]) from None
    if "\x00" in text:
        raise SnapshotError([("$", "NUL characters are not accepted")])
    try:
        document = json.loads(text)
    except RecursionError:
        raise SnapshotError([("$", f"nested deeper than {MAX_DEPTH} levels")]) from None
    except json.JSONDecodeError as error:
        raise SnapshotError(
            [("$", f"not JSON: {error.msg} (line {error.lineno}, column {error.colno})")]
        ) from None
    return parse_snapshot(document)


def _limits(document: Any) -> list[tuple[str, str]]:
    """Depth and NUL checks without recursion (a hostile document may nest thousands deep)."""
    errors: list[tuple[str, str]] = []
    stack: list[tuple[Any, tuple[Any, ...]]] = [(document, ())]
    while stack and len(errors) < MAX_ERRORS:
        value, path = stack.pop()
        if len(path) > MAX_DEPTH:
            errors.append((json_path(path), f"nested deeper than {MAX_DEPTH} levels"))
            continue
        if isinstance(value, dict):
            for key, child in value.items():
                if "\x00" in key:
                    errors.append((json_path(path), "NUL characters are not accepted"))
                stack.append((child, (*path, key)))
        elif isinstance(value, list):
            stack.extend((child, (*path, i)) for i, child in enumerate(value))
        elif isinstance(value, str) and "\x00" in value:
            errors.append((json_path(path), "NUL characters are not accepted"))
    return errors


def _counts(document: Mapping[str, Any]) -> list[tuple[str, str]]:
    def size(key: str) -> int:
        value = document.get(key)
        items = value.get("items") if isinstance(value, Mapping) else value
        return len(items) if isinstance(items, list) else 0

    errors = []
    if size("nodes") > MAX_NODES:
        errors.append(("nodes.items", f"{size('nodes'):,} nodes; at most {MAX_NODES:,}"))
    total = sum(size(key) for key in (*LIST_KEYS, "helm_releases"))
    if total > MAX_OBJECTS:
        errors.append(("$", f"{total:,} objects in all lists; at most {MAX_OBJECTS:,}"))
    return errors


def _schema_errors(document: Any) -> list[tuple[str, str]]:
    if _fast_check().is_valid(document):
        return []
    found = sorted(_validator().iter_errors(document), key=lambda e: list(map(str, e.path)))
    return [(json_path(error.absolute_path), error.message[:300]) for error in found[:MAX_ERRORS]]


def parse_snapshot(document: Any) -> Snapshot:
    """Check a decoded JSON document against the limits and the schema; the Snapshot it holds."""
    if not isinstance(document, dict):
        raise SnapshotError([("$", "expected a JSON object with format ecomap.cluster/v1")])
    errors = _limits(document) or _counts(document)
    if errors:
        raise SnapshotError(errors)
    if document.get("format") != SNAPSHOT_FORMAT:
        raise SnapshotError([("format", f"must be {SNAPSHOT_FORMAT!r}")])
    errors = _schema_errors(document)
    if errors:
        raise SnapshotError(errors)
    version = document.get("kubernetes_version", "")
    if version and kubernetes_minor(version) is None:
        raise SnapshotError(
            [("kubernetes_version", f"{version[:100]!r} does not read as a version like v1.33.2")]
        )
    return Snapshot(
        cluster=document["cluster"],
        collected_at=document.get("collected_at", ""),
        kubernetes_version=version,
        helm_releases=tuple(document.get("helm_releases") or ()),
        lists={key: tuple(document[key]["items"]) for key in LIST_KEYS if key in document},
    )
