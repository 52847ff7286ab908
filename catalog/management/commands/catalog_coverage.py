"""Print or write the catalog coverage report (docs/catalog.md)."""

from __future__ import annotations

from pathlib import Path

from django.core.management.base import BaseCommand
from django.utils import translation

from catalog.coverage.markdown import coverage_markdown
from catalog.coverage.selectors import catalog_coverage


class Command(BaseCommand):
    help = "Projects per layer and unit, rows lacking evidence, review dates, as Markdown."

    def add_arguments(self, parser):
        parser.add_argument("--markdown", type=Path, help="write to this file instead of stdout")

    def handle(self, *args, **options):
        with translation.override("en"):
            text = coverage_markdown(catalog_coverage())
        if options["markdown"]:
            options["markdown"].write_text(text, encoding="utf-8")
            self.stderr.write(f"wrote {options['markdown']}")
        else:
            self.stdout.write(text)
