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


def step_two(client, cast, gpu_model: str = "", **profile) -> str:
    evaluation = make_evaluation(cast)
    data = {"gpu_model": gpu_model} if gpu_model else profile
    evaluation_step_save(evaluation=evaluation, actor=cast.bob, step="profile", data=data)
    client.force_login(cast.bob)
    response = client.get(reverse("evaluations:step", args=[evaluation.pk, 2]))
    assert response.status_code == 200
    return response.content.decode()


def facts_of(content: str, unit: str) -> str:
    """The "On your GPUs" facts of one unit's card."""
    card = content.split(f'name="units" value="{unit}"', 1)[1].split("</article>", 1)[0]
    return card.split('class="gpu-facts"', 1)[1].split("</dd>", 1)[0]


def test_the_mig_unit_lists_only_the_mig_profiles_of_the_gpu_model(client, cast):
    facts = facts_of(step_two(client, cast, "h100"), "mig_slice")

    assert "NVIDIA H100 80GB MIG profiles (GPU facts)" in facts
    assert "<code>1g.10gb</code>" in facts and "<code>7g.80gb</code>" in facts
    assert "1g.5gb" not in facts  # an A100 40GB profile
    assert "80 GB" in facts


def test_the_mig_unit_says_plainly_when_the_model_has_no_mig(client, cast):
    content = step_two(client, cast, "L40S")

    assert "NVIDIA L40S has no MIG: GPU facts." in facts_of(content, "mig_slice")
    assert "not an AMD GPU: AMD partitions do not apply" in facts_of(content, "amd_partition")


def test_the_amd_partition_unit_lists_an_amd_models_partition_modes_and_mig_does_not(client, cast):
    content = step_two(client, cast, "mi300x")
    facts = facts_of(content, "amd_partition")

    assert "AMD Instinct MI300X partitions (GPU facts)" in facts
    assert "<code>CPX</code>" in facts and "<code>NPS4</code>" in facts
    assert "AMD Instinct MI300X is not an NVIDIA GPU: MIG does not apply" in facts_of(
        content, "mig_slice"
    )


def test_partition_cards_speak_of_every_node_group(client, cast):
    content = step_two(
        client,
        cast,
        node_groups=[
            {"name": "a100", "gpu_model": "A100 40GB", "nodes": 6, "gpus_per_node": 4},
            {"name": "l4", "gpu_model": "L4", "nodes": 4, "gpus_per_node": 2},
        ],
    )
    facts = facts_of(content, "mig_slice")

    assert "Node group a100:" in facts and "<code>1g.5gb</code>" in facts
    assert "Node group l4:" in facts and "NVIDIA L4 has no MIG: GPU facts." in facts


def test_the_mig_unit_warns_when_the_model_is_not_in_the_gpu_facts(client, cast):
    content = step_two(client, cast, "Quadro 9000X")

    assert "Quadro 9000X is not in EcoMap's GPU facts" in content
