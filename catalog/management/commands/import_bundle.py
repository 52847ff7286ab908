"""Import a bundle (JSON/YAML), a CSV file or a CNCF landscape.yml into the catalog."""

from __future__ import annotations

import json
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from catalog.engine.formats import FORMATS
from catalog.imports.services import ImportRejected, import_submit


class Command(BaseCommand):
    help = (
        "Import FILE (format detected from the content: ecomap.bundle/v1 JSON or YAML, CSV, or "
        "CNCF landscape.yml). All or nothing; --dry-run reports the changes and writes nothing."
    )

    def add_arguments(self, parser):
        parser.add_argument("file", type=Path)
        parser.add_argument("--dry-run", action="store_true")
        parser.add_argument(
            "--replace",
            action="store_true",
            help="each placement given is the whole row (default: merge, fields left out keep "
            "their stored values)",
        )
        parser.add_argument("--format", choices=FORMATS, default="")
        parser.add_argument("--source", default="", help="who supplied the data")
        parser.add_argument("--json", action="store_true", help="print the import job as JSON")

    def handle(self, *args, **options):
        path: Path = options["file"]
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise CommandError(f"cannot read {path}: {exc}") from exc
        content_type = "text/csv" if path.suffix.lower() == ".csv" else ""
        try:
            job = import_submit(
                text=text,
                source=options["source"] or path.name,
                dry_run=options["dry_run"],
                format_hint=options["format"],
                content_type=content_type,
                inline=True,
                mode="replace" if options["replace"] else "merge",
            )
        except ImportRejected as rejected:
            lines = []
            for error in rejected.job.errors:
                where = error.get("where") or error["path"]
                allowed = (
                    f" (allowed: {', '.join(error['allowed'])})" if error.get("allowed") else ""
                )
                lines.append(f"  {where}: {error['message']}{allowed}")
            raise CommandError(
                f"{path.name} was not imported; nothing was written:\n" + "\n".join(lines)
            ) from None
        if options["json"]:
            self.stdout.write(json.dumps(_job_dict(job), indent=2, default=str))
            return
        counts = job.counts
        changed = sum(counts[kind][action] for kind in counts for action in ("created", "updated"))
        verb = "would change" if job.dry_run else "changed"
        self.stdout.write(
            f"{path.name}: {job.get_format_display()}, {job.total} items; "
            f"projects {counts['projects']}, rows {counts['rows']}; {changed} {verb}"
            + (f"; {len(job.linked)} linked to existing catalog projects" if job.linked else "")
        )
        if job.dry_run:
            for change in job.changes[:200]:
                target = change["project"] + (f"/{change['row']}" if change["row"] else "")
                fields = ", ".join(change["changes"])
                self.stdout.write(f"  {change['action']} {target}: {fields}")


def _job_dict(job) -> dict:
    return {
        "id": str(job.id),
        "status": job.status,
        "format": job.format,
        "dry_run": job.dry_run,
        "items": job.total,
        "counts": job.counts,
        "linked": job.linked,
        "changes": job.changes,
    }
