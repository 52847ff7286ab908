"""A bundle document written out a project at a time (issue 41 H1): the export of a 100,000-row
catalog is never one string, nor one dict of every project, in memory.

Pure Python. The text is the same as `json.dumps(document, ...)` or `yaml.dump(document, ...)`
of the whole document would be, so a streamed export imports back like the one-piece one did.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Mapping
from itertools import chain
from typing import Any

import yaml

# Text handed on at a time: big enough that a response is not thousands of tiny writes.
CHUNK_CHARS = 64 * 1024
_SLOT = "\x00projects\x00"


def _batched(pieces: Iterable[str]) -> Iterator[str]:
    buffer: list[str] = []
    size = 0
    for piece in pieces:
        buffer.append(piece)
        size += len(piece)
        if size >= CHUNK_CHARS:
            yield "".join(buffer)
            buffer, size = [], 0
    if buffer:
        yield "".join(buffer)


def _peeked(projects: Iterable[dict[str, Any]]) -> Iterator[dict[str, Any]] | None:
    """`projects` again, or None when there is none (an empty list is written `[]`)."""
    projects = iter(projects)
    first = next(projects, None)
    return None if first is None else chain((first,), projects)


def bundle_json_chunks(
    header: Mapping[str, Any],
    projects: Iterable[dict[str, Any]],
    *,
    indent: int | None = None,
    ensure_ascii: bool = False,
) -> Iterator[str]:
    """`{**header, "projects": [...]}` as JSON text in chunks; compact without `indent`."""
    options: dict[str, Any] = {"ensure_ascii": ensure_ascii, "indent": indent}
    if indent is None:
        options["separators"] = (",", ":")
    items = _peeked(projects)
    if items is None:
        yield json.dumps({**header, "projects": []}, **options)
        return
    whole = json.dumps({**header, "projects": [_SLOT]}, **options)
    before, after = whole.split(json.dumps(_SLOT, ensure_ascii=ensure_ascii))
    # Inside the list each project's own lines sit one level deeper than at the top.
    pad = "\n" + " " * (2 * indent) if indent is not None else ""
    between = "," + (pad or "")

    def pieces() -> Iterator[str]:
        yield before
        for number, project in enumerate(items):
            text = json.dumps(project, **options)
            yield (between if number else "") + (text.replace("\n", pad) if pad else text)
        yield after

    yield from _batched(pieces())


# libyaml's emitter when PyYAML has it: the pure-Python one writes ~0.3 MB/s, an hour for the
# YAML of 100,000 rows.
YAML_DUMPER = getattr(yaml, "CSafeDumper", yaml.SafeDumper)


def bundle_yaml_chunks(
    header: Mapping[str, Any], projects: Iterable[dict[str, Any]]
) -> Iterator[str]:
    """`{**header, "projects": [...]}` as YAML text in chunks (block style, keys in order), as
    `yaml.dump(document, Dumper=YAML_DUMPER, allow_unicode=True, sort_keys=False)` writes it."""
    dump = {"Dumper": YAML_DUMPER, "allow_unicode": True, "sort_keys": False}
    items = _peeked(projects)
    if items is None:
        yield yaml.dump({**header, "projects": []}, **dump)
        return

    def pieces() -> Iterator[str]:
        yield yaml.dump(dict(header), **dump) if header else ""
        yield "projects:\n"
        for project in items:
            # A list in a mapping is written without indentation: `- slug: …` under its key.
            yield yaml.dump([project], **dump)

    yield from _batched(pieces())
