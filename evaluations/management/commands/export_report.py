"""`export_report EVALUATION_ID FILE`: build an evaluation's PDF report in-process and write it."""

from __future__ import annotations

import shutil
from pathlib import Path

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from evaluations.models import Evaluation
from evaluations.reports.services import report_build, report_create, report_fail


class Command(BaseCommand):
    help = (
        "Build the PDF review report of an evaluation (the same build a Celery job runs; it is "
        "also stored, so the evaluation page lists it) and write it to FILE."
    )

    def add_arguments(self, parser) -> None:
        parser.add_argument("evaluation_id", type=int)
        parser.add_argument("file", type=Path)
        parser.add_argument(
            "--language",
            default=settings.LANGUAGE_CODE,
            choices=[code for code, _name in settings.LANGUAGES],
            help="language of the report's headings (default: %(default)s)",
        )

    def handle(self, *args, evaluation_id: int, file: Path, language: str, **options) -> None:
        evaluation = Evaluation.objects.filter(pk=evaluation_id).first()
        if evaluation is None:
            raise CommandError(f"no evaluation {evaluation_id}")
        report = report_create(evaluation=evaluation, language=language)
        try:
            report_build(report_id=report.pk)
        except Exception as exc:
            report_fail(report_id=report.pk, error=repr(exc))
            raise CommandError(f"the report could not be built: {exc}") from exc
        report.refresh_from_db()
        file.parent.mkdir(parents=True, exist_ok=True)
        with report.file.open("rb") as source, file.open("wb") as target:
            shutil.copyfileobj(source, target)
        self.stdout.write(
            f"{file}: {report.pages} pages in {report.seconds:.2f} s "
            f"(evaluation revision {report.evaluation_revision}, "
            f"catalog revision {report.catalog_revision})"
        )
