"""`manage.py recover_jobs`: send again or fail jobs whose message was lost or worker died."""

from __future__ import annotations

from django.core.management.base import BaseCommand

from evaluations.recovery import PENDING_GRACE, jobs_recover


class Command(BaseCommand):
    help = (
        "Re-publish jobs pending longer than 2 minutes, send again or fail running jobs whose "
        "heartbeat stopped (imports, matrix snapshots, reports, webhooks), send again the "
        "catalog-drift checks lost in the last day; print what was done."
    )

    def handle(self, *args, **options):
        done = jobs_recover()
        for kind, counts in done.items():
            said = ", ".join(f"{what} {n}" for what, n in counts.items())
            self.stdout.write(f"{kind}: {said}")
        total = sum(n for counts in done.values() for n in counts.values())
        self.stdout.write(
            f"{total} job(s) acted on (pending over {int(PENDING_GRACE.total_seconds())} s "
            "or running with a silent heartbeat)."
        )
