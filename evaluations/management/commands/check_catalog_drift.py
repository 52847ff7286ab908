"""Compare every approved decision with the catalog now (what the drift job does per write)."""

from __future__ import annotations

from django.core.management.base import BaseCommand

from evaluations.decisions.drift import catalog_drift_check, decisions_pin_unpinned


class Command(BaseCommand):
    help = (
        "Check every approved or needs-re-review evaluation against the catalog: record what "
        "changed under its decision and flag those whose stack check got worse."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "--pin-unpinned",
            action="store_true",
            help="first pin, as of now, decisions approved before approvals were pinned "
            "(otherwise they are not watched)",
        )

    def handle(self, *args, **options):
        if options["pin_unpinned"]:
            self.stdout.write(f"pinned {decisions_pin_unpinned()} approved decisions as of now")
        counts = catalog_drift_check()
        summary = ", ".join(f"{outcome} {count}" for outcome, count in sorted(counts.items()))
        self.stdout.write(f"catalog drift: {summary or 'no approved decisions'}")
