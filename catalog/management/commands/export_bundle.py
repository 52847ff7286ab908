"""Export the catalog (or part of it) as an ecomap.bundle/v1 document."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import yaml
from django.core.management.base import BaseCommand

from catalog.selectors import bundle_export


class Command(BaseCommand):
    help = "Write the catalog as an ecomap.bundle/v1 document to FILE (.json or .yaml) or stdout."

    def add_arguments(self, parser):
        parser.add_argument("file", nargs="?", type=Path)
        parser.add_argument("--project", action="append", dest="projects", help="project slug")
        parser.add_argument("--layer", default="")
        parser.add_argument("--tag", default="", help="tag slug")
        parser.add_argument("--yaml", action="store_true", help="YAML even on stdout")

    def handle(self, *args, **options):
        document = bundle_export(
            slugs=options["projects"], layer=options["layer"], tag=options["tag"], source="EcoMap"
        )
        path: Path | None = options["file"]
        as_yaml = options["yaml"] or (path is not None and path.suffix in (".yaml", ".yml"))
        if as_yaml:
            text = yaml.safe_dump(document, allow_unicode=True, sort_keys=False)
        else:
            text = json.dumps(document, ensure_ascii=False, indent=2) + "\n"
        if path is None:
            sys.stdout.write(text)
            return
        path.write_text(text, encoding="utf-8")
        self.stderr.write(f"wrote {len(document['projects'])} projects to {path}")
