"""Export the catalog (or part of it) as an ecomap.bundle/v1 document."""

from __future__ import annotations

import sys
from pathlib import Path

from django.core.management.base import BaseCommand

from catalog.engine.bundle import BUNDLE_FORMAT
from catalog.engine.bundle_text import bundle_json_chunks, bundle_yaml_chunks
from catalog.selectors import bundle_export_projects


class Command(BaseCommand):
    help = "Write the catalog as an ecomap.bundle/v1 document to FILE (.json or .yaml) or stdout."

    def add_arguments(self, parser):
        parser.add_argument("file", nargs="?", type=Path)
        parser.add_argument("--project", action="append", dest="projects", help="project slug")
        parser.add_argument("--layer", default="")
        parser.add_argument("--tag", default="", help="tag slug")
        parser.add_argument("--yaml", action="store_true", help="YAML even on stdout")

    def handle(self, *args, **options):
        counted = 0

        def projects():
            nonlocal counted
            for project in bundle_export_projects(
                slugs=options["projects"], layer=options["layer"], tag=options["tag"]
            ):
                counted += 1
                yield project

        header = {"format": BUNDLE_FORMAT, "source": "EcoMap"}
        path: Path | None = options["file"]
        as_yaml = options["yaml"] or (path is not None and path.suffix in (".yaml", ".yml"))
        # Written a few hundred projects at a time (issue 41 H1), never as one document.
        if as_yaml:
            chunks = bundle_yaml_chunks(header, projects())
        else:
            chunks = bundle_json_chunks(header, projects(), indent=2)
        if path is None:
            for chunk in chunks:
                sys.stdout.write(chunk)
            if not as_yaml:
                sys.stdout.write("\n")
            return
        with path.open("w", encoding="utf-8") as out:
            for chunk in chunks:
                out.write(chunk)
            if not as_yaml:
                out.write("\n")
        self.stderr.write(f"wrote {counted} projects to {path}")
