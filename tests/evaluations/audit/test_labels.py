"""evaluations.audit.labels: every action the services write reads as words, in both languages."""

from __future__ import annotations

import re
from pathlib import Path

from django.utils import translation

from evaluations.audit.labels import AUDIT_ACTIONS, audit_action_label, audit_field_label

EVALUATIONS = Path(__file__).resolve().parents[3] / "evaluations"


def _actions_written() -> set[str]:
    """The action keys the code passes to audit_write: literally, or through an `action = "x"
    if ... else "y"` line in a module that writes the audit log."""
    found: set[str] = set()
    for path in EVALUATIONS.rglob("*.py"):
        text = path.read_text()
        if "audit_write(" not in text:
            continue
        found |= set(re.findall(r'audit_write\(\s*\w+,\s*\w+,\s*"(\w+)"', text))
        for line in re.findall(r"^\s*action = (.*)$", text, re.M):
            found |= set(re.findall(r'"(\w+)"', line))
    return found


def test_every_action_the_services_write_has_a_label():
    written = _actions_written()

    assert {"created", "step_saved", "decided", "submitted", "approved", "archived"} <= written
    assert written <= set(AUDIT_ACTIONS), written - set(AUDIT_ACTIONS)


def test_an_action_reads_in_the_readers_language():
    with translation.override("en"):
        english = audit_action_label("approved")
    with translation.override("zh-hans"):
        chinese = audit_action_label("approved")

    assert english == "approved"
    assert chinese != english


def test_an_unknown_key_is_shown_as_it_is():
    assert audit_action_label("teleported") == "teleported"
    assert audit_field_label("colour") == "colour"
