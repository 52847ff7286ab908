"""An evaluation's decision read as the generators' input, and the generated files checked."""

from __future__ import annotations

from typing import Any

from catalog.engine.text import _
from evaluations.configgen.archive import config_archive
from evaluations.configgen.generate import generate
from evaluations.configgen.model import DecisionFacts, GeneratedFile, RowFacts
from evaluations.configgen.schemas import check_files
from evaluations.errors import EvaluationError
from evaluations.models import Decision, Evaluation


class ConfigUnavailable(EvaluationError):
    """No decision yet, or one that cannot be turned into configuration (the message says why)."""

    status = 409


def _said(error: Exception) -> str:
    """What an error says, keeping an engine sentence's template (str() would drop it)."""
    return error.args[0] if len(error.args) == 1 and isinstance(error.args[0], str) else str(error)


def _row(ref: str, stored: dict[str, Any]) -> RowFacts:
    return RowFacts(
        ref=ref,
        layer=str(stored.get("layer") or ""),
        units=tuple(stored.get("resource_units") or ()),
        provides=tuple(stored.get("provides") or ()),
        docs=str((stored.get("project") or {}).get("homepage") or ""),
        version=str(stored.get("project_version") or ""),
        dra_drivers=tuple((stored.get("detect") or {}).get("dra_drivers") or ()),
    )


def decision_facts(evaluation: Evaluation) -> DecisionFacts:
    """The decision as the generators read it: its rows as pinned at approval (as they stand in
    the catalog before that), its pools, and step 1. ConfigUnavailable without a decision."""
    from evaluations.decisions.drift import rows_as_stored

    decision = Decision.objects.filter(evaluation=evaluation).first()
    if decision is None or not decision.rows:
        raise ConfigUnavailable(_("The evaluation has no decision yet: decide a stack first."))
    pinned = decision.approved_rows or {}
    stored = (
        pinned if all(ref in pinned for ref in decision.rows) else rows_as_stored(decision.rows)
    )
    missing = [ref for ref in decision.rows if ref not in stored]
    if missing:
        raise ConfigUnavailable(
            _(
                "Decided rows are no longer in the catalog: %(rows)s",
                rows=", ".join(sorted(missing)),
            )
        )
    try:
        profile = evaluation.engine_profile()
    except ValueError as exc:
        raise ConfigUnavailable(_("Step 1 is not valid: %(reason)s", reason=_said(exc))) from None
    approved = ""
    if decision.approved_at is not None:
        approved = f"approved {decision.approved_at.date().isoformat()}"
        if decision.approved_catalog_revision is not None:
            approved += f", catalog revision {decision.approved_catalog_revision}"
    return DecisionFacts(
        evaluation_id=evaluation.pk,
        rows=tuple(_row(ref, stored[ref]) for ref in decision.rows),
        profile=profile,
        pools={str(k): list(v) for k, v in (decision.pools or {}).items()},
        pool_tenant_sharing=dict(decision.pool_tenant_sharing or {}),
        approved=approved,
    )


def evaluation_config(evaluation: Evaluation) -> list[GeneratedFile]:
    """Every file the evaluation's decision gives, each checked; ConfigUnavailable (409) saying
    why when there is no decision, a name is not a Kubernetes name, or a check fails."""
    facts = decision_facts(evaluation)
    try:
        files = generate(facts)
    except ValueError as exc:  # ConfigRefused, NameRefused
        raise ConfigUnavailable(_("No configuration: %(reason)s", reason=_said(exc))) from None
    problems = check_files(files)
    if problems:  # a generator defect: never ship a file that fails its own schema
        raise ConfigUnavailable(
            _("The generated configuration failed its checks: %(problem)s", problem=problems[0])
        )
    return files


def config_archive_name(evaluation: Evaluation) -> str:
    """The archive's top directory (`evaluation-12-config`); the file is that plus `.tar.gz`."""
    return f"evaluation-{evaluation.pk}-config"


def evaluation_config_archive(evaluation: Evaluation) -> bytes:
    """`evaluation_config` as a .tar.gz (archive.py), dated at the decision's approval, else its
    last update: the same decision always gives the same bytes. ConfigUnavailable as there."""
    files = evaluation_config(evaluation)
    decision = Decision.objects.get(evaluation=evaluation)  # evaluation_config found it
    dated = decision.approved_at or decision.decided_at
    return config_archive(files, top=config_archive_name(evaluation), mtime=int(dated.timestamp()))


def evaluation_round_trip(evaluation: Evaluation):
    """The cluster check of the cluster the evaluation's generated configuration would give,
    against its decision (a projection: docs/configgen.md, "Round trip"); ConfigUnavailable as
    evaluation_config."""
    from catalog.selectors import cluster_catalog
    from evaluations.configgen.roundtrip import round_trip

    facts = decision_facts(evaluation)
    files = evaluation_config(evaluation)
    rows, signatures, evidence = cluster_catalog()
    return round_trip(facts, rows=rows, signatures=signatures, files=files, evidence=evidence)
