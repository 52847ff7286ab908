"""A diff in the reader's language: section titles, field labels and values as words (never
stored keys), the way the diff page, the review form's summary and the report show it."""

from __future__ import annotations

from typing import Any

from django.utils import timezone
from django.utils.dateparse import parse_datetime
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from catalog.models import EnforcementPoint, ResourceUnit
from catalog.templatetags.labels import say_html
from evaluations.audit.labels import audit_action_label, audit_field_label
from evaluations.models import Step
from evaluations.reports.lists import text_items
from evaluations.review.diffs.engine import Change, ContentDiff, Touch, word_diff
from evaluations.review.diffs.selectors import DiffRefused, evaluation_diff, last_approved_revision
from evaluations.review.revisions import text_from_data
from evaluations.steps.fleet_forms import FLEET_FIELDS
from evaluations.steps.fleet_words import (
    FLEET_LABELS,
    fleet_in_words,
    fleet_item_in_words,
    time_windows_in_words,
    workload_isolation_in_words,
)
from evaluations.steps.forms import (
    PRIORITY_LABELS,
    ProfileForm,
)
from evaluations.steps.mix_forms import workload_mix_in_words

SECTION_TITLES = {
    "profile": Step.PROFILE.label,
    "units": Step.UNITS.label,
    "candidates": Step.CANDIDATES.label,
    "boundaries": Step.BOUNDARIES.label,
    "decision": Step.DECISION.label,
    "findings": gettext_lazy("Stack check of the decision"),
}
FIELD_LABELS = {
    "note": gettext_lazy("What choosing it implies"),
    "enforcement_points": gettext_lazy("Enforcement points"),
    "points_confirmed": gettext_lazy("Enforcement points confirmed"),
    "alternative_group": gettext_lazy("Alternatives group"),
    "promise": gettext_lazy("Responsible for"),
    "non_promise": gettext_lazy("Not responsible for"),
    "rows": gettext_lazy("Stack"),
    "pools": gettext_lazy("Node pool"),
    "pool_tenant_sharing": gettext_lazy("Tenant sharing per pool"),
    "pool_node_groups": gettext_lazy("Node group per pool"),
    "rationale": gettext_lazy("Rationale"),
    "risks": gettext_lazy("Risks and failure modes to watch"),
    "acceptance_checks": gettext_lazy("Acceptance checks"),
}
KIND_WORDS = {
    "added": gettext_lazy("added"),
    "removed": gettext_lazy("removed"),
    "changed": gettext_lazy("changed"),
    "appeared": gettext_lazy("now reported"),
    "resolved": gettext_lazy("no longer reported"),
}
# Free text the decision form asks for one item a line: compared line by line.
LINE_FIELDS = ("risks", "acceptance_checks")
LONG_FIELDS = ("promise", "non_promise", "rationale", "note")


class _Words:
    """The vocabulary a diff needs, read once."""

    def __init__(self, labels: dict[str, str]) -> None:
        self.rows = labels
        self.units = {unit.key: unit.name for unit in ResourceUnit.objects.all()}
        self.points = {point.key: point.name for point in EnforcementPoint.objects.all()}
        fields = ProfileForm.base_fields
        self.profile_labels = {name: str(f.label) for name, f in fields.items() if f.label}
        self.profile_labels["priorities"] = _("Priorities")
        self.profile_labels["workload_isolation"] = _("Isolation per workload type")
        self.profile_labels |= {name: str(label) for name, label in FLEET_LABELS.items()}
        self.profile_choices = {
            name: {key: str(label) for key, label in getattr(f, "choices", ()) if key}
            for name, f in fields.items()
        }
        self.profile_choices["priorities"] = {k: str(v) for k, v in PRIORITY_LABELS.items()}

    def row(self, ref: str) -> str:
        return self.rows.get(ref, ref)

    def profile_value(self, name: str, value: Any) -> str:
        if value in (None, "", [], {}):
            return "—"
        if name == "time_windows":
            return time_windows_in_words(value)
        if name == "workload_isolation":
            return workload_isolation_in_words(value)
        if name == "workload_mix":
            return workload_mix_in_words(value)
        if name in FLEET_FIELDS:
            return fleet_in_words(name, value)
        if name == "gpu_memory_gb":
            return _("{count} GB").format(count=value)
        table = self.profile_choices.get(name, {})
        if isinstance(value, dict):
            return ", ".join(f"{key} {table.get(v, v)}" for key, v in value.items())
        if isinstance(value, list):
            joiner = " › " if name == "priorities" else ", "
            return joiner.join(str(table.get(item, item)) for item in value)
        if isinstance(value, float):
            return f"{value:g}"
        return str(table.get(value, value))

    def profile_item(self, name: str, value: Any) -> str:
        if name in FLEET_FIELDS:  # a node group, tenant or component added or removed
            return fleet_item_in_words(name, value)
        return str(self.profile_choices.get(name, {}).get(value, value))


def _field_label(words: _Words, change: Change) -> str:
    if change.section == "profile":
        return words.profile_labels.get(change.field) or audit_field_label(change.field)
    return str(FIELD_LABELS.get(change.field, audit_field_label(change.field)))


def _value(words: _Words, change: Change, value: Any) -> str:
    name = change.field
    if change.section == "profile":
        return words.profile_value(name, value)
    if name == "points_confirmed":
        return _("yes") if value else _("no")
    if name == "enforcement_points":
        return ", ".join(words.points.get(key, key) for key in value or []) or "—"
    if name in ("rows", "pools"):
        return ", ".join(words.row(ref) for ref in value or []) or "—"
    return str(value) if value not in (None, "") else "—"


def _item(words: _Words, change: Change, value: Any) -> str:
    """One entry of a list value (a workload type, a point, a row) in words."""
    if change.section == "profile":
        return words.profile_item(change.field, value)
    if change.field == "enforcement_points":
        return words.points.get(value, value)
    if change.field in ("rows", "pools"):
        return words.row(value)
    return str(value)


def finding_words(finding: dict[str, Any], words: _Words | None = None) -> str:
    """A stored stack-check finding as the decision page says it."""
    name = words.row if words else (lambda ref: ref)
    kind = finding.get("kind")
    if kind == "gap":
        text = _("{row} requires {pattern}: nothing in reach provides it").format(
            row=name(finding["row"]), pattern=finding["pattern"]
        )
        return f"{text} ({_('pool')} {finding['pool']})" if finding.get("pool") else text
    if kind == "conflict":
        return (
            _("{a} and {b} conflict in pool {pool}").format(
                a=name(finding["row_a"]), b=name(finding["row_b"]), pool=finding["pool"]
            )
            + f": {', '.join(finding.get('tokens') or [])}"
        )
    return say_html(text_from_data(finding.get("message", "")))


def _change_words(words: _Words, change: Change) -> dict[str, Any]:
    shown: dict[str, Any] = {
        "kind": change.kind,
        "kind_label": str(KIND_WORDS.get(change.kind, change.kind)),
        "field": change.field,
        "label": _field_label(words, change) if change.field else "",
        "item": "",
        "old": "",
        "new": "",
        "added": [],
        "removed": [],
        "long": change.field in LONG_FIELDS,
        "words": [],
    }
    if change.section == "units":
        shown["item"] = words.units.get(change.item, change.item)
        if change.kind != "changed":
            shown["label"] = str(FIELD_LABELS["note"])
    elif change.section in ("candidates", "boundaries"):
        shown["item"] = words.row(change.item)
    elif change.field == "pools":
        shown["item"] = change.item
    if change.section == "findings":
        finding = change.new if change.kind == "appeared" else change.old
        shown["severity"] = finding.get("severity", "")
        shown["new" if change.kind == "appeared" else "old"] = finding_words(finding, words)
        return shown
    if change.field in LINE_FIELDS and change.kind == "changed":
        old_lines, new_lines = text_items(change.old or ""), text_items(change.new or "")
        shown["added"] = [line for line in new_lines if line not in old_lines]
        shown["removed"] = [line for line in old_lines if line not in new_lines]
        if shown["added"] or shown["removed"]:
            return shown
    if change.added or change.removed:
        shown["added"] = [_item(words, change, value) for value in change.added]
        shown["removed"] = [_item(words, change, value) for value in change.removed]
        if not shown["added"] and not shown["removed"]:  # only the order changed
            shown["old"], shown["new"] = (
                _value(words, change, v) for v in (change.old, change.new)
            )
        return shown
    if change.field in LONG_FIELDS and change.kind == "changed" and change.old and change.new:
        shown["words"] = word_diff(str(change.old), str(change.new))
    if change.old is not None:
        shown["old"] = _value(words, change, change.old)
    if change.new is not None:
        shown["new"] = _value(words, change, change.new)
    return shown


def _touch_words(touch: Touch) -> dict[str, Any]:
    moment = parse_datetime(touch.at)
    return {
        "who": touch.actor or "—",
        "action": audit_action_label(touch.action),
        "step": str(dict(Step.choices).get(touch.step, touch.step)) if touch.step else "",
        "revision": touch.revision,
        "when": f"{timezone.localtime(moment):%Y-%m-%d %H:%M}" if moment else touch.at,
    }


def diff_in_words(diff: ContentDiff, labels: dict[str, str]) -> dict[str, Any]:
    """The diff as the page and the report show it: the changed sections, each with its
    changes in words and the people who touched it."""
    words = _Words(labels)
    sections = [
        {
            "key": section.key,
            "title": str(SECTION_TITLES[section.key]),
            "changes": [_change_words(words, change) for change in section.changes],
            "touches": [_touch_words(touch) for touch in section.touches],
        }
        for section in diff.changed_sections()
    ]
    return {
        "sections": sections,
        "other": [_touch_words(touch) for touch in diff.other_touches],
        "count": len(diff.changes),
    }


def diff_summary(diff: ContentDiff) -> str:
    """One line: how many changes in which sections ("2 changes in Workload and SLO, …")."""
    return ", ".join(f"{SECTION_TITLES[key]} ({count})" for key, count in diff.counts().items())


def since_approval(evaluation) -> dict[str, Any] | None:
    """What a reviewer reviewing again sees on the review form: the changes since the last
    approval, counted by section (None when never approved, or nothing to compare)."""
    approved = last_approved_revision(evaluation)
    if approved is None or approved >= evaluation.revision:
        return None
    try:
        compared = evaluation_diff(evaluation=evaluation, old=approved, new=evaluation.revision)
    except DiffRefused as exc:
        return {"revision": approved, "count": None, "summary": str(exc)}
    return {
        "revision": approved,
        "count": len(compared.diff.changes),
        "summary": diff_summary(compared.diff),
    }
