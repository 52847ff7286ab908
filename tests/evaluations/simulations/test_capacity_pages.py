"""The capacity panel: a team member asks for a run on the recommendations page and sees each
stack's sized pools, the curves and the figures per tenant; step 1 without nodes is said."""

from __future__ import annotations

import pytest
from django.core.management import call_command
from django.urls import reverse

from evaluations.simulations.models import CapacityRun
from evaluations.steps.services import evaluation_step_save
from tests.evaluations.factories import make_cast, make_evaluation

# The review board: 24 nodes of 8 H100 and six tenants, inference needing hard
# isolation (MIG) beside training and notebooks.
BOARD_PROFILE = {
    "workload_types": ["training", "online_inference", "interactive"],
    "primary_objective": "throughput",
    "jitter_tolerance": "medium",
    "isolation": "hard",
    "failure_semantics": "incident",
    "tenancy": "multi",
    "tenant_count": 6,
    "priorities": ["isolation", "cost", "observability", "compatibility"],
    "gpu_model": "H100",
    "node_count": 24,
    "gpus_per_node": 8,
}


@pytest.fixture
def cast(db):
    call_command("load_catalog", verbosity=0)
    return make_cast()


@pytest.fixture
def run_capacity(client, django_capture_on_commit_callbacks):
    """POST the run button as `user`; the job runs on commit, eagerly as in every unit test."""

    def run(user, evaluation):
        client.force_login(user)
        with django_capture_on_commit_callbacks(execute=True):
            return client.post(
                reverse("capacity:request", args=[evaluation.pk]), {"back": "recommendations"}
            )

    return run


def test_a_viewer_can_size_the_pools_and_sees_them_on_the_recommendations_page(
    client, cast, run_capacity
):
    evaluation = make_evaluation(cast, profile=BOARD_PROFILE)

    response = run_capacity(cast.dave, evaluation)  # tasks run eagerly in tests

    assert response.status_code == 302
    assert response["Location"] == reverse("evaluations:recommendations", args=[evaluation.pk])
    run = CapacityRun.objects.get(evaluation=evaluation)
    assert run.status == CapacityRun.Status.SUCCEEDED, run.error
    page = client.get(response["Location"])
    content = page.content.decode()
    assert 'data-capacity-status="succeeded"' in content
    assert "24 nodes × 8 NVIDIA H100 80GB = 192 GPUs, 6 tenants." in content
    assert 'id="capacity-figure"' in content  # the figure's JSON, drawn by capacity.js
    assert "vendor/plotly/plotly.min.js" in content
    stacks = page.context["stacks"]
    assert all(stack["capacity"] is not None for stack in stacks)
    for stack in stacks:
        pools = stack["capacity"]["pools"]
        # Every node and every GPU of step 1 is in exactly one pool of each stack.
        assert sum(pool["nodes"] for pool in pools) == 24
        assert sum(pool["gpus"] for pool in pools) == 192
        # The six tenants' quotas share out each pool's GPUs, no more and no less.
        for pool in pools:
            assert sum(pool["quotas"].values()) == pool["gpus"]
        assert sum(t["quota"] for t in stack["capacity"]["per_tenant"].values()) == 192
    assert content.count("data-capacity-stack=") == len(stacks)


def test_asking_again_for_the_same_input_reuses_the_run(cast, run_capacity):
    evaluation = make_evaluation(cast, profile=BOARD_PROFILE)
    run_capacity(cast.bob, evaluation)
    run_capacity(cast.bob, evaluation)

    assert CapacityRun.objects.filter(evaluation=evaluation).count() == 1


def test_a_profile_without_nodes_says_what_to_answer_instead_of_a_button(
    client, cast, run_capacity
):
    profile = {key: value for key, value in BOARD_PROFILE.items() if key != "node_count"}
    evaluation = make_evaluation(cast, profile=profile)

    response = run_capacity(cast.bob, evaluation)
    page = client.get(response["Location"])

    content = page.content.decode()
    assert 'data-capacity-status="missing"' in content
    assert "Say how many GPU nodes there are in step 1 to size the pools." in content
    assert not CapacityRun.objects.filter(evaluation=evaluation).exists()


def test_an_outsider_cannot_run_another_teams_simulation(client, cast, run_capacity):
    evaluation = make_evaluation(cast, profile=BOARD_PROFILE)

    response = run_capacity(cast.charlie, evaluation)

    assert response.status_code == 404
    assert not CapacityRun.objects.exists()


def test_the_comparison_shows_each_rows_fragmentation_beside_isolation_and_cost(
    client, cast, run_capacity
):
    evaluation = make_evaluation(cast, profile=BOARD_PROFILE)
    evaluation_step_save(
        evaluation=evaluation,
        actor=cast.bob,
        step="candidates",
        data={
            "candidates": [
                {"row": "nvidia-device-plugin/mig-mixed"},
                {"row": "hami/dynamic-mig"},
                {"row": "hami/device-plugin"},
                {"row": "nvidia-device-plugin/whole-gpu"},
            ]
        },
    )
    comparison = reverse("evaluations:comparison", args=[evaluation.pk])
    client.force_login(cast.bob)
    before = client.get(comparison).content.decode()
    run_capacity(cast.bob, evaluation)

    page = client.get(comparison)

    assert "not simulated yet" in before
    units = CapacityRun.objects.get(evaluation=evaluation).result["units"]
    figures = {c.row.ref: c.capacity for c in page.context["candidates"]}
    # The rows that present MIG slices carry MIG's figure; HAMi's quota carries its own.
    assert figures["nvidia-device-plugin/mig-mixed"]["unit"] == "mig_slice"
    assert figures["hami/dynamic-mig"]["frag_at_100"] == units["mig_slice"]["frag_at_100"]
    assert figures["hami/device-plugin"]["unit"] == "memory_compute_quota"
    content = page.content.decode()
    assert 'data-fragmentation="nvidia-device-plugin/mig-mixed"' in content
    assert f"{units['mig_slice']['frag_at_100']:.1f} %</strong> fragmented" in content
    # Whole GPUs hold a GPU per task: more held than asked, so less of the work is placed.
    assert units["whole_gpu"]["alloc_at_100"] < units["memory_compute_quota"]["alloc_at_100"]
