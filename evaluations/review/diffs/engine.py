"""Two revisions of an evaluation compared like a pull request: the changed fields, grouped by
section, each with its old and new value, and the audit entries (who changed what) between them.

Plain Python over the revision contents (evaluations.review.revisions): no Django, so the page,
the API and the report read the same changes.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass
from dataclasses import field as dataclass_field
from typing import Any

# The sections in the order of the evaluation's steps; "findings" follows from the others.
SECTIONS: tuple[str, ...] = (
    "profile",
    "units",
    "candidates",
    "boundaries",
    "decision",
    "findings",
)
CANDIDATE_FIELDS: tuple[str, ...] = ("enforcement_points", "points_confirmed", "alternative_group")
BOUNDARY_FIELDS: tuple[str, ...] = ("promise", "non_promise")
DECISION_FIELDS: tuple[str, ...] = (
    "rows",
    "pools",
    "pool_tenant_sharing",
    "pool_node_groups",
    "rationale",
    "risks",
    "acceptance_checks",
)
# Which step's saves touch which section (audit entries carry the step they saved).
STEP_SECTIONS: dict[str, str] = {
    "profile": "profile",
    "units": "units",
    "candidates": "candidates",
    "boundaries": "boundaries",
    "decision": "decision",
}
_EMPTY: tuple[Any, ...] = (None, "", [], {})


@dataclass(frozen=True)
class Change:
    """One changed thing. `kind` is changed (a field), added or removed (a unit, a candidate, a
    pool), appeared or resolved (a stack-check finding). `item` names the unit, candidate row,
    pool or finding a change is about ("" for the evaluation's own fields); for list values
    `added` / `removed` say which entries."""

    section: str
    kind: str
    field: str = ""
    item: str = ""
    old: Any = None
    new: Any = None
    added: list[Any] = dataclass_field(default_factory=list)
    removed: list[Any] = dataclass_field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class Touch:
    """An audit entry between the two revisions: who did what, when, on which step."""

    actor: str
    action: str
    step: str
    revision: int
    at: str

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class Section:
    key: str
    changes: list[Change] = dataclass_field(default_factory=list)
    touches: list[Touch] = dataclass_field(default_factory=list)


@dataclass
class ContentDiff:
    sections: list[Section]
    # Audit entries that touched no section (submitted, approved, archived...).
    other_touches: list[Touch] = dataclass_field(default_factory=list)

    @property
    def changes(self) -> list[Change]:
        return [change for section in self.sections for change in section.changes]

    @property
    def empty(self) -> bool:
        return not self.changes

    def changed_sections(self) -> list[Section]:
        return [section for section in self.sections if section.changes]

    def counts(self) -> dict[str, int]:
        return {section.key: len(section.changes) for section in self.changed_sections()}

    def to_dict(self) -> dict[str, Any]:
        return {
            "sections": [
                {
                    "section": section.key,
                    "changes": [change.to_dict() for change in section.changes],
                    "touched_by": [touch.to_dict() for touch in section.touches],
                }
                for section in self.sections
                if section.changes or section.touches
            ],
            "other_activity": [touch.to_dict() for touch in self.other_touches],
        }


def _same(old: Any, new: Any) -> bool:
    """Unanswered is unanswered, whether stored as None, "" or an empty list."""
    if old in _EMPTY and new in _EMPTY:
        return True
    return old == new


def _list_change(section: str, name: str, item: str, old: Any, new: Any) -> Change | None:
    old_list, new_list = list(old or []), list(new or [])
    if old_list == new_list:
        return None
    return Change(
        section=section,
        kind="changed",
        field=name,
        item=item,
        old=old_list,
        new=new_list,
        added=[value for value in new_list if value not in old_list],
        removed=[value for value in old_list if value not in new_list],
    )


def _field_change(section: str, name: str, item: str, old: Any, new: Any) -> Change | None:
    if _same(old, new):
        return None
    if isinstance(old, list | tuple) or isinstance(new, list | tuple):
        return _list_change(section, name, item, old, new)
    return Change(section=section, kind="changed", field=name, item=item, old=old, new=new)


def _profile(old: Mapping[str, Any], new: Mapping[str, Any]) -> list[Change]:
    names = list(dict.fromkeys([*old, *new]))
    changes = (_field_change("profile", name, "", old.get(name), new.get(name)) for name in names)
    return [change for change in changes if change]


def _units(old: list[dict], new: list[dict]) -> list[Change]:
    before = {unit["unit"]: unit.get("note", "") for unit in old}
    after = {unit["unit"]: unit.get("note", "") for unit in new}
    changes = [
        Change(section="units", kind="removed", item=key, old=before[key])
        for key in before
        if key not in after
    ]
    changes += [
        Change(section="units", kind="added", item=key, new=after[key])
        for key in after
        if key not in before
    ]
    for key in after:
        if key in before:
            change = _field_change("units", "note", key, before[key], after[key])
            if change:
                changes.append(change)
    return changes


def _candidates(old: list[dict], new: list[dict]) -> tuple[list[Change], list[Change]]:
    """Changes of step 3 (candidates and their points) and of step 4 (their boundaries)."""
    before = {item["row"]: item for item in old}
    after = {item["row"]: item for item in new}
    candidates = [
        Change(section="candidates", kind="removed", item=ref) for ref in before if ref not in after
    ]
    candidates += [
        Change(section="candidates", kind="added", item=ref) for ref in after if ref not in before
    ]
    boundaries = []
    for ref, item in after.items():
        if ref not in before:
            continue
        for name in CANDIDATE_FIELDS:
            change = _field_change("candidates", name, ref, before[ref].get(name), item.get(name))
            if change:
                candidates.append(change)
        for name in BOUNDARY_FIELDS:
            change = _field_change("boundaries", name, ref, before[ref].get(name), item.get(name))
            if change:
                boundaries.append(change)
    return candidates, boundaries


def _decision(old: Mapping[str, Any] | None, new: Mapping[str, Any] | None) -> list[Change]:
    old, new = old or {}, new or {}
    changes: list[Change] = []
    for name in DECISION_FIELDS:
        if name == "pools":
            changes += _pools(old.get("pools") or {}, new.get("pools") or {})
            continue
        change = _field_change("decision", name, "", old.get(name), new.get(name))
        if change:
            changes.append(change)
    return changes


def _pools(old: Mapping[str, list], new: Mapping[str, list]) -> list[Change]:
    changes = [
        Change(section="decision", kind="removed", field="pools", item=name, old=list(refs))
        for name, refs in old.items()
        if name not in new
    ]
    changes += [
        Change(section="decision", kind="added", field="pools", item=name, new=list(refs))
        for name, refs in new.items()
        if name not in old
    ]
    for name, refs in new.items():
        if name in old:
            change = _list_change("decision", "pools", name, old[name], refs)
            if change:
                changes.append(change)
    return changes


def _findings(old: list[dict], new: list[dict]) -> list[Change]:
    before = {item["key"]: item for item in old}
    after = {item["key"]: item for item in new}
    changes = [
        Change(section="findings", kind="resolved", item=key, old=item)
        for key, item in before.items()
        if key not in after
    ]
    changes += [
        Change(section="findings", kind="appeared", item=key, new=item)
        for key, item in after.items()
        if key not in before
    ]
    return changes


def touches_by_section(touches: Iterable[tuple[Touch, str]]) -> dict[str, list[Touch]]:
    grouped: dict[str, list[Touch]] = {}
    for touch, step in touches:
        grouped.setdefault(STEP_SECTIONS.get(step, ""), []).append(touch)
    return grouped


def content_diff(
    old: Mapping[str, Any],
    new: Mapping[str, Any],
    touches: Iterable[Touch] = (),
) -> ContentDiff:
    """What changed from content `old` to content `new` (revision contents), exactly the
    changed fields; `touches` (audit entries between them) are attached to the sections of the
    steps they saved."""
    candidates, boundaries = _candidates(old.get("candidates") or [], new.get("candidates") or [])
    changes = {
        "profile": _profile(old.get("profile") or {}, new.get("profile") or {}),
        "units": _units(old.get("units") or [], new.get("units") or []),
        "candidates": candidates,
        "boundaries": boundaries,
        "decision": _decision(old.get("decision"), new.get("decision")),
        "findings": _findings(old.get("findings") or [], new.get("findings") or []),
    }
    grouped = touches_by_section((touch, touch.step) for touch in touches)
    sections = [
        Section(key=key, changes=changes[key], touches=grouped.get(key, [])) for key in SECTIONS
    ]
    return ContentDiff(sections=sections, other_touches=grouped.get("", []))


_TOKENS = re.compile(r"\s+|[^\s]+")


def word_diff(old: str, new: str) -> list[tuple[str, str]]:
    """`new` against `old` word by word: runs of ("same" | "removed" | "added", text) that
    rebuild both texts, so a one-word edit marks that word, not the paragraph."""
    a, b = _TOKENS.findall(old or ""), _TOKENS.findall(new or "")
    runs: list[tuple[str, str]] = []

    def add(kind: str, tokens: list[str]) -> None:
        if not tokens:
            return
        text = "".join(tokens)
        if runs and runs[-1][0] == kind:
            runs[-1] = (kind, runs[-1][1] + text)
        else:
            runs.append((kind, text))

    matcher = difflib.SequenceMatcher(a=a, b=b, autojunk=False)
    for op, i1, i2, j1, j2 in matcher.get_opcodes():
        if op == "equal":
            add("same", a[i1:i2])
        else:
            add("removed", a[i1:i2])
            add("added", b[j1:j2])
    return runs
