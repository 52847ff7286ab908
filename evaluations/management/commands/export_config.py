"""`export_config EVALUATION DIR`: write the configuration an evaluation's decision gives."""

from __future__ import annotations

from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from evaluations.configgen.selectors import evaluation_config
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

    def handle(self, *args, evaluation_id: int, directory: Path, **options) -> None:
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
            self.stdout.write(f"{target.relative_to(root)} ({file.kind})")
        self.stdout.write(f"{len(files)} files written under {root}")
