"""An evaluation's decision read as the generators' input, and the generated files checked."""

from __future__ import annotations

import functools
import hashlib
from pathlib import Path
from typing import Any

from django.core.cache import cache

from catalog.engine import gpus
from catalog.engine.cluster.decision import pool_slug
from catalog.engine.text import _
from catalog.engine.versions import in_span
from evaluations.configgen.admission import admission_problems
from evaluations.configgen.archive import config_archive
from evaluations.configgen.generate import generate
from evaluations.configgen.model import Chart, DecisionFacts, GeneratedFile, RowFacts
from evaluations.configgen.schemas import check_files
from evaluations.decisions.selectors import decision_of
from evaluations.errors import EvaluationError
from evaluations.models import Evaluation

CONFIG_CACHE_SECONDS = 24 * 3600


class ConfigUnavailable(EvaluationError):
    """No decision yet, or one that cannot be turned into configuration (the message says why;
    `reason`, the why alone, for a page whose heading already says there is no configuration)."""

    status = 409

    def __init__(self, message: str, *, reason: str = "", findings: list[str] = ()) -> None:
        super().__init__(message, errors={"findings": list(findings)} if findings else None)
        self.reason = reason or message
        self.findings = list(findings)


def _said(error: Exception) -> str:
    """What an error says, keeping an engine sentence's template (str() would drop it)."""
    return error.args[0] if len(error.args) == 1 and isinstance(error.args[0], str) else str(error)


def _row(
    ref: str, stored: dict[str, Any], current: dict[str, Any], installed: dict[str, str | None]
) -> RowFacts:
    # A decision approved before rows stated their chart pinned no `config`: the chart is then
    # read from the catalog as it stands (the version install.sh uses is still the pinned one).
    config = stored["config"] if "config" in stored else (current.get(ref) or {}).get("config")
    version = str(stored.get("project_version") or "")
    provides = tuple(stored.get("provides") or ())
    catalog_version = ""
    kept = installed.get(ref.split("/", 1)[0])
    if kept:
        # What the cluster runs is what the files target: never a silent upgrade. A contract
        # the installed release does not serve yet (Kueue v1beta2 before 0.15.0) is not used.
        spans = stored.get("contract_versions") or {}
        provides = tuple(
            item for item in provides if item not in spans or in_span(spans[item], kept)
        )
        catalog_version, version = version, kept
    return RowFacts(
        ref=ref,
        layer=str(stored.get("layer") or ""),
        units=tuple(stored.get("resource_units") or ()),
        provides=provides,
        docs=str((stored.get("project") or {}).get("homepage") or ""),
        version=version,
        dra_drivers=tuple((stored.get("detect") or {}).get("dra_drivers") or ()),
        chart=Chart.of(config),
        catalog_version=catalog_version,
    )


def decision_facts(evaluation: Evaluation) -> DecisionFacts:
    """The decision as the generators read it: its rows as pinned at approval (as they stand in
    the catalog before that), its pools, and step 1. ConfigUnavailable without a decision."""
    from evaluations.decisions.drift import rows_as_stored

    decision = decision_of(evaluation)
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
    unstated = [ref for ref in decision.rows if "config" not in stored[ref]]
    current = rows_as_stored(unstated) if unstated else {}
    try:
        profile = evaluation.engine_profile()
    except ValueError as exc:
        raise ConfigUnavailable(_("Step 1 is not valid: %(reason)s", reason=_said(exc))) from None
    approved = ""
    if decision.approved_at is not None:
        approved = f"approved {decision.approved_at.date().isoformat()}"
        if decision.approved_catalog_revision is not None:
            approved += f", catalog revision {decision.approved_catalog_revision}"
    slugs = [pool_slug(str(name)) for name in decision.pools or {}]
    if len(set(slugs)) != len(slugs):
        raise ConfigUnavailable(
            _(
                "Two pools have the same label value once written as Kubernetes names: %(pools)s",
                pools=", ".join(sorted(str(name) for name in decision.pools)),
            )
        )
    return DecisionFacts(
        evaluation_id=evaluation.pk,
        rows=tuple(
            _row(ref, stored[ref], current, profile.installed_versions) for ref in decision.rows
        ),
        profile=profile,
        pools={pool_slug(str(k)): list(v) for k, v in (decision.pools or {}).items()},
        pool_tenant_sharing=_by_slug(decision.pool_tenant_sharing),
        pool_groups=_by_slug(decision.pool_node_groups),
        # Step 1's named tenants are the namespaces and queues (profile v2).
        tenants=tuple(tenant.name for tenant in profile.tenants) or None,
        approved=approved,
    )


def _by_slug(per_pool: dict | None) -> dict:
    """Per-pool settings keyed as the files name the pools: every label value, file name and
    Kubernetes name uses the pool's slug, never its display name."""
    return {pool_slug(str(name)): value for name, value in (per_pool or {}).items()}


@functools.cache
def _generators_digest() -> str:
    """A digest of the code that turns facts into files (this package, the capacity sizing, the
    GPU facts and the file they are read from): a deploy that changes any of it never serves
    files the old code generated."""
    digest = hashlib.sha256()
    sources = [
        *sorted(Path(__file__).parent.glob("*.py")),
        *sorted((Path(__file__).parents[1] / "capacity").rglob("*.py")),
        Path(gpus.__file__),
        *sorted(Path(gpus.GPUS_PATH).parent.glob("*.yaml")),  # GPU and DRA driver facts
    ]
    for source in sources:
        digest.update(source.read_bytes())
    return digest.hexdigest()[:16]


def config_cache_key(facts: DecisionFacts) -> str:
    """Where the outcome of generating `facts` is cached: the facts are everything the
    generators read (rows as pinned or stored, pools, step 1), so equal facts give equal files."""
    digest = hashlib.sha256(repr(facts).encode()).hexdigest()[:32]
    return f"evaluations:config:{_generators_digest()}:{facts.evaluation_id}:{digest}"


def _generated(facts: DecisionFacts) -> tuple[str, Any]:
    """("files", checked files) or ("refused", the reason) or ("failed", the first problem)."""
    try:
        files = generate(facts)
    except ValueError as exc:  # ConfigRefused, NameRefused
        return "refused", _said(exc)
    problems = check_files(files)
    if problems:  # a generator defect: never ship a file that fails its own schema
        return "failed", problems[0]
    problems = admission_problems(facts, files) or round_trip_errors(facts, files)
    if problems:  # files a cluster would not admit or run: never served as if fine
        return "inadmissible", problems
    return "files", [file.freeze() for file in files]


def round_trip_errors(facts: DecisionFacts, files: list[GeneratedFile]) -> list[str]:
    """The errors of the files' own round trip (the cluster they would give, checked against the
    decision: docs/configgen.md, "Round trip"); none when that cluster is past the cluster
    check's own limits (the admission checks above still ran)."""
    from catalog.engine.cluster.snapshot import MAX_NODES, SnapshotError
    from catalog.selectors import cluster_catalog
    from evaluations.configgen.roundtrip import round_trip

    nodes = sum(f.documents[0].data.get("nodes", 0) for f in files if f.kind == "node-pool")
    if nodes > MAX_NODES:  # the check would refuse the snapshot: not built at all
        return []
    rows, signatures, evidence = cluster_catalog()
    try:
        report = round_trip(facts, rows=rows, signatures=signatures, files=files, evidence=evidence)
    except SnapshotError:
        return []
    return [
        _("round trip: %(message)s", message=finding.message)
        for finding in report.findings
        if finding.severity == "error"
    ]


def evaluation_config(evaluation: Evaluation) -> list[GeneratedFile]:
    """Every file the evaluation's decision gives, each checked; ConfigUnavailable (409) saying
    why when there is no decision, a name is not a Kubernetes name, or a check fails.

    Generated once per decision as it stands and cached (a 256-tenant, 100,000-node decision
    takes seconds to generate and check): the page, the API, the archive and the cluster
    compare read the same files."""
    facts = decision_facts(evaluation)
    key = config_cache_key(facts)
    outcome = cache.get(key)
    if not (isinstance(outcome, tuple) and len(outcome) == 2):
        outcome = _generated(facts)
        cache.set(key, outcome, CONFIG_CACHE_SECONDS)
    kind, value = outcome
    if kind == "refused":
        raise ConfigUnavailable(_("No configuration: %(reason)s", reason=value), reason=value)
    if kind == "failed":
        raise ConfigUnavailable(
            _("The generated configuration failed its checks: %(problem)s", problem=value)
        )
    if kind == "inadmissible":
        raise ConfigUnavailable(
            _(
                "The generated configuration would not run as decided (%(count)s findings; "
                "the first: %(problem)s)",
                count=len(value),
                problem=value[0],
            ),
            findings=value,
        )
    return value


def config_archive_name(evaluation: Evaluation) -> str:
    """The archive's top directory (`evaluation-12-config`); the file is that plus `.tar.gz`."""
    return f"evaluation-{evaluation.pk}-config"


def evaluation_config_archive(evaluation: Evaluation) -> bytes:
    """`evaluation_config` as a .tar.gz (archive.py), dated at the decision's approval, else its
    last update: the same decision always gives the same bytes. ConfigUnavailable as there."""
    files = evaluation_config(evaluation)
    decision = decision_of(evaluation)  # evaluation_config found it
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
