"""Print the compatibility matrix of the live catalog (or of some projects)."""

from __future__ import annotations

import json

from django.core.management.base import BaseCommand, CommandError

from catalog.engine.oracle import VERDICTS
from catalog.matrix.selectors import CellFilter, cells, live_result


class Command(BaseCommand):
    help = (
        "Pairwise verdicts of the catalog's placement rows. With --project (repeatable), only "
        "pairs whose two rows both belong to the named projects."
    )

    def add_arguments(self, parser):
        parser.add_argument("--project", action="append", dest="projects", default=[])
        parser.add_argument("--layer", action="append", dest="layers", default=[])
        parser.add_argument("--verdict", action="append", dest="verdicts", default=[],
                            choices=VERDICTS)  # fmt: skip
        parser.add_argument("--json", action="store_true", help="a JSON list of cells")

    def handle(self, *args, **options):
        result = live_result(projects=options["projects"] or None)
        known = {row.project for row in result.rows}
        missing = [slug for slug in options["projects"] if slug not in known]
        if missing:
            raise CommandError(f"no placed project(s) named {', '.join(missing)}")
        selection = CellFilter(layers=tuple(options["layers"]), verdicts=tuple(options["verdicts"]))
        found = cells(result, selection)
        if options["json"]:
            self.stdout.write(json.dumps(found, indent=2, ensure_ascii=False))
            return
        for cell in found:
            a, b = cell["a"], cell["b"]
            self.stdout.write(
                f"{a['project']}/{a['row']}  {cell['verdict']:>12}  {b['project']}/{b['row']}"
            )
            for reason in cell["reasons"]:
                self.stdout.write(f"    {reason}")
        self.stdout.write(f"{len(found)} pairs")
