"""The cross-reference sweep (issue 27): search each catalog project's repository for the other
projects' terms and write the review file; `--check` fails while a hit group is unresolved."""

from __future__ import annotations

from pathlib import Path

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from catalog.coverage import crossref

DATA = Path(settings.BASE_DIR) / "catalog" / "data"
CROSSREF = DATA / "crossref"
SWEEP_DATE = "2026-12-02"


class Command(BaseCommand):
    help = (
        "Search every catalog project's repository (local git mirrors) at its catalogued release "
        "for the other projects' names and identifiers; write the hit groups with their "
        "resolutions to the review file."
    )

    def add_arguments(self, parser):
        parser.add_argument("--mirrors", type=Path, default=Path("/work/.mirror"))
        parser.add_argument("--data", type=Path, default=DATA, help="catalog bundle folder")
        parser.add_argument("--terms", type=Path, default=CROSSREF / "terms.yaml")
        parser.add_argument("--decisions", type=Path, default=CROSSREF / "decisions.yaml")
        parser.add_argument("--output", type=Path, default=CROSSREF / "review.yaml")
        parser.add_argument("--date", default=SWEEP_DATE, help="date written into the review")
        parser.add_argument(
            "--check",
            action="store_true",
            help="write nothing; exit non-zero listing the hit groups without a resolution",
        )

    def handle(self, *args, **options):
        projects = crossref.load_projects(options["data"], options["terms"])
        result = crossref.sweep(projects, options["mirrors"])
        stale = crossref.merge(result.groups, crossref.load_decisions(options["decisions"]))
        for searched in result.searched:
            if not searched.searched:
                self.stderr.write(f"not searched: {searched.project} ({searched.note})")
        for decision in stale:
            self.stderr.write(
                "decision matching no hit group: "
                f"{decision.get('searched')} / {decision.get('other')} / {decision.get('term')}"
            )
        numbers = crossref.counts(result)
        self.stderr.write(", ".join(f"{key} {value}" for key, value in numbers.items()))
        if options["check"]:
            missing = crossref.unresolved(result.groups)
            for group in missing:
                self.stderr.write(
                    f"unresolved: {group.searched} / {group.other} / {group.term} "
                    f"({len(group.hits)} hits)"
                )
            if missing:
                raise CommandError(f"{len(missing)} hit groups have no resolution")
            return
        document = crossref.review_document(result, options["date"])
        options["output"].write_text(crossref.dump(document), encoding="utf-8")
        self.stderr.write(f"wrote {options['output']}")
