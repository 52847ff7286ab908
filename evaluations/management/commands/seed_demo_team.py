"""`manage.py seed_demo_team USERNAME`: the demo's "Platform team" and a sample evaluation."""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError
from django.db import transaction

from evaluations import services
from evaluations.errors import EvaluationError
from evaluations.models import Evaluation, Role, Step, Team

TEAM_SLUG = "platform-team"
TITLE = "Shared GPU cluster for training and online inference"
PROFILE = {
    "workload_types": ["training", "online_inference", "interactive"],
    "primary_objective": "p99_latency",
    "p99_target_ms": 250,
    "jitter_tolerance": "low",
    "isolation": "soft",
    "failure_semantics": "incident",
    "tenancy": "multi",
    "priorities": ["isolation", "observability", "cost", "compatibility"],
}
UNITS = [
    {"unit": "mig_slice", "note": "Hard partitions for distributed training."},
    {"unit": "memory_compute_quota", "note": "Shared pool for inference and notebooks."},
]
CANDIDATES = [
    "hami/device-plugin",
    "nvidia-mig/mig-manager",
    "volcano/scheduler",
    "kueue/controller",
]


class Command(BaseCommand):
    help = "Create the demo team with USERNAME as admin and a sample evaluation (idempotent)."

    def add_arguments(self, parser):
        parser.add_argument("username", nargs="?", default="demo")

    @transaction.atomic
    def handle(self, *args, **options):
        user = get_user_model().objects.filter(username=options["username"]).first()
        if user is None:
            raise CommandError(f"no user {options['username']!r}; create it first (setup_demo)")
        team = Team.objects.filter(slug=TEAM_SLUG).first()
        if team is None:
            team = services.team_create(name="Platform team", slug=TEAM_SLUG, admin=user)
        else:
            services.membership_set(team=team, user=user, role=Role.ADMIN)
        if Evaluation.objects.filter(team=team, title=TITLE).exists():
            self.stdout.write(f"Team {team.name!r} and its sample evaluation already exist.")
            return
        evaluation = services.evaluation_create(actor=user, team=team, title=TITLE, profile=PROFILE)
        try:
            self._fill(evaluation, user)
        except EvaluationError as exc:
            # An incomplete catalog leaves the sample at step 1 rather than failing the demo.
            self.stderr.write(f"Sample evaluation left partly filled: {exc.message}")
        self.stdout.write(
            self.style.SUCCESS(
                f"Team {team.name!r} with {user.username} as admin; sample "
                f"evaluation #{evaluation.pk} {TITLE!r}."
            )
        )

    def _fill(self, evaluation: Evaluation, user) -> None:
        save = services.evaluation_step_save
        save(evaluation=evaluation, actor=user, step=Step.UNITS, data={"units": UNITS})
        candidates = [
            {"row": ref, "points_confirmed": True, "alternative_group": "A" if i < 2 else ""}
            for i, ref in enumerate(CANDIDATES)
        ]
        save(
            evaluation=evaluation, actor=user, step=Step.CANDIDATES, data={"candidates": candidates}
        )
