"""Catalog drift (issue 20): an approved decision pins its rows and stack check, and every catalog
write that touches those rows compares them again.

A change that makes the stack check worse (a new gap, conflict or unmet demand) or removes a
decided row moves the evaluation to needs re-review and tells its team; any other change (a
description, a note) leaves it approved with the drift shown as a note.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

from django.db import transaction
from django.db.models import Q
from django.utils import timezone
from django.utils.dateparse import parse_datetime
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from catalog.engine.stack import StackReport
from catalog.models import CatalogChange
from catalog.selectors import catalog_revision, stored_projects
from ecomap.dispatch import CHECK_CATALOG_DRIFT, enqueue_on_commit
from evaluations.audit.services import audit_write
from evaluations.decisions.models import Decision
from evaluations.models import Evaluation, State
from evaluations.notifications.choices import Event
from evaluations.notifications.services import evaluation_announce
from evaluations.review.editing import evaluation_lock
from evaluations.review.workflow import EvaluationWorkflow
from evaluations.selectors import decision_report

logger = logging.getLogger(__name__)

# The states whose decision stands: only these are compared with the catalog.
WATCHED_STATES = (State.APPROVED, State.NEEDS_REVIEW)
# Project fields pinned with each row (a row's meaning includes its project's description).
PROJECT_FIELDS = ("name", "vendor", "homepage", "repository", "license", "description", "tags")
HISTORY_SHOWN = 20

# A row's fields as the bundle names them, and its project's, by what a reader calls them.
FIELD_LABELS = {
    "component": gettext_lazy("component"),
    "layer": gettext_lazy("layer"),
    "resource_units": gettext_lazy("resource units"),
    "enforcement_points": gettext_lazy("enforcement points"),
    "functions": gettext_lazy("functions"),
    "functions_inferred": gettext_lazy("functions inferred"),
    "isolation": gettext_lazy("isolation"),
    "promise": gettext_lazy("promise"),
    "non_promise": gettext_lazy("non-promise"),
    "costs": gettext_lazy("costs"),
    "signals": gettext_lazy("signals"),
    "provides": gettext_lazy("provides"),
    "requires": gettext_lazy("requires"),
    "accepts": gettext_lazy("accepts"),
    "exclusive": gettext_lazy("exclusive"),
    "failure_modes": gettext_lazy("failure modes"),
    "evidence": gettext_lazy("evidence"),
    "project_version": gettext_lazy("project version"),
    "reviewed": gettext_lazy("reviewed"),
    "verified_at": gettext_lazy("last verified"),
    "unverified": gettext_lazy("unverified claims"),
    "detect": gettext_lazy("detection signatures"),
    "config": gettext_lazy("Helm chart"),
    "versions": gettext_lazy("versions the claims hold for"),
    "contract_versions": gettext_lazy("contract versions"),
    "project.name": gettext_lazy("project name"),
    "project.vendor": gettext_lazy("project vendor"),
    "project.homepage": gettext_lazy("project homepage"),
    "project.repository": gettext_lazy("project repository"),
    "project.license": gettext_lazy("project license"),
    "project.description": gettext_lazy("project description"),
    "project.tags": gettext_lazy("project tags"),
}

# StackReport.to_dict() lists, by the kind each finding is stored as.
FINDING_KINDS = {"gaps": "gap", "conflicts": "conflict", "missing_layers": "missing_layer"}


# ---- pinning ------------------------------------------------------------------------------------


def rows_as_stored(refs: list[str]) -> dict[str, dict[str, Any]]:
    """Each named row as the catalog export reads it, with its project's fields under
    `project`; refs no longer in the catalog are absent."""
    wanted: dict[str, set[str]] = {}
    for ref in refs:
        slug, _, key = ref.partition("/")
        wanted.setdefault(slug, set()).add(key)
    stored = stored_projects(slugs=list(wanted))
    rows: dict[str, dict[str, Any]] = {}
    for slug, project in stored.items():
        pinned_project = {name: project.fields.get(name) for name in PROJECT_FIELDS}
        for key in wanted[slug]:
            if key in project.rows:
                _row_id, placement = project.rows[key]
                rows[f"{slug}/{key}"] = {**placement, "project": pinned_project}
    return rows


def findings_of(report: StackReport | None) -> list[dict[str, Any]]:
    """The stack check's problems as plain dicts, each with a stable `key` (kind and fields):
    gaps, conflicts, missing layers and any unmet demand of the profile (fit not "ok")."""
    if report is None:
        return []
    findings = []
    for name, items in report.to_dict().items():
        if not isinstance(items, list):
            continue
        kind = FINDING_KINDS.get(name, name)
        for item in items:
            if kind == "fit" and item.get("status") == "ok":
                continue
            key = "|".join([kind, *(f"{k}={item[k]}" for k in sorted(item))])
            findings.append({"kind": kind, **item, "key": key})
    return sorted(findings, key=lambda finding: finding["key"])


def decision_pin(*, evaluation: Evaluation) -> Decision | None:
    """Record, at approval, the catalog revision, the decided rows and the stack check's
    findings, and forget any earlier drift: the new approval is the new baseline."""
    decision = Decision.objects.filter(evaluation=evaluation).first()
    if decision is None:
        return None
    decision.approved_at = timezone.now()
    decision.approved_catalog_revision = catalog_revision()
    decision.approved_rows = rows_as_stored(list(decision.rows))
    decision.approved_findings = findings_of(decision_report(evaluation))
    decision.save(
        update_fields=[
            "approved_at",
            "approved_catalog_revision",
            "approved_rows",
            "approved_findings",
        ]
    )
    if evaluation.catalog_drift:
        evaluation.catalog_drift = {}
        evaluation.save(update_fields=["catalog_drift", "updated_at"])
    return decision


def decisions_pin_unpinned() -> int:
    """Pin, as of now, every approved decision approved before pinning existed (so drift is
    watched from here on); returns how many."""
    pinned = 0
    for evaluation in Evaluation.objects.filter(
        state=State.APPROVED, decision__approved_at__isnull=True
    ).exclude(decision__rows=[]):
        with transaction.atomic():
            evaluation = evaluation_lock(evaluation)
            if evaluation.state == State.APPROVED:
                decision_pin(evaluation=evaluation)
                pinned += 1
    return pinned


# ---- detection ----------------------------------------------------------------------------------


def _row_changes(old: dict[str, Any], new: dict[str, Any]) -> dict[str, dict[str, Any]]:
    changes = {}
    for name in sorted(set(old) | set(new)):
        if name == "project" or name not in old:  # a field rows gained after the pin
            continue
        if old.get(name) != new.get(name):
            changes[name] = {"old": old.get(name), "new": new.get(name)}
    old_project, new_project = old.get("project") or {}, new.get("project") or {}
    for name in PROJECT_FIELDS:
        if old_project.get(name) != new_project.get(name):
            changes[f"project.{name}"] = {
                "old": old_project.get(name),
                "new": new_project.get(name),
            }
    return changes


def _history(decision: Decision, refs: list[str]) -> list[dict[str, Any]]:
    """The catalog history entries behind the drift: who changed which row, when, from where."""
    if not refs:
        return []
    keys_by_slug: dict[str, set[str]] = {}
    for ref in refs:
        slug, _, key = ref.partition("/")
        keys_by_slug.setdefault(slug, {""}).add(key)
    changes = CatalogChange.objects.filter(id__gt=decision.approved_catalog_revision or 0)
    query = Q(pk__in=[])
    for slug, keys in keys_by_slug.items():
        query |= Q(project_slug=slug, row_key__in=keys)
    entries = changes.filter(query).select_related("actor").order_by("-id")[:HISTORY_SHOWN]
    return [
        {
            "id": entry.pk,
            "at": entry.created_at.isoformat(),
            "actor": entry.actor.get_username() if entry.actor else "",
            "source": entry.source,
            "action": entry.action,
            "ref": f"{entry.project_slug}/{entry.row_key}" if entry.row_key else entry.project_slug,
            "fields": sorted(entry.changes or {}),
        }
        for entry in entries
    ]


def drift_compute(evaluation: Evaluation) -> dict[str, Any]:
    """What changed under the pinned decision: {} when the catalog reads as at approval."""
    decision = evaluation.decision
    approved = decision.approved_rows or {}
    current = rows_as_stored(list(approved))
    rows = {}
    removed = []
    for ref, old in sorted(approved.items()):
        if ref not in current:
            removed.append(ref)
            continue
        changes = _row_changes(old, current[ref])
        if changes:
            rows[ref] = changes
    now = findings_of(decision_report(evaluation))
    before_keys = {finding["key"] for finding in decision.approved_findings or []}
    now_keys = {finding["key"] for finding in now}
    new_findings = [finding for finding in now if finding["key"] not in before_keys]
    gone_findings = [
        finding for finding in decision.approved_findings or [] if finding["key"] not in now_keys
    ]
    if not (rows or removed or new_findings or gone_findings):
        return {}
    stack_check = "worse" if new_findings else "better" if gone_findings else "unchanged"
    return {
        "checked_at": timezone.now().isoformat(),
        "catalog_revision": catalog_revision(),
        "since_revision": decision.approved_catalog_revision,
        "rows": rows,
        "removed_rows": removed,
        "stack_check": stack_check,
        "new_findings": new_findings,
        "gone_findings": gone_findings,
        "history": _history(decision, [*rows, *removed]),
    }


def _same_drift(old: dict[str, Any], new: dict[str, Any]) -> bool:
    """Two drifts say the same thing (when they were checked aside)."""
    moving = ("checked_at", "catalog_revision", "history")
    return {k: v for k, v in old.items() if k not in moving} == {
        k: v for k, v in new.items() if k not in moving
    }


def drift_is_worse(drift: dict[str, Any]) -> bool:
    return drift.get("stack_check") == "worse" or bool(drift.get("removed_rows"))


@transaction.atomic
def evaluation_drift_check(*, evaluation_id: int) -> str:
    """Compare one evaluation's pinned decision with the catalog now and act on it; returns
    "skipped", "same", "noted" or "flagged". A rerun that finds the same drift does nothing."""
    evaluation = Evaluation.objects.filter(pk=evaluation_id).first()
    if evaluation is None:
        return "skipped"
    evaluation = evaluation_lock(evaluation)
    decision = Decision.objects.filter(evaluation=evaluation).first()
    if evaluation.state not in WATCHED_STATES or decision is None or decision.approved_at is None:
        return "skipped"
    drift = drift_compute(evaluation)
    if _same_drift(evaluation.catalog_drift or {}, drift):
        return "same"
    evaluation.catalog_drift = drift
    evaluation.save(update_fields=["catalog_drift", "updated_at"])
    if not drift or not drift_is_worse(drift):
        return "noted"
    transition = None
    if evaluation.state == State.APPROVED:
        transition = EvaluationWorkflow(evaluation).flag_for_review()
        evaluation.save(update_fields=["state", "updated_at"])
    audit_write(
        evaluation,
        None,
        "catalog_drift",
        changes={
            "rows": drift["rows"],
            "removed_rows": drift["removed_rows"],
            "new_findings": [finding["key"] for finding in drift["new_findings"]],
            "catalog_revision": drift["catalog_revision"],
        },
        transition=transition,
    )
    evaluation_announce(evaluation=evaluation, actor=None, event=Event.CATALOG_DRIFT)
    logger.info(
        "catalog drift flagged",
        extra={"evaluation": evaluation.pk, "revision": drift["catalog_revision"]},
    )
    return "flagged"


def _touches(decision_refs: list[str], changed: set[str]) -> bool:
    return any(ref in changed or f"{ref.partition('/')[0]}/" in changed for ref in decision_refs)


def watched_evaluations(refs: list[str] | None = None) -> list[int]:
    """Ids of approved or needs-review evaluations whose pinned decision names one of `refs`
    ("project/key", or "project/" for any row of the project); all of them when None."""
    decisions = Decision.objects.filter(
        evaluation__state__in=WATCHED_STATES, approved_at__isnull=False
    ).values_list("evaluation_id", "rows")
    if refs is None:
        return sorted(evaluation_id for evaluation_id, _rows in decisions)
    changed = set(refs)
    return sorted(
        evaluation_id for evaluation_id, rows in decisions if _touches(list(rows or []), changed)
    )


def catalog_drift_check(*, refs: list[str] | None = None) -> dict[str, int]:
    """Check every watched evaluation touched by `refs` (all when None), each in its own
    transaction; returns how many ended each way."""
    counts: dict[str, int] = {}
    for evaluation_id in watched_evaluations(refs):
        outcome = evaluation_drift_check(evaluation_id=evaluation_id)
        counts[outcome] = counts.get(outcome, 0) + 1
    return counts


def on_catalog_rows_changed(sender, *, refs: list[str], revision: int, **kwargs) -> None:
    """The catalog committed a write: queue the drift check if a watched decision is touched,
    naming only the decided rows it touched (a 10,000-row import sends a short message)."""
    changed = set(refs)
    decided = Decision.objects.filter(
        evaluation__state__in=WATCHED_STATES, approved_at__isnull=False
    ).values_list("rows", flat=True)
    touched = sorted({ref for rows in decided for ref in rows or [] if _touches([ref], changed)})
    if touched:
        enqueue_on_commit(CHECK_CATALOG_DRIFT, touched)


def drift_recover(*, now, pending_grace: timedelta, window: timedelta) -> dict[str, int]:
    """For the recovery sweep: send the drift check again for watched evaluations whose decided
    rows changed after their last check (a check lost with the broker or a dead worker).

    Changes younger than `pending_grace` are left to the normal path; changes older than `window`
    to `check_catalog_drift` (an outage that long needs an operator anyway)."""
    changes = CatalogChange.objects.filter(
        created_at__lt=now - pending_grace, created_at__gte=now - window
    ).values_list("id", "project_slug", "row_key")
    changes = list(changes)
    if not changes:
        return {"republished": 0}
    decisions = Decision.objects.filter(
        evaluation__state__in=WATCHED_STATES, approved_at__isnull=False
    ).values_list("rows", "approved_catalog_revision", "evaluation__catalog_drift")
    missed: set[str] = set()
    for rows, approved_revision, drift in decisions:
        checked = max(approved_revision or 0, (drift or {}).get("catalog_revision") or 0)
        for change_id, slug, key in changes:
            if change_id <= checked:
                continue
            changed = {f"{slug}/{key}" if key else f"{slug}/"}
            missed.update(ref for ref in rows or [] if _touches([ref], changed))
    if missed:
        enqueue_on_commit(CHECK_CATALOG_DRIFT, sorted(missed))
    return {"republished": len(missed)}


# ---- display ------------------------------------------------------------------------------------


def field_label(name: str) -> str:
    return str(FIELD_LABELS.get(name, name.replace("_", " ")))


def _shown(value: Any) -> str:
    if value in (None, "", [], {}):
        return "—"
    if isinstance(value, list):
        return ", ".join(_shown(item) for item in value)
    if isinstance(value, dict):
        if set(value) <= {"url", "claim"}:
            return value.get("url", "")
        return "; ".join(f"{key}: {_shown(item)}" for key, item in value.items())
    return str(value)


@dataclass
class FieldChange:
    label: str
    old: str = ""
    new: str = ""
    added: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    # Unchanged words around a change in a long text.
    before: str = ""
    after: str = ""


@dataclass
class RowDrift:
    ref: str
    changes: list[FieldChange]


def _field_change(name: str, change: dict[str, Any]) -> FieldChange:
    old, new = change.get("old"), change.get("new")
    lists = isinstance(old, list | type(None)) and isinstance(new, list | type(None))
    if lists and all(isinstance(item, str) for item in [*(old or []), *(new or [])]):
        return FieldChange(
            label=field_label(name),
            added=[item for item in new or [] if item not in (old or [])],
            removed=[item for item in old or [] if item not in (new or [])],
        )
    if isinstance(old, str) and isinstance(new, str):
        before, old, new, after = _changed_words(old, new)
        return FieldChange(label=field_label(name), old=old, new=new, before=before, after=after)
    return FieldChange(label=field_label(name), old=_shown(old), new=_shown(new))


def _changed_words(old: str, new: str, *, context: int = 4) -> tuple[str, str, str, str]:
    """A long text by the words that changed: (words before, old words, new words, words
    after), with a few unchanged words around the change and "…" for the rest."""
    old_words, new_words = old.split(), new.split()
    if len(old_words) + len(new_words) <= 40:
        return "", old or "—", new or "—", ""
    shortest = min(len(old_words), len(new_words))
    start = 0
    while start < shortest and old_words[start] == new_words[start]:
        start += 1
    end = 0
    while end < shortest - start and old_words[-1 - end] == new_words[-1 - end]:
        end += 1
    begin = max(start - context, 0)
    before = ("… " if begin else "") + " ".join(old_words[begin:start])
    after = " ".join(old_words[len(old_words) - end :][:context])
    after += " …" if end > context else ""
    return (
        before,
        " ".join(old_words[start : len(old_words) - end]),
        " ".join(new_words[start : len(new_words) - end]),
        after,
    )


def finding_sentence(finding: dict[str, Any]) -> str:
    """One finding in words of the active language."""
    kind = finding.get("kind")
    if kind == "gap":
        return _("%(row)s needs %(pattern)s and nothing in reach provides it") % {
            "row": finding.get("row", ""),
            "pattern": finding.get("pattern", ""),
        }
    if kind == "conflict":
        return _("%(a)s and %(b)s both hold %(tokens)s on the pool %(pool)s") % {
            "a": finding.get("row_a", ""),
            "b": finding.get("row_b", ""),
            "tokens": ", ".join(finding.get("tokens") or []),
            "pool": finding.get("pool", ""),
        }
    return str(finding.get("message") or finding.get("key", ""))


@dataclass
class DriftView:
    """What the drift notice shows."""

    worse: bool
    stack_check: str
    since_revision: int | None
    catalog_revision: int | None
    checked_at: Any
    rows: list[RowDrift]
    removed_rows: list[str]
    new_findings: list[str]
    gone_findings: list[str]
    history: list[dict[str, Any]]


def drift_view(evaluation: Evaluation) -> DriftView | None:
    """The evaluation's stored drift, labelled for the page; None when there is none."""
    drift = evaluation.catalog_drift or {}
    if not drift:
        return None
    return DriftView(
        worse=drift_is_worse(drift),
        stack_check=drift.get("stack_check", "unchanged"),
        since_revision=drift.get("since_revision"),
        catalog_revision=drift.get("catalog_revision"),
        checked_at=parse_datetime(drift.get("checked_at") or ""),
        rows=[
            RowDrift(
                ref=ref,
                changes=[_field_change(name, change) for name, change in sorted(changes.items())],
            )
            for ref, changes in sorted((drift.get("rows") or {}).items())
        ],
        removed_rows=list(drift.get("removed_rows") or []),
        new_findings=[finding_sentence(f) for f in drift.get("new_findings") or []],
        gone_findings=[finding_sentence(f) for f in drift.get("gone_findings") or []],
        history=[
            {**entry, "at": parse_datetime(entry.get("at") or "")}
            for entry in drift.get("history") or []
        ],
    )
