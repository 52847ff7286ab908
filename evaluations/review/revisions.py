"""What an evaluation said at each revision, written whenever the revision changes (the content
diffs compare): profile, units, candidates with their boundaries, decision and the decision's
stack-check findings, as plain JSON."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from django.conf import settings
from django.db.models import Prefetch
from django.utils import timezone

from catalog.engine.profile import PROFILE_FIELDS
from catalog.engine.text import Text
from catalog.models import PlacementRow
from evaluations.decisions.selectors import decision_of
from evaluations.models import Evaluation
from evaluations.review.models import EvaluationRevision
from evaluations.selectors import decision_report

# Bumped when the content's shape changes, so a diff can tell two shapes apart.
CONTENT_VERSION = 1


def coalesce_window() -> timedelta:
    """One editor's saves closer together than this are one recorded revision (a minute)."""
    return timedelta(seconds=settings.REVISION_COALESCE_SECONDS)


def text_as_data(text: Any) -> Any:
    """An engine sentence as JSON that can be said again in the reader's language."""
    if not isinstance(text, Text):
        return str(text)
    return {
        "text": str(text),
        "template": text.template,
        "params": {name: text_as_data(value) for name, value in text.params.items()},
    }


def text_from_data(data: Any) -> Any:
    """The sentence `text_as_data` stored, back as a Text (plain strings stay strings)."""
    if not isinstance(data, dict) or "template" not in data:
        return data if isinstance(data, str) else str(data or "")
    params = {name: text_from_data(value) for name, value in (data.get("params") or {}).items()}
    return Text(data["template"], params)


def findings_as_data(report) -> list[dict[str, Any]]:
    """A stack check's findings as plain dicts, each with a stable `key` (what it is about, so
    two revisions' findings can be matched) and a `severity` (error, warning, ok)."""
    if report is None:
        return []
    items: list[dict[str, Any]] = []
    for gap in report.gaps:
        items.append(
            {
                "kind": "gap",
                "key": f"gap|{gap.row}|{gap.pattern}|{gap.pool or ''}",
                "severity": "error",
                "row": gap.row,
                "pattern": gap.pattern,
                "pool": gap.pool,
            }
        )
    for conflict in report.conflicts:
        items.append(
            {
                "kind": "conflict",
                "key": f"conflict|{conflict.pool}|{conflict.row_a}|{conflict.row_b}",
                "severity": "error",
                "row_a": conflict.row_a,
                "row_b": conflict.row_b,
                "pool": conflict.pool,
                "tokens": list(conflict.tokens),
            }
        )
    for missing in report.missing_layers:
        items.append(
            {
                "kind": "missing_layer",
                "key": f"missing_layer|{missing.pool or ''}|{missing.layer}",
                "severity": "warning",
                "pool": missing.pool,
                "layer": missing.layer,
                "message": text_as_data(missing.message),
            }
        )
    for fit in report.fit:
        items.append(
            {
                "kind": "fit",
                "key": f"fit|{fit.aspect}|{fit.status}|{fit.message}",
                "severity": {"gap": "error", "warning": "warning"}.get(fit.status, "ok"),
                "aspect": fit.aspect,
                "status": fit.status,
                "message": text_as_data(fit.message),
            }
        )
    return items


def revision_content(evaluation: Evaluation) -> dict[str, Any]:
    """The evaluation as it stands in the database, in the shape revisions store."""
    evaluation = Evaluation.objects.get(pk=evaluation.pk)  # fresh: no stale related caches
    profile = evaluation.profile or {}
    candidates = evaluation.candidates.prefetch_related(
        "enforcement_points",
        Prefetch("row", queryset=PlacementRow.objects.select_related("project")),
    )
    decision = decision_of(evaluation)
    labels: dict[str, str] = {}
    candidate_items = []
    for candidate in candidates:
        row = candidate.row
        labels[row.ref] = _row_label(row)
        candidate_items.append(
            {
                "row": row.ref,
                "enforcement_points": sorted(p.key for p in candidate.enforcement_points.all()),
                "points_confirmed": candidate.points_confirmed,
                "alternative_group": candidate.alternative_group,
                # What the evaluation says: the team's text, else the catalog's pre-fill.
                "promise": candidate.boundary_promise,
                "non_promise": candidate.boundary_non_promise,
            }
        )
    decision_data = None
    if decision is not None:
        decision_data = {
            "rows": list(decision.rows),
            "pools": {name: list(refs) for name, refs in (decision.pools or {}).items()},
            "pool_tenant_sharing": dict(decision.pool_tenant_sharing or {}),
            "pool_node_groups": dict(decision.pool_node_groups or {}),
            "rationale": decision.rationale,
            "risks": decision.risks,
            "acceptance_checks": decision.acceptance_checks,
        }
        unlabelled = [ref for ref in decision.rows if ref not in labels]
        if unlabelled:
            from evaluations.selectors import placement_rows_by_ref

            for ref, row in placement_rows_by_ref(unlabelled).items():
                labels[ref] = _row_label(row)
    return {
        "version": CONTENT_VERSION,
        "title": evaluation.title,
        "profile": {name: profile.get(name) for name in PROFILE_FIELDS},
        "units": [
            {"unit": choice.unit.key, "note": choice.note}
            for choice in evaluation.units.select_related("unit")
        ],
        "candidates": candidate_items,
        "decision": decision_data,
        "findings": findings_as_data(decision_report(evaluation)),
        # Display only (never compared): rows named as people know them.
        "labels": labels,
    }


def _row_label(row: PlacementRow) -> str:
    return f"{row.project.name} · {row.component or row.key}"


def revision_record(*, evaluation: Evaluation, actor) -> EvaluationRevision:
    """Write (or rewrite) the content of the evaluation's current revision; call it wherever
    the revision changes, inside the same transaction. Saves of one editor within
    coalesce_window() of their previous recorded revision, when nothing named it since, are
    coalesced: that record moves up to the current revision (autosave made 27 in 5 minutes)."""
    content = revision_content(evaluation)
    current = EvaluationRevision.objects.filter(evaluation=evaluation, revision=evaluation.revision)
    if current.update(content=content, actor=actor):
        return current.get()
    previous = (
        EvaluationRevision.objects.filter(evaluation=evaluation, revision__lt=evaluation.revision)
        .order_by("-revision")
        .first()
    )
    if (
        previous is not None
        and actor is not None
        and previous.actor_id == actor.pk
        and not previous.name
        and timezone.now() - previous.created_at < coalesce_window()
        and not evaluation.reviews.filter(revision=previous.revision).exists()
    ):
        previous.revision = evaluation.revision
        previous.content = content
        previous.save(update_fields=["revision", "content"])
        return previous
    return EvaluationRevision.objects.create(
        evaluation=evaluation, revision=evaluation.revision, content=content, actor=actor
    )


def revision_name(*, evaluation: Evaluation, name: str, actor) -> EvaluationRevision:
    """Name the current revision (submitted, approved, changes requested): a named revision is
    never coalesced with later saves, so a reviewer's diff can start from it."""
    record = revision_get(evaluation=evaluation, revision=evaluation.revision)
    if record is None:  # pragma: no cover - revision_get builds the current one
        record = revision_record(evaluation=evaluation, actor=actor)
    record.name = name
    record.save(update_fields=["name"])
    return record


def revision_get(*, evaluation: Evaluation, revision: int) -> EvaluationRevision | None:
    """The stored revision; the current one is built from the evaluation's state when it was
    never recorded (revisions made before contents were recorded cannot be rebuilt)."""
    record = EvaluationRevision.objects.filter(evaluation=evaluation, revision=revision).first()
    if record is None and revision == evaluation.revision:
        record, _created = EvaluationRevision.objects.get_or_create(
            evaluation=evaluation,
            revision=revision,
            defaults={"content": revision_content(evaluation), "actor": None},
        )
    return record


def revisions_of(evaluation: Evaluation) -> list[EvaluationRevision]:
    """The recorded revisions, oldest first, the current one included (built if need be)."""
    revision_get(evaluation=evaluation, revision=evaluation.revision)
    return list(
        EvaluationRevision.objects.filter(evaluation=evaluation)
        .select_related("actor")
        .order_by("revision")
    )
