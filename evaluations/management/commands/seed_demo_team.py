"""`manage.py seed_demo_team USERNAME`: the demo's "Platform team" with two teammates, a sample
evaluation to fill in, two approved decisions (inference, METHOD's shape B; training, shape A)
and one waiting for USERNAME's review."""

from __future__ import annotations

from typing import TYPE_CHECKING

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError
from django.db import transaction

from evaluations import services
from evaluations.decisions.services import evaluation_decide
from evaluations.errors import EvaluationError
from evaluations.models import Evaluation, Step
from evaluations.review.services import evaluation_review, evaluation_submit
from evaluations.steps.services import evaluation_step_save
from evaluations.teams.choices import Role
from evaluations.teams.selectors import team_by_slug
from evaluations.teams.services import membership_set, team_create

if TYPE_CHECKING:
    from evaluations.teams.models import Team

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
    # The team's cluster, as in the other samples: MIG layouts are sized for this model.
    "gpu_model": "A100 80GB",
    "gpu_memory_gb": 80,
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
# Teammates who cannot sign in (no password): they wrote and reviewed the other evaluations, so
# the home page, the inbox and the ADR export have something to show.
TEAMMATES = [
    ("maria", "maria@example.org", Role.EDITOR),
    ("li.wei", "li.wei@example.cn", Role.REVIEWER),
]
INFERENCE = {
    "title": "Inference pool for the search team",
    "profile": {
        "workload_types": ["online_inference"],
        "primary_objective": "p99_latency",
        "p99_target_ms": 200,
        "jitter_tolerance": "low",
        "isolation": "soft",
        "failure_semantics": "degrade",
        "tenancy": "multi",
        "tenant_count": 12,
        "gpu_model": "A100 80GB",
        "gpu_memory_gb": 80,
        "priorities": ["isolation", "observability", "cost", "compatibility"],
    },
    "units": [{"unit": "memory_compute_quota", "note": "GPU memory by size per model replica."}],
    "candidates": [
        "nvidia-gpu-operator/clusterpolicy",
        "hami/device-plugin",
        "hami/scheduler-extender",
        "kueue/controller",
    ],
    "rationale": "The GPU Operator installs the driver and the container toolkit (its own device "
    "plugin turned off); HAMi shares each A100 by memory and cores and its scheduler extender "
    "places the slices; Kueue keeps the twelve tenants to their quotas and lends idle GPUs.",
    "risks": "Statically linked CUDA escapes HAMi's limits.\n"
    "A ClusterQueue that does not cover nvidia.com/gpumem leaves pods pending.",
    "checks": "P99 below 200 ms at peak load\nNo tenant above its quota for more than a minute",
}
# METHOD's shape A (offline training / batch first): whole GPUs, gang scheduling and a queue
# per research team.
TRAINING = {
    "title": "Training cluster for the research teams",
    "profile": {
        "workload_types": ["training", "batch"],
        "primary_objective": "throughput",
        "jitter_tolerance": "high",
        "isolation": "none",
        "failure_semantics": "degrade",
        "tenancy": "multi",
        "tenant_count": 4,
        "gpu_model": "A100 80GB",
        "gpu_memory_gb": 80,
        "node_count": 4,
        "priorities": ["cost", "compatibility", "observability", "isolation"],
    },
    "units": [{"unit": "whole_gpu", "note": "Distributed jobs want whole GPUs and NVLink."}],
    "candidates": [
        "nvidia-gpu-operator/clusterpolicy",
        "nvidia-device-plugin/whole-gpu",
        "dcgm-exporter/exporter",
        "volcano/scheduler",
    ],
    "rationale": "Whole GPUs from the device plugin the GPU Operator installs; Volcano starts a "
    "job's pods all or none (gang) and keeps each of the four research teams to its queue; DCGM "
    "metrics show how busy the GPUs are for capacity planning.",
    "risks": "A job that asks for more GPUs than its queue deserves waits until others finish.",
    "checks": "A 32-GPU job starts only when all its pods can\nGPU utilisation visible per team",
}
NOTEBOOKS = {
    "title": "Notebook sharing with time slicing",
    "profile": {
        "workload_types": ["interactive"],
        "primary_objective": "cost",
        "jitter_tolerance": "high",
        "isolation": "none",
        "failure_semantics": "degrade",
        "tenancy": "multi",
        "priorities": ["cost", "compatibility", "observability", "isolation"],
    },
    "units": [{"unit": "time_slice", "note": "Notebooks are idle most of the time."}],
    "candidates": ["nvidia-device-plugin/time-slicing", "kueue/controller"],
    "rationale": "Time slicing packs idle notebooks; Kueue caps each team.",
    "risks": "No memory isolation: one notebook can take a GPU's memory.",
    "checks": "A notebook starts in under a minute",
}


class Command(BaseCommand):
    help = "Create the demo team with USERNAME as admin and a sample evaluation (idempotent)."

    def add_arguments(self, parser):
        parser.add_argument("username", nargs="?", default="demo")

    @transaction.atomic
    def handle(self, *args, **options):
        user = get_user_model().objects.filter(username=options["username"]).first()
        if user is None:
            raise CommandError(f"no user {options['username']!r}; create it first (setup_demo)")
        team = team_by_slug(TEAM_SLUG)
        if team is None:
            team = team_create(name="Platform team", slug=TEAM_SLUG, admin=user)
        else:
            membership_set(team=team, user=user, role=Role.ADMIN)
        if Evaluation.objects.filter(team=team, title=TITLE).exists():
            self.stdout.write(f"Team {team.name!r} and its sample evaluation already exist.")
            return
        maria, li_wei = (self._teammate(team, *teammate) for teammate in TEAMMATES)
        evaluation = services.evaluation_create(actor=user, team=team, title=TITLE, profile=PROFILE)
        try:
            self._fill(evaluation, user)
            approved = self._decided(team, maria, INFERENCE)
            evaluation_review(evaluation=approved, actor=li_wei, verdict="approve")
            self._decided(team, maria, NOTEBOOKS)  # waiting for the demo user's review
            training = self._decided(team, maria, TRAINING)
            evaluation_review(evaluation=training, actor=li_wei, verdict="approve")
        except EvaluationError as exc:
            # An incomplete catalog leaves the samples partly filled rather than failing the demo.
            self.stderr.write(f"Sample evaluations left partly filled: {exc.message}")
        self.stdout.write(
            self.style.SUCCESS(
                f"Team {team.name!r} with {user.username} as admin; sample "
                f"evaluation #{evaluation.pk} {TITLE!r}."
            )
        )

    def _fill(self, evaluation: Evaluation, user) -> None:
        save = evaluation_step_save
        save(evaluation=evaluation, actor=user, step=Step.UNITS, data={"units": UNITS})
        candidates = [
            {"row": ref, "points_confirmed": True, "alternative_group": "A" if i < 2 else ""}
            for i, ref in enumerate(CANDIDATES)
        ]
        save(
            evaluation=evaluation, actor=user, step=Step.CANDIDATES, data={"candidates": candidates}
        )

    def _teammate(self, team: Team, username: str, email: str, role: str):
        user, created = get_user_model().objects.get_or_create(
            username=username, defaults={"email": email}
        )
        if created:
            user.set_unusable_password()
            user.save(update_fields=["password"])
        membership_set(team=team, user=user, role=role)
        return user

    def _decided(self, team: Team, author, sample: dict) -> Evaluation:
        """An evaluation of `sample` filled in, decided and submitted for review by `author`."""
        evaluation = services.evaluation_create(
            actor=author, team=team, title=sample["title"], profile=sample["profile"]
        )
        save = evaluation_step_save
        save(evaluation=evaluation, actor=author, step=Step.UNITS, data={"units": sample["units"]})
        candidates = [{"row": ref, "points_confirmed": True} for ref in sample["candidates"]]
        save(
            evaluation=evaluation,
            actor=author,
            step=Step.CANDIDATES,
            data={"candidates": candidates},
        )
        evaluation = Evaluation.objects.get(pk=evaluation.pk)
        boundaries = [
            {"row": c.row.ref, "promise": c.boundary_promise, "non_promise": c.boundary_non_promise}
            for c in evaluation.candidates.select_related("row__project")
        ]
        save(
            evaluation=evaluation,
            actor=author,
            step=Step.BOUNDARIES,
            data={"boundaries": boundaries},
        )
        evaluation_decide(
            evaluation=Evaluation.objects.get(pk=evaluation.pk),
            actor=author,
            rows=sample["candidates"],
            rationale=sample["rationale"],
            risks=sample["risks"],
            acceptance_checks=sample["checks"],
        )
        return evaluation_submit(evaluation=Evaluation.objects.get(pk=evaluation.pk), actor=author)
