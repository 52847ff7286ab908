"""Compare every approved decision with the catalog now (what the drift job does per write)."""

from __future__ import annotations

from django.core.management.base import BaseCommand

from evaluations.drift import catalog_drift_check


class Command(BaseCommand):
    help = (
        "Check every approved or needs-re-review evaluation against the catalog: record what "
        "changed under its decision and flag those whose stack check got worse."
    )

    def handle(self, *args, **options):
        counts = catalog_drift_check()
        summary = ", ".join(f"{outcome} {count}" for outcome, count in sorted(counts.items()))
        self.stdout.write(f"catalog drift: {summary or 'no approved decisions'}")
