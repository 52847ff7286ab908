"""Evaluation test data: a cast of team members per role, a small catalog, filled-in evaluations.

Everything is built through the real services, so tests exercise the one path writes take.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from evaluations import services
from evaluations.decisions.services import evaluation_decide
from evaluations.models import Evaluation
from evaluations.review.services import evaluation_review, evaluation_submit
from evaluations.steps.services import evaluation_step_save
from evaluations.teams.choices import Role
from evaluations.teams.models import Team
from evaluations.teams.services import membership_set, team_create
from tests.factories import apply, bundle, make_user, placement, project


@dataclass
class Cast:
    """Platform team: alice admin, bob editor (writes the evaluations), carol reviewer, dave
    viewer. charlie is an editor of another team and sees none of Platform's work."""

    team: Team
    other_team: Team
    alice: Any
    bob: Any
    carol: Any
    dave: Any
    charlie: Any


def make_cast() -> Cast:
    alice = make_user("alice-admin")
    team = team_create(name="Platform", slug="platform", admin=alice)
    bob = make_user("bob-editor")
    carol = make_user("carol-reviewer")
    dave = make_user("dave-viewer")
    membership_set(team=team, user=bob, role=Role.EDITOR)
    membership_set(team=team, user=carol, role=Role.REVIEWER)
    membership_set(team=team, user=dave, role=Role.VIEWER)
    charlie = make_user("charlie-outsider")
    other_team = team_create(name="Research", slug="research", admin=charlie)
    return Cast(team, other_team, alice, bob, carol, dave, charlie)


def small_catalog() -> None:
    """Four projects over three layers: two data planes that compete, a control plane that
    composes with them, and a platform product."""
    apply(
        bundle(
            project(
                "hami",
                placement(
                    "device-plugin",
                    resource_units=["memory_compute_quota"],
                    enforcement_points=["runtime_interception"],
                    isolation={"memory": "hard", "compute": "soft", "fault": "none"},
                    provides=["resource:nvidia.com/gpumem", "signal:hami/vgpu_memory_used"],
                    signals=["signal:hami/vgpu_memory_used"],
                    exclusive=["owner:node/nvidia-gpu"],
                    non_promise="Does not decide who may use GPUs.",
                    failure_modes=["statically linked CUDA escapes the limits"],
                    costs={"performance": {"level": "low", "note": "interception"}},
                ),
                name="HAMi",
            ),
            project(
                "time-slicer",
                placement(
                    "plugin",
                    resource_units=["memory_compute_quota", "time_slice"],
                    enforcement_points=["driver_hardware"],
                    provides=["resource:nvidia.com/gpu"],
                    exclusive=["owner:node/nvidia-gpu"],
                    non_promise="No memory isolation.",
                ),
                name="Time Slicer",
            ),
            project(
                "volcano",
                placement(
                    "scheduler",
                    "control_plane",
                    resource_units=["whole_gpu", "memory_compute_quota"],
                    enforcement_points=["scheduler", "admission"],
                    provides=["capability:gang-scheduling", "capability:quota"],
                    accepts=["resource:*"],
                    non_promise="Never promises zero interference inside the node.",
                    failure_modes=["a queue without quota starves others"],
                ),
                name="Volcano",
            ),
            project(
                "gpustack",
                placement(
                    "platform",
                    "platform",
                    resource_units=["none"],
                    enforcement_points=["platform"],
                    non_promise="Relies on the layers below.",
                ),
                name="GPUStack",
            ),
        )
    )


MIXED_PROFILE = {
    "workload_types": ["training", "online_inference"],
    "primary_objective": "p99_latency",
    "p99_target_ms": 200,
    "jitter_tolerance": "low",
    "isolation": "soft",
    "failure_semantics": "incident",
    "tenancy": "multi",
    "priorities": ["isolation", "observability", "cost", "compatibility"],
}


def make_evaluation(cast: Cast, *, title: str = "GPU sharing for 2027", **kwargs) -> Evaluation:
    return services.evaluation_create(actor=cast.bob, team=cast.team, title=title, **kwargs)


def fill_steps(
    evaluation: Evaluation, actor, *, candidates: list[dict] | None = None
) -> Evaluation:
    """All four steps done and a decision, ready to submit (needs `small_catalog()`)."""
    save = evaluation_step_save
    save(evaluation=evaluation, actor=actor, step="profile", data=MIXED_PROFILE)
    save(
        evaluation=evaluation,
        actor=actor,
        step="units",
        data={"units": [{"unit": "memory_compute_quota", "note": "shared inference pool"}]},
    )
    save(
        evaluation=evaluation,
        actor=actor,
        step="candidates",
        data={
            "candidates": candidates
            or [
                {"row": "hami/device-plugin", "points_confirmed": True},
                {"row": "volcano/scheduler", "points_confirmed": True},
            ]
        },
    )
    evaluation = Evaluation.objects.get(pk=evaluation.pk)
    boundaries = [
        {"row": c.row.ref, "promise": c.boundary_promise, "non_promise": c.boundary_non_promise}
        for c in evaluation.candidates.select_related("row__project")
    ]
    save(evaluation=evaluation, actor=actor, step="boundaries", data={"boundaries": boundaries})
    evaluation_decide(
        evaluation=evaluation,
        actor=actor,
        rows=["hami/device-plugin", "volcano/scheduler"],
        rationale="HAMi shares, Volcano governs.",
    )
    return Evaluation.objects.get(pk=evaluation.pk)


def submitted(cast: Cast) -> Evaluation:
    evaluation = fill_steps(make_evaluation(cast), cast.bob)
    return evaluation_submit(evaluation=evaluation, actor=cast.bob)


def approved(cast: Cast) -> Evaluation:
    """Filled in by bob, submitted and approved by carol (a fresh instance, approval pinned)."""
    evaluation = submitted(cast)
    evaluation_review(evaluation=evaluation, actor=cast.carol, verdict="approve")
    return Evaluation.objects.get(pk=evaluation.pk)
