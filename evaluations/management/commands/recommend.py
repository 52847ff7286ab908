"""`manage.py recommend PROFILE.json --json`: ranked candidate stacks for a step-1 profile."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from catalog.selectors import recommendable_rows
from evaluations.engine.cli import recommend_json


class Command(BaseCommand):
    help = "Rank stacks from the catalog for a step-1 profile (a JSON file, or - for stdin)."

    def add_arguments(self, parser):
        parser.add_argument("profile", help="path of a JSON file with the step-1 profile, or -")
        parser.add_argument("--json", action="store_true", help="print the stacks as JSON")
        parser.add_argument("--limit", type=int, default=5, help="how many stacks (default 5)")

    def handle(self, *args, **options):
        profile = self._read(options["profile"])
        try:
            ranked = recommend_json(profile, recommendable_rows(), options["limit"])
        except ValueError as exc:
            raise CommandError(f"invalid profile: {exc}") from exc
        if options["json"]:
            self.stdout.write(json.dumps(ranked, indent=2, ensure_ascii=False))
            if not ranked["complete"]:  # stdout stays one JSON document
                self.stderr.write(str(ranked["notes"][-1]))
            return
        for note in ranked["notes"]:
            self.stdout.write(str(note))
        if not ranked["stacks"]:
            self.stdout.write("No stack in the catalog passes the stack check for this profile.")
        for item in ranked["stacks"]:
            self.stdout.write(f"#{item['rank']} shape {item['shape']} score {item['score']}")
            for name, rows in item["pools"].items():
                self.stdout.write(f"  pool {name}: {', '.join(rows)}")
            if item["cluster_wide"]:
                self.stdout.write(f"  cluster-wide: {', '.join(item['cluster_wide'])}")
            for missing in item["missing"]:
                self.stdout.write(f"  missing: {missing}")

    def _read(self, source: str):
        try:
            text = sys.stdin.read() if source == "-" else Path(source).read_text(encoding="utf-8")
        except OSError as exc:
            raise CommandError(f"cannot read {source}: {exc.strerror or exc}") from exc
        try:
            return json.loads(text)
        except json.JSONDecodeError as exc:
            raise CommandError(f"invalid profile: {source} is not JSON ({exc})") from exc
