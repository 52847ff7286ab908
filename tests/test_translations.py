"""The Chinese catalogue is complete and regenerating it loses nothing.

`make messages` runs `makemessages` then `compilemessages`. Two faults of the past were invisible
until someone ran it: strings passed through a helper that `makemessages` does not know (the
workload mix's `_fail("…")`) were dropped as obsolete, and strings with a bare `%` were marked
`python-format`, merged as fuzzy and left out of the compiled catalogue. Here `makemessages` runs on
a copy of the sources, and every string it extracts must come out translated and not fuzzy.
"""

from __future__ import annotations

import gettext
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PO = Path("locale/zh_Hans/LC_MESSAGES/django.po")
MO = PO.with_suffix(".mo")
SOURCES = ("catalog", "ecomap", "evaluations", "templates", "locale", "manage.py")

pytestmark = pytest.mark.skipif(shutil.which("xgettext") is None, reason="needs gettext")


FIELD_LINE = re.compile(r"(msgid|msgstr|msgctxt|msgid_plural|msgstr\[\d+\]) (\".*\")$")
ESCAPES = {"n": "\n", "t": "\t", '"': '"', "\\": "\\"}


def _unquoted(text: str) -> str:
    return re.sub(r"\\(.)", lambda match: ESCAPES.get(match[1], match[0]), text)


def _entries(po_text: str) -> list[dict[str, str]]:
    """The catalogue's live entries (obsolete `#~` ones left out), each with its flags, msgid and
    msgstr joined from their quoted lines."""
    entries = []
    for block in po_text.split("\n\n"):
        lines = [line for line in block.splitlines() if not line.startswith("#~")]
        fields: dict[str, str] = {"flags": ""}
        current = ""
        for line in lines:
            if line.startswith("#,"):
                fields["flags"] = line[2:]
            elif match := re.match(
                r"(msgid|msgstr|msgctxt|msgid_plural|msgstr\[\d+\]) (\".*\")$", line
            ):
                current = match[1]
                fields[current] = _unquoted(match[2][1:-1])
            elif line.startswith('"') and current:
                fields[current] += _unquoted(line[1:-1])
        if fields.get("msgid"):
            entries.append(fields)
    return entries


@pytest.fixture(scope="module")
def regenerated(tmp_path_factory) -> str:
    """The catalogue as `make messages` would write it, from a copy of the sources."""
    copy = tmp_path_factory.mktemp("messages")
    for name in SOURCES:
        source = ROOT / name
        if source.is_dir():
            shutil.copytree(source, copy / name, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            shutil.copy2(source, copy / name)
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "ecomap.settings.test"}
    subprocess.run(
        [sys.executable, "manage.py", "makemessages", "-l", "zh_Hans", "--no-location"],
        cwd=copy, env=env, check=True, capture_output=True, timeout=300,
    )  # fmt: skip
    return (copy / PO).read_text(encoding="utf-8")


def test_every_string_the_code_shows_is_translated(regenerated):
    entries = _entries(regenerated)
    untranslated = [e["msgid"] for e in entries if not (e.get("msgstr") or e.get("msgstr[0]"))]
    assert len(entries) > 2000
    assert untranslated == []


def test_regenerating_marks_nothing_fuzzy(regenerated):
    fuzzy = [e["msgid"] for e in _entries(regenerated) if "fuzzy" in e["flags"]]
    assert fuzzy == []


def test_the_compiled_catalogue_holds_every_translation_of_the_po():
    """`django.mo` is committed: it must be compiled from the `django.po` beside it."""
    compiled = gettext.GNUTranslations((ROOT / MO).open("rb"))._catalog
    entries = _entries((ROOT / PO).read_text(encoding="utf-8"))
    wanted = {
        e["msgid"]: e["msgstr"]
        for e in entries
        if e.get("msgstr") and "fuzzy" not in e["flags"] and "msgctxt" not in e
    }
    assert len(wanted) > 2000
    differing = sorted(msgid for msgid, msgstr in wanted.items() if compiled.get(msgid) != msgstr)
    assert differing == []


def test_the_catalogue_holds_what_makemessages_finds_and_nothing_else(regenerated):
    """A string the code still shows but `makemessages` no longer finds (behind a helper it does
    not know) would be dropped by the next `make messages`: the committed catalogue is what
    regenerating gives, so that is seen here first."""
    committed = {e["msgid"] for e in _entries((ROOT / PO).read_text(encoding="utf-8"))}
    found = {e["msgid"] for e in _entries(regenerated)}
    assert sorted(committed - found) == []
    assert sorted(found - committed) == []


def test_engine_sentences_behind_a_helper_are_found():
    """The workload mix's errors reach `makemessages` as `_()` calls (not `_fail("…")`)."""
    source = (ROOT / "catalog/engine/workload_mix.py").read_text()
    assert not re.search(r"_fail\(\s*\"", source)
    compiled = gettext.GNUTranslations((ROOT / MO).open("rb"))._catalog
    assert "the trace is not text (it holds NUL bytes)" in compiled
