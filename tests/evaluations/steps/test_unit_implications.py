"""Step 2: each unit's isolation ceiling is what that unit gives in the rows presenting it (never
a row's stronger unit lent to a weaker one), and the MIG unit says what step 1's GPU model
offers: its MIG profiles, its partition modes, or plainly that it has none."""

from __future__ import annotations

import pytest
from django.urls import reverse

from evaluations.selectors import unit_implications
from evaluations.steps.services import evaluation_step_save
from tests.evaluations.factories import make_cast, make_evaluation
from tests.factories import apply, bundle, placement, project

pytestmark = pytest.mark.django_db

HARD = {"memory": "hard", "compute": "hard", "fault": "hard"}


def ceilings() -> dict[str, dict[str, str]]:
    return {item.unit.key: item.isolation_ceiling for item in unit_implications()}


def test_a_time_slice_has_no_memory_isolation_beside_a_quota_with_hard_memory(db):
    apply(
        bundle(
            project(
                "sharer",
                placement(
                    "both",
                    resource_units=["time_slice", "memory_compute_quota"],
                    enforcement_points=["runtime_interception"],
                    isolation={"memory": "hard", "compute": "soft", "fault": "none"},
                ),
            )
        )
    )

    units = ceilings()

    assert units["time_slice"] == {"memory": "none", "compute": "soft", "fault": "none"}
    assert units["memory_compute_quota"] == {"memory": "hard", "compute": "soft", "fault": "none"}


def test_a_unit_takes_the_best_of_its_rows_each_within_the_unit_ceiling(db):
    apply(
        bundle(
            project(
                "weak",
                placement(
                    "mps",
                    resource_units=["mps_share"],
                    enforcement_points=["driver_hardware"],
                    isolation={"memory": "none", "compute": "soft", "fault": "none"},
                ),
            ),
            project(
                "strong",
                placement(
                    "mps-and-mig",
                    resource_units=["mps_share", "mig_slice"],
                    enforcement_points=["driver_hardware"],
                    isolation=HARD,
                ),
            ),
        )
    )

    units = ceilings()

    # MPS limits memory and SMs per client but one server's fault reaches every client.
    assert units["mps_share"] == {"memory": "soft", "compute": "soft", "fault": "none"}
    assert units["mig_slice"] == HARD


def test_rows_outside_the_data_plane_set_no_ceiling(db):
    apply(
        bundle(
            project(
                "queue",
                placement(
                    "controller",
                    layer="control_plane",
                    resource_units=["whole_gpu"],
                    isolation=HARD,
                ),
            )
        )
    )

    assert ceilings()["whole_gpu"] == {"memory": "none", "compute": "none", "fault": "none"}


@pytest.fixture
def cast(db):
    return make_cast()


def step_two(client, cast, gpu_model: str) -> str:
    evaluation = make_evaluation(cast)
    evaluation_step_save(
        evaluation=evaluation, actor=cast.bob, step="profile", data={"gpu_model": gpu_model}
    )
    client.force_login(cast.bob)
    response = client.get(reverse("evaluations:step", args=[evaluation.pk, 2]))
    assert response.status_code == 200
    return response.content.decode()


def test_the_mig_unit_lists_only_the_mig_profiles_of_the_gpu_model(client, cast):
    content = step_two(client, cast, "h100")

    facts = content.split('class="gpu-facts"', 1)[1].split("</dd>", 1)[0]
    assert "NVIDIA H100 80GB MIG profiles (GPU facts)" in facts
    assert "<code>1g.10gb</code>" in facts and "<code>7g.80gb</code>" in facts
    assert "1g.5gb" not in facts  # an A100 40GB profile
    assert "80 GB" in facts


def test_the_mig_unit_says_plainly_when_the_model_has_no_mig(client, cast):
    content = step_two(client, cast, "L40S")

    assert "NVIDIA L40S has no MIG: GPU facts." in content


def test_the_mig_unit_lists_an_amd_models_partition_modes(client, cast):
    facts = step_two(client, cast, "mi300x").split('class="gpu-facts"', 1)[1].split("</dd>", 1)[0]

    assert "AMD Instinct MI300X partitions (GPU facts)" in facts
    assert "<code>CPX</code>" in facts and "<code>NPS4</code>" in facts


def test_the_mig_unit_warns_when_the_model_is_not_in_the_gpu_facts(client, cast):
    content = step_two(client, cast, "Quadro 9000X")

    assert "Quadro 9000X is not in EcoMap's GPU facts" in content
