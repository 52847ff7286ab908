"""`round_trip_config EVALUATION`: the cluster check of the cluster an evaluation's generated
configuration would give, against its decision (docs/configgen.md, "Round trip")."""

from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError

from catalog.engine.cluster.snapshot import SnapshotError
from evaluations.configgen.selectors import evaluation_round_trip
from evaluations.errors import EvaluationError
from evaluations.models import Evaluation


class Command(BaseCommand):
    help = (
        "Print the round trip's findings: the generated configuration projected into the "
        "cluster it would give and checked against the decision; exits non-zero on an error."
    )

    def add_arguments(self, parser) -> None:
        parser.add_argument("evaluation_id", type=int)

    def handle(self, *args, evaluation_id: int, **options) -> None:
        evaluation = Evaluation.objects.filter(pk=evaluation_id).first()
        if evaluation is None:
            raise CommandError(f"no evaluation {evaluation_id}")
        try:
            report = evaluation_round_trip(evaluation)
        except EvaluationError as exc:
            raise CommandError(exc.message) from exc
        except SnapshotError as exc:  # the projected cluster is past the check's own limits
            raise CommandError(f"the cluster these files give cannot be checked: {exc}") from exc
        for finding in report.findings:
            self.stdout.write(f"{finding.severity.upper()} {finding.code}: {finding.message}")
        errors = sum(1 for f in report.findings if f.severity == "error")
        summary = f"round trip: {errors} error(s), {len(report.findings)} finding(s)"
        if errors:
            raise CommandError(summary)
        self.stdout.write(summary)
