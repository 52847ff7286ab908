"""`manage.py simulate --nodes NODES.csv --pods PODS.csv --policy P [--inflation 1.3] [--seed N]
[--json]`: replay a GPU trace (the Alibaba openb CSV formats) with one scheduling policy and print
the GPU allocation and fragmentation it reaches (issue 29, the FGD paper's experiment).
"""

from __future__ import annotations

import json

from django.core.management.base import BaseCommand, CommandError

from evaluations.capacity import POLICIES, UNITS, CapacityError, simulate
from evaluations.capacity.engine.openb import MAX_LINES, read_nodes, read_tasks


class Command(BaseCommand):
    help = (
        "Replay a GPU workload trace (openb CSV) on its nodes with one scheduling policy; "
        f"prints GPU allocation and fragmentation per arrived demand. At most {MAX_LINES:,} "
        "lines per file."
    )

    def add_arguments(self, parser):
        parser.add_argument("--nodes", required=True, help="node list CSV (sn,cpu_milli,…)")
        parser.add_argument("--pods", required=True, help="task list CSV (name,cpu_milli,…)")
        parser.add_argument("--policy", required=True, choices=POLICIES)
        parser.add_argument(
            "--inflation",
            type=float,
            default=None,
            help="tune the GPU demand to this multiple of the GPU capacity (the paper: 1.3)",
        )
        parser.add_argument("--seed", type=int, default=0)
        parser.add_argument(
            "--unit", default="share", choices=(*UNITS, "share"), help="data-plane unit"
        )
        parser.add_argument("--replicas", type=int, default=1, help="time_slice / mps_share")
        parser.add_argument(
            "--departures",
            action="store_true",
            help="replay in creation_time order and let tasks leave at deletion_time "
            "(the paper's experiment has no departures)",
        )
        parser.add_argument("--json", action="store_true", help="print the result as JSON")

    def handle(self, *args, **options):
        try:
            nodes = read_nodes(options["nodes"])
            tasks = read_tasks(options["pods"], known_models={n.gpu_model for n in nodes})
            result = simulate(
                nodes,
                tasks,
                options["policy"],
                seed=options["seed"],
                inflation=options["inflation"],
                unit=options["unit"],
                replicas=options["replicas"],
                order="arrival" if options["departures"] else "shuffle",
                departures=options["departures"],
            )
        except CapacityError as error:
            raise CommandError(str(error)) from error
        if options["json"]:
            self.stdout.write(json.dumps(result.as_dict()))
            return
        at = result.value_at
        self.stdout.write(
            f"policy={result.policy} unit={result.unit} seed={result.seed} "
            f"gpus={result.total_gpus} tasks={result.tasks} "
            f"alloc_at_100={at(100)} frag_at_100={at(100, 'frag')} "
            f"alloc_end={result.alloc_pct} frag_end={result.frag_pct} "
            f"unscheduled={result.unscheduled} seconds={result.seconds}"
        )
