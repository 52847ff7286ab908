"""Load the built-in catalog (catalog/data/*.yaml) through the bundle import; idempotent."""

from __future__ import annotations

from pathlib import Path

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from catalog.engine.bundle import BundleInvalid
from catalog.imports.parsing import BundleParseError, merge_bundles, read_document
from catalog.models import PlacementRow
from catalog.services import bundle_apply, placement_row_delete

RETIRED_FILE = "retired-rows.txt"


def retired_rows(folder: Path) -> list[tuple[str, str, str]]:
    """(project, key, reason) of built-in rows an audit moved or removed."""
    path = folder / RETIRED_FILE
    if not path.exists():
        return []
    found = []
    for line in path.read_text(encoding="utf-8").splitlines():
        ref, _, reason = line.partition("#")
        ref = ref.strip()
        if ref:
            project, _, key = ref.partition("/")
            found.append((project, key, reason.strip()))
    return found


class Command(BaseCommand):
    help = (
        "Load the built-in catalog of GPU-on-Kubernetes projects. Running it again changes nothing."
    )

    def add_arguments(self, parser):
        parser.add_argument("--dir", type=Path, default=None, help="folder of bundle files")
        parser.add_argument("--dry-run", action="store_true", help="report, write nothing")

    def handle(self, *args, **options):
        folder: Path = options["dir"] or Path(settings.CATALOG_DATA_DIR)
        files = sorted(folder.glob("*.yaml")) + sorted(folder.glob("*.json"))
        if not files:
            raise CommandError(f"no bundle files in {folder}")
        documents = []
        for path in files:
            try:
                documents.append(read_document(path))
            except BundleParseError as exc:
                raise CommandError(f"{path.name}: {exc}") from exc
        bundle = merge_bundles(documents, source="EcoMap built-in catalog")
        try:
            result = bundle_apply(
                document=bundle, source="load_catalog", dry_run=options["dry_run"]
            )
        except BundleInvalid as exc:
            # Point at the file, not just the merged index.
            offsets = []
            for path, document in zip(files, documents, strict=True):
                offsets.extend((path.name, i) for i in range(len(document.get("projects", []))))
            lines = []
            for error in exc.errors:
                text = error.path
                if text.startswith("projects["):
                    index = int(text[len("projects[") : text.index("]")])
                    if index < len(offsets):
                        name, local = offsets[index]
                        text = f"{name}: projects[{local}]" + text[text.index("]") + 1 :]
                allowed = f" (allowed: {', '.join(error.allowed)})" if error.allowed else ""
                lines.append(f"  {text}: {error.message}{allowed}")
            raise CommandError("the built-in catalog is invalid:\n" + "\n".join(lines)) from exc
        retired = self._retire(folder, dry_run=options["dry_run"])
        counts = result.counts()
        verb = "would change" if options["dry_run"] else "changed"
        self.stdout.write(
            f"{len(files)} files: projects {counts['projects']}, rows {counts['rows']}; "
            f"{result.changed + retired} items {verb}"
        )

    def _retire(self, folder: Path, *, dry_run: bool) -> int:
        """Delete built-in rows listed as retired that this database still has (history kept)."""
        retired = 0
        for project, key, reason in retired_rows(folder):
            row = PlacementRow.objects.filter(project__slug=project, key=key).first()
            if row is None:
                continue
            retired += 1
            self.stdout.write(f"retired {project}/{key}: {reason}")
            if not dry_run:
                placement_row_delete(row=row, source=f"load_catalog: retired ({reason})"[:200])
        return retired
