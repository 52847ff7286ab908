"""Check a stack for gaps, conflicts and missing layers; exits 1 when it has gaps or conflicts."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from catalog.engine.profile import Profile
from catalog.stacks import StackSpecError, stack_check


class Command(BaseCommand):
    help = (
        "Check a stack: SLUG (all its rows) or SLUG/ROW (or SLUG:ROW) items are cluster-wide; "
        "--pool NAME=SLUG[/ROW],... puts rows in a node pool. Exit status 1 when the stack has "
        "unmet requirements or conflicts inside a pool, so CI pipelines can gate on it."
    )

    def add_arguments(self, parser):
        parser.add_argument("members", nargs="*", metavar="SLUG[/ROW]")
        parser.add_argument("--pool", action="append", dest="pools", default=[],
                            metavar="NAME=SLUG[/ROW],...")  # fmt: skip
        parser.add_argument("--profile", type=Path, help="a step-1 profile JSON file")
        parser.add_argument("--json", action="store_true")

    def handle(self, *args, **options):
        if not options["members"] and not options["pools"]:
            raise CommandError("name at least one SLUG[/ROW] or --pool")
        profile = None
        if options["profile"]:
            try:
                profile = Profile.from_dict(json.loads(options["profile"].read_text()))
            except (OSError, ValueError) as exc:
                raise CommandError(f"invalid profile {options['profile']}: {exc}") from exc
        try:
            stack, report = stack_check(
                members=options["members"], pools=options["pools"], profile=profile
            )
        except StackSpecError as exc:
            raise CommandError(str(exc)) from exc
        if options["json"]:
            body = {
                "rows": [row.id for row in stack.rows],
                "pools": stack.pools,
                **report.to_dict(),
            }
            self.stdout.write(json.dumps(body, indent=2, ensure_ascii=False))
        else:
            self._print(stack, report)
        if not report.ok:
            sys.exit(1)

    def _print(self, stack, report) -> None:
        self.stdout.write("stack: " + ", ".join(row.id for row in stack.rows))
        for gap in report.gaps:
            self.stdout.write(f"GAP       {gap.row} requires {gap.pattern} (pool {gap.pool})")
        for conflict in report.conflicts:
            self.stdout.write(
                f"CONFLICT  {conflict.row_a} and {conflict.row_b} in pool {conflict.pool}: "
                + ", ".join(conflict.tokens)
            )
        for missing in report.missing_layers:
            self.stdout.write(f"MISSING   {missing.message}")
        for finding in report.fit:
            self.stdout.write(f"{finding.status.upper():<9} {finding.aspect}: {finding.message}")
        self.stdout.write("OK" if report.ok else "NOT OK: gaps or conflicts")
