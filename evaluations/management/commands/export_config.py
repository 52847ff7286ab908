"""`export_config EVALUATION DIR`: write the configuration an evaluation's decision gives;
`--tar FILE` writes it as the API's `config.tar.gz` instead (the same bytes)."""

from __future__ import annotations

from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from evaluations.configgen.selectors import evaluation_config, evaluation_config_archive
from evaluations.errors import EvaluationError
from evaluations.models import Evaluation


class Command(BaseCommand):
    help = (
        "Write the configuration generated from an evaluation's decision (node labels, device "
        "plugin, MIG, HAMi and Kueue files, each checked against its schema) under DIR, or as "
        "one .tar.gz with --tar FILE."
    )

    def add_arguments(self, parser) -> None:
        parser.add_argument("evaluation_id", type=int)
        parser.add_argument("directory", type=Path, nargs="?")
        parser.add_argument(
            "--tar",
            type=Path,
            metavar="FILE",
            help="write the archive GET /api/v1/evaluations/{id}/config.tar.gz serves to FILE",
        )

    def handle(self, *args, evaluation_id: int, directory: Path | None, **options) -> None:
        archive: Path | None = options["tar"]
        if (directory is None) == (archive is None):
            raise CommandError("give either DIR or --tar FILE")
        evaluation = Evaluation.objects.filter(pk=evaluation_id).first()
        if evaluation is None:
            raise CommandError(f"no evaluation {evaluation_id}")
        try:
            if archive is not None:
                body = evaluation_config_archive(evaluation)
            else:
                files = evaluation_config(evaluation)
        except EvaluationError as exc:
            findings = getattr(exc, "findings", [])
            raise CommandError("\n".join([exc.message, *(f"  - {f}" for f in findings)])) from exc
        if archive is not None:
            archive.write_bytes(body)
            self.stdout.write(f"{archive} written ({len(body)} bytes)")
            return
        root = directory.resolve()
        for file in files:
            target = (root / file.path).resolve()
            if not target.is_relative_to(root):  # names are DNS labels; never write outside
                raise CommandError(f"refused to write outside {root}: {file.path}")
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(file.content, encoding="utf-8")
            self.stdout.write(f"{target.relative_to(root)} ({file.kind})")
        self.stdout.write(f"{len(files)} files written under {root}")
