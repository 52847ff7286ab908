"""`manage.py check_cluster SNAPSHOT.json [--evaluation N] [--json]`: what a cluster really runs,
checked against the catalog and, given an evaluation, against its decision and the configuration
generated from it (differences per generated file; they do not change the exit status).

Exit status: 0 when no finding is an error, 1 when one is (usable as a CI gate), 2 when the
snapshot cannot be read or is refused, or the evaluation has no decision to compare with.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from catalog.engine.cluster import (
    ClusterReport,
    Decided,
    SnapshotError,
    builtin_dra_features,
    check_cluster,
    load_snapshot,
)
from catalog.engine.cluster.report import SEVERITIES
from catalog.selectors import cluster_catalog
from evaluations.clusters.selectors import ConfigDrift, config_drift_of
from evaluations.models import Evaluation

# Exit status for input that could not be checked (1 is kept for error-level findings).
UNUSABLE = 2
HEADINGS = {"error": "Errors", "warning": "Warnings", "info": "Notes"}


class Command(BaseCommand):
    help = (
        "Check a cluster snapshot (ecomap.cluster/v1, written by scripts/collect-cluster) "
        "against the catalog and optionally an evaluation's decision; exits 1 on errors."
    )

    def add_arguments(self, parser):
        parser.add_argument("snapshot", help="path of the snapshot JSON file, or - for stdin")
        parser.add_argument(
            "--evaluation", type=int, help="compare with the decision of this evaluation (id)"
        )
        parser.add_argument("--json", action="store_true", help="print the report as JSON")

    def handle(self, *args, **options):
        snapshot = self._load(options["snapshot"])
        evaluation = self._evaluation(options["evaluation"]) if options["evaluation"] else None
        decision = self._decision(evaluation) if evaluation is not None else None
        drift = config_drift_of(snapshot, evaluation) if evaluation is not None else None
        rows, signatures, evidence = cluster_catalog()
        report = check_cluster(
            snapshot,
            rows=rows,
            signatures=signatures,
            evidence=evidence,
            decision=decision,
            dra_features=builtin_dra_features(),
        )
        if options["json"]:
            data = report.to_dict()
            if drift is not None:
                data["config_drift"] = drift.to_list()
                data["config_drift_unavailable"] = drift.unavailable
            self.stdout.write(json.dumps(data, indent=2, ensure_ascii=False))
        else:
            self._print(report, decision)
            if drift is not None:
                self._print_drift(drift)
        if not report.ok:
            raise SystemExit(1)

    def _load(self, source: str):
        try:
            body = sys.stdin.buffer.read() if source == "-" else Path(source).read_bytes()
        except OSError as exc:
            raise CommandError(
                f"cannot read {source}: {exc.strerror or exc}", returncode=UNUSABLE
            ) from exc
        try:
            return load_snapshot(body)
        except SnapshotError as exc:
            lines = "\n".join(f"  {path}: {message}" for path, message in exc.errors)
            raise CommandError(
                f"{source} is not a usable ecomap.cluster/v1 snapshot:\n{lines}",
                returncode=UNUSABLE,
            ) from exc

    def _evaluation(self, pk: int) -> Evaluation:
        evaluation = Evaluation.objects.select_related("decision").filter(pk=pk).first()
        if evaluation is None:
            raise CommandError(f"no evaluation {pk}", returncode=UNUSABLE)
        return evaluation

    def _decision(self, evaluation: Evaluation) -> Decided:
        decision = getattr(evaluation, "decision", None)
        if decision is None or not decision.rows:
            raise CommandError(
                f"evaluation {evaluation.pk} ({evaluation.title}) has no decision to compare "
                "with yet",
                returncode=UNUSABLE,
            )
        pools = {name: tuple(ids) for name, ids in (decision.pools or {}).items()}
        return Decided(rows=tuple(decision.rows), pools=pools)

    def _print(self, report: ClusterReport, decision: Decided | None) -> None:
        out = self.stdout.write
        version = report.kubernetes_version or "version unknown"
        out(f"Cluster {report.cluster} (Kubernetes {version})")
        if decision is not None:
            out(f"Compared with a decision of {len(decision.rows)} row(s)")
        out(f"{len(report.detected)} catalog row(s) detected:")
        for found in report.detected:
            where = "cluster-wide" if found.cluster_wide else f"{len(found.nodes)} node(s)"
            pools = f" in {', '.join(found.pools)}" if found.pools else ""
            version = f" {found.version}" if found.version else ""
            out(f"  {found.row}{version}: {where}{pools}")
        for severity in SEVERITIES:
            findings = [f for f in report.findings if f.severity == severity]
            if not findings:
                continue
            out("")
            out(f"{HEADINGS[severity]} ({len(findings)}):")
            for finding in findings:
                out(f"  [{finding.code}] {finding.message}")
                if finding.nodes:
                    out(f"    nodes: {', '.join(finding.nodes)}")
                if finding.objects:
                    out(f"    objects: {', '.join(finding.objects)}")
                for url in finding.evidence[:3]:
                    out(f"    evidence: {url}")
        counts = report.counts()
        out("")
        out(f"{counts['error']} error(s), {counts['warning']} warning(s), {counts['info']} note(s)")

    def _print_drift(self, drift: ConfigDrift) -> None:
        out = self.stdout.write
        out("")
        if drift.unavailable:
            out(f"No generated configuration to compare with: {drift.unavailable}")
            return
        out("Differences from the generated configuration:")
        paths = list(dict.fromkeys(item.path for item in drift.items))
        for path in paths:
            out(f"  {path}")
            for item in drift.items:
                if item.path == path:
                    out(f"    [{item.severity}] {item.message}")
        if not paths:
            out("  none: the cluster matches every generated file")
