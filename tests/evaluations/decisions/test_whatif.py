"""What-if swaps on a decided stack (issue 20, point 4): the consequences before anything
changes, the known migration paths, and Adopt as a new draft revision."""

from __future__ import annotations

import pytest
from django.urls import reverse

from catalog.migration_paths import MigrationsInvalid, migration_paths, migration_paths_parse
from catalog.models import PlacementRow
from evaluations.decisions.services import evaluation_decide
from evaluations.decisions.whatif import evaluation_whatif_adopt, whatif_choices, whatif_for
from evaluations.errors import EditConflict, NotAllowed
from evaluations.models import Evaluation, State
from evaluations.review.services import evaluation_review, evaluation_submit
from evaluations.steps.services import evaluation_step_save
from tests.evaluations.factories import fill_steps, make_cast, make_evaluation

pytestmark = pytest.mark.django_db

DEVICE_PLUGIN = "nvidia-device-plugin/whole-gpu"
DRA_GPU = "nvidia-dra-driver-gpu/gpu-kubelet-plugin"
# Shape B in evaluations.engine.drafting: online inference first, one pool, multi-tenant.
SHAPE_B_PROFILE = {
    "workload_types": ["online_inference"],
    "primary_objective": "p99_latency",
    "p99_target_ms": 150,
    "jitter_tolerance": "low",
    "isolation": "soft",
    "failure_semantics": "incident",
    "tenancy": "multi",
    "priorities": ["isolation", "observability", "cost", "compatibility"],
}


@pytest.fixture
def cast(builtin_catalog):
    return make_cast()


def decided(cast, rows, pools=None, profile=SHAPE_B_PROFILE, kubernetes_version=None):
    evaluation = make_evaluation(cast)
    if kubernetes_version:
        profile = {**profile, "kubernetes_version": kubernetes_version}
    evaluation_step_save(evaluation=evaluation, actor=cast.bob, step="profile", data=profile)
    evaluation_decide(
        evaluation=Evaluation.objects.get(pk=evaluation.pk),
        actor=cast.bob,
        rows=rows,
        pools=pools,
        rationale="Chosen for the test.",
    )
    return Evaluation.objects.get(pk=evaluation.pk)


def test_device_plugin_to_dra_on_a_shape_b_stack_names_the_kubernetes_version(cast):
    evaluation = decided(cast, [DEVICE_PLUGIN, "kueue/controller"])

    result = whatif_for(evaluation, old=DEVICE_PLUGIN, new=DRA_GPU)

    assert result.kubernetes_version == "1.34"  # resource.k8s.io/v1: DRA on by default
    assert "DynamicResourceAllocation" in {need.feature for need in result.features}
    # The extended-resource bridge of the migration path needs DRAExtendedResource (1.36).
    assert result.path.key == "nvidia-device-plugin-to-dra"
    assert result.path_version == "1.36"
    assert {need.feature for need in result.path_features} == {"DRAExtendedResource"}


def test_device_plugin_to_dra_names_the_broken_contracts_and_the_bridge(cast):
    evaluation = decided(cast, [DEVICE_PLUGIN, "kueue/controller"])

    result = whatif_for(evaluation, old=DEVICE_PLUGIN, new=DRA_GPU)

    broken = {
        (link.provider, link.consumer, i): link for link in result.broken for i in link.interfaces
    }
    link = broken[(DEVICE_PLUGIN, "kueue/controller", "resource:nvidia.com/gpu")]
    bridge = result.path.steps[link.bridged_by - 1]
    assert bridge.feature == "DRAExtendedResource"
    assert "resource:nvidia.com/gpu" in bridge.restores
    # Kubernetes' own DRA rows come with the driver, and their contracts appear.
    assert result.added == ("kubernetes-dra/core-allocation", "kubernetes-dra/resource-api")
    appeared = {(link.provider, link.consumer) for link in result.appeared}
    assert ("kubernetes-dra/core-allocation", DRA_GPU) in appeared
    assert DEVICE_PLUGIN not in result.rows_after


def test_a_stated_kubernetes_version_says_which_gates_are_needed(cast):
    evaluation = decided(cast, [DEVICE_PLUGIN, "kueue/controller"], kubernetes_version="1.35")

    result = whatif_for(evaluation, old=DEVICE_PLUGIN, new=DRA_GPU)

    (bridge,) = result.path_features
    assert bridge.status == "needs_gate"
    assert bridge.stage_here == "alpha"
    assert "needs the gate" in bridge.message
    assert {need.status for need in result.features} == {"ok"}


def test_on_a_cluster_older_than_dra_the_swap_opens_a_gap_and_names_the_release(cast):
    evaluation = decided(cast, [DEVICE_PLUGIN, "kueue/controller"], kubernetes_version="1.33")

    result = whatif_for(evaluation, old=DEVICE_PLUGIN, new=DRA_GPU)

    (dra,) = [need for need in result.features if need.feature == "DynamicResourceAllocation"]
    assert dra.status == "needs_gate"  # beta but off by default in 1.33
    assert "1.34" in dra.message
    assert any("DynamicResourceAllocation" in problem for problem in result.new_problems)


def test_hami_to_mig_on_one_pool_leaves_the_other_pool_alone(cast):
    pools = {"shared": ["hami/device-plugin"], "isolated": ["hami/device-plugin"]}
    evaluation = decided(
        cast, ["hami/device-plugin", "hami/scheduler-extender", "kueue/controller"], pools
    )

    result = whatif_for(
        evaluation, old="hami/device-plugin", new="nvidia-device-plugin/mig-mixed", pool="isolated"
    )

    assert result.pools_after["shared"] == ("hami/device-plugin",)
    assert result.pools_after["isolated"] == (
        "nvidia-device-plugin/mig-mixed",
        "nvidia-mig/mig-manager",
    )
    assert result.path.key == "hami-to-mig-pool"
    # HAMi's contracts break in the MIG pool only.
    assert {link.pools for link in result.broken} == {("isolated",)}
    assert any("resource:nvidia.com/mig-1g.10gb" in link.interfaces for link in result.appeared)
    assert not [t for t in result.new_problems if "conflict" in t]


def test_volcano_to_kueue_shows_the_queue_migration_and_gang_difference(cast):
    evaluation = decided(cast, [DEVICE_PLUGIN, "volcano/scheduler"])

    result = whatif_for(evaluation, old="volcano/scheduler", new="kueue/controller")

    assert result.path.install == "in_place"
    assert any("PodGroup" in step.text for step in result.path.steps)
    assert any("waitForPodsReady" in step.text for step in result.path.steps)
    broken = {(link.provider, link.consumer) for link in result.broken}
    assert (DEVICE_PLUGIN, "volcano/scheduler") in broken
    appeared = {(link.provider, link.consumer) for link in result.appeared}
    assert (DEVICE_PLUGIN, "kueue/controller") in appeared


def test_replacements_are_rows_of_the_same_layer_doing_the_same_job(cast):
    evaluation = decided(cast, [DEVICE_PLUGIN, "kueue/controller"])

    (device, queue) = whatif_choices(evaluation)

    assert DRA_GPU in {row.id for row in device.suggested}
    assert "volcano/scheduler" in {row.id for row in queue.suggested}
    assert all(row.layer == "data_plane" for row in device.suggested + device.others)


def test_every_migration_path_names_catalog_rows_and_cites_each_step(cast):
    refs = {row.ref for row in PlacementRow.objects.select_related("project")}

    for path in migration_paths():
        assert path["to"] in refs
        assert all(ref in refs for ref in path["with"])
        assert all(step["evidence"] for step in path["steps"])


def test_a_migration_step_without_a_source_is_refused():
    text = """
format: ecomap.migrations/v1
paths:
- {key: a, from: x/y, to: x/z, install: in_place, title: T, steps: [{text: do it}]}
"""
    with pytest.raises(MigrationsInvalid, match="evidence"):
        migration_paths_parse(text)


def test_adopt_makes_the_swap_a_new_draft_revision_of_an_approved_evaluation(cast):
    evaluation = evaluation_submit(
        evaluation=fill_steps(make_evaluation(cast), cast.bob), actor=cast.bob
    )
    evaluation = evaluation_review(evaluation=evaluation, actor=cast.carol, verdict="approve")
    assert evaluation.state == State.APPROVED

    adopted = evaluation_whatif_adopt(
        evaluation=evaluation,
        actor=cast.bob,
        old="volcano/scheduler",
        new="kueue/controller",
        revision=evaluation.revision,
    )

    assert adopted.state == State.DRAFT
    assert adopted.revision > evaluation.revision
    assert adopted.decision.rows == ["hami/device-plugin", "kueue/controller"]
    assert adopted.decision.rationale == "HAMi shares, Volcano governs."
    assert "kueue/controller" in {
        c.row.ref for c in adopted.candidates.select_related("row__project")
    }


def test_adopt_refuses_a_viewer(cast):
    evaluation = decided(cast, [DEVICE_PLUGIN, "kueue/controller"])

    with pytest.raises(NotAllowed):
        evaluation_whatif_adopt(
            evaluation=evaluation, actor=cast.dave, old=DEVICE_PLUGIN, new=DRA_GPU
        )

    assert Evaluation.objects.get(pk=evaluation.pk).decision.rows == [
        DEVICE_PLUGIN,
        "kueue/controller",
    ]


def test_adopt_refuses_a_stale_revision(cast):
    evaluation = decided(cast, [DEVICE_PLUGIN, "kueue/controller"])
    seen = evaluation.revision
    evaluation_decide(
        evaluation=evaluation,
        actor=cast.alice,
        rows=[DEVICE_PLUGIN, "kueue/controller"],
        rationale="Alice rewrote it.",
    )

    with pytest.raises(EditConflict):
        evaluation_whatif_adopt(
            evaluation=evaluation, actor=cast.bob, old=DEVICE_PLUGIN, new=DRA_GPU, revision=seen
        )


def test_the_what_if_page_shows_the_swap_and_adopt_posts_it(cast, client):
    evaluation = decided(cast, [DEVICE_PLUGIN, "kueue/controller"])
    url = reverse("evaluations:what-if", args=[evaluation.pk])
    client.force_login(cast.bob)

    decision_page = client.get(reverse("evaluations:decision", args=[evaluation.pk]))
    page = client.get(url, {"row": DEVICE_PLUGIN, "to": DRA_GPU})

    assert url in decision_page.content.decode()
    body = page.content.decode()
    assert page.status_code == 200
    assert "The swap needs Kubernetes 1.34 or later" in body
    assert "resource:nvidia.com/gpu" in body
    assert "extended-resource bridge" in body
    assert "no longer provided after the swap, unless step 3 of the migration path" in body
    assert "NVIDIA device plugin for Kubernetes whole-gpu →" in body  # rows named, not keyed
    stale = client.post(
        url, {"row": DEVICE_PLUGIN, "to": DRA_GPU, "revision": evaluation.revision - 1}
    )
    assert stale.status_code in (302, 409)  # only someone else's newer save is a conflict
    evaluation.refresh_from_db()
    assert DRA_GPU in evaluation.decision.rows


def test_a_viewer_sees_the_what_if_but_cannot_adopt(cast, client):
    evaluation = decided(cast, [DEVICE_PLUGIN, "kueue/controller"])
    url = reverse("evaluations:what-if", args=[evaluation.pk])
    client.force_login(cast.dave)

    page = client.get(url, {"row": DEVICE_PLUGIN, "to": DRA_GPU})
    refused = client.post(url, {"row": DEVICE_PLUGIN, "to": DRA_GPU})

    assert page.status_code == 200
    assert "Adopt this swap" not in page.content.decode()
    assert refused.status_code == 403


def test_a_stale_adopt_from_the_page_answers_409(cast, client):
    evaluation = decided(cast, [DEVICE_PLUGIN, "kueue/controller"])
    seen = evaluation.revision
    evaluation_decide(
        evaluation=evaluation, actor=cast.alice, rows=[DEVICE_PLUGIN], rationale="Alice's."
    )
    client.force_login(cast.bob)

    response = client.post(
        reverse("evaluations:what-if", args=[evaluation.pk]),
        {"row": DEVICE_PLUGIN, "to": DRA_GPU, "revision": seen},
    )

    assert response.status_code == 409


def test_replacements_serve_only_the_vendor_of_the_gpu_model_step_1_names(cast):
    profile = {**SHAPE_B_PROFILE, "gpu_model": "h100"}
    evaluation = decided(cast, [DEVICE_PLUGIN, "kueue/controller"], profile=profile)

    choice = next(c for c in whatif_choices(evaluation) if c.row.id == DEVICE_PLUGIN)

    offered = {row.id for row in (*choice.suggested, *choice.others)}
    assert "amd-gpu-device-plugin/whole-gpu" not in offered
    assert "amd-gpu-device-plugin/whole-gpu" in {row.id for row in choice.other_vendor}
    assert DRA_GPU in offered


def test_without_a_known_gpu_model_every_vendor_may_replace_a_row(cast):
    evaluation = decided(cast, [DEVICE_PLUGIN, "kueue/controller"])

    choice = next(c for c in whatif_choices(evaluation) if c.row.id == DEVICE_PLUGIN)

    assert "amd-gpu-device-plugin/whole-gpu" in {row.id for row in choice.others + choice.suggested}
    assert choice.other_vendor == ()


def test_the_what_if_page_says_how_many_rows_serve_another_vendor(cast, client):
    profile = {**SHAPE_B_PROFILE, "gpu_model": "H100 80GB"}
    evaluation = decided(cast, [DEVICE_PLUGIN, "kueue/controller"], profile=profile)
    client.force_login(cast.bob)

    body = client.get(
        reverse("evaluations:what-if", args=[evaluation.pk]), {"row": DEVICE_PLUGIN}
    ).content.decode()

    assert "serve another vendor&#x27;s GPUs than H100 80GB (GPU facts)" in body or (
        "serve another vendor's GPUs than H100 80GB (GPU facts)" in body
    )
    assert 'value="amd-gpu-device-plugin/whole-gpu"' not in body
