"""`export_config EVALUATION DIR`: write the configuration an evaluation's decision gives."""

from __future__ import annotations

from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from evaluations.configgen.install import INSTALL_SCRIPT
from evaluations.configgen.selectors import evaluation_config, evaluation_round_trip
from evaluations.errors import EvaluationError
from evaluations.models import Evaluation


class Command(BaseCommand):
    help = (
        "Write the configuration generated from an evaluation's decision (node labels, device "
        "plugin, MIG, HAMi and Kueue files, each checked against its schema) under DIR."
    )

    def add_arguments(self, parser) -> None:
        parser.add_argument("evaluation_id", type=int)
        parser.add_argument("directory", type=Path)
        parser.add_argument(
            "--check",
            action="store_true",
            help="also print the round trip's findings: the cluster check of the cluster these "
            "files would give (docs/configgen.md, Round trip); exits non-zero on an error",
        )

    def handle(
        self, *args, evaluation_id: int, directory: Path, check: bool = False, **options
    ) -> None:
        evaluation = Evaluation.objects.filter(pk=evaluation_id).first()
        if evaluation is None:
            raise CommandError(f"no evaluation {evaluation_id}")
        try:
            files = evaluation_config(evaluation)
        except EvaluationError as exc:
            raise CommandError(exc.message) from exc
        root = directory.resolve()
        for file in files:
            target = (root / file.path).resolve()
            if not target.is_relative_to(root):  # names are DNS labels; never write outside
                raise CommandError(f"refused to write outside {root}: {file.path}")
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(file.content, encoding="utf-8")
            if file.kind == INSTALL_SCRIPT:
                target.chmod(0o755)
            self.stdout.write(f"{target.relative_to(root)} ({file.kind})")
        self.stdout.write(f"{len(files)} files written under {root}")
        if check:
            self._round_trip(evaluation)

    def _round_trip(self, evaluation: Evaluation) -> None:
        report = evaluation_round_trip(evaluation)
        for finding in report.findings:
            self.stdout.write(f"{finding.severity.upper()} {finding.code}: {finding.message}")
        errors = sum(1 for f in report.findings if f.severity == "error")
        summary = f"round trip: {errors} error(s), {len(report.findings)} finding(s)"
        if errors:
            raise CommandError(summary)
        self.stdout.write(summary)
