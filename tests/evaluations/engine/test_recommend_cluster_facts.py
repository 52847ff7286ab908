"""The recommender uses the profile's cluster facts: when each workload runs, how many tenants
and GPU nodes there are, and the GPUs' model and memory."""

from __future__ import annotations

import pytest

from catalog.engine.profile import Profile
from evaluations.engine.cluster_fit import _mig_capable
from evaluations.engine.recommend import recommend
from tests.factories import builtin_rows

SHARED_BY_DAY = {
    "workload_types": ["training", "online_inference"],
    "primary_objective": "p99_latency",
    "isolation": "soft",
    "tenancy": "multi",
    "priorities": ["cost"],
}
# Inference by day only: its GPUs stand idle at night, when training runs (issue 26: a time
# window is proposed only when it frees capacity).
NIGHT_TRAINING = {"training": "night", "online_inference": "business_hours"}


@pytest.fixture(scope="module")
def catalog():
    return list(builtin_rows(maintained_only=True).values())


def ranked(catalog, data: dict, limit: int = 5):
    return recommend(Profile.from_dict(data), catalog, limit=limit)


def test_training_at_night_shares_the_inference_pool_by_time_window(catalog):
    stacks = ranked(catalog, {**SHARED_BY_DAY, "time_windows": NIGHT_TRAINING}, limit=10)
    shared = [r for r in stacks if list(r.pools) == ["inference"] and r.shape == "B"]

    assert shared, [(r.shape, list(r.pools)) for r in stacks]
    best = shared[0]
    assert any(
        "training runs at night, when the online_inference pool (pool inference) stands idle" in fit
        and "no drain" in fit
        for fit in best.fits
    ), best.fits
    assert best.pool_details["inference"]["units"] == ["whole_gpu"]
    assert best.pool_details["inference"]["workloads"] == ["online_inference", "training"]
    assert any(
        "hand-over when the training window closes" in c
        for c in best.pool_details["inference"]["acceptance_checks"]
    )


def test_inference_that_runs_always_lends_no_gpus_at_night(catalog):
    """A pool serving around the clock is not idle at night: no time-window sharing is claimed."""
    windows = {"training": "night", "online_inference": "always"}

    stacks = ranked(catalog, {**SHARED_BY_DAY, "time_windows": windows}, limit=10)

    assert not any("time window" in fit for r in stacks for fit in r.fits)


def test_without_time_windows_training_keeps_a_pool_of_its_own(catalog):
    best = ranked(catalog, SHARED_BY_DAY)[0]

    assert best.shape == "C"
    assert not any("time window" in fit for fit in best.fits)


def test_training_and_inference_in_the_same_window_do_not_share_by_time(catalog):
    windows = {"training": "night", "online_inference": "night"}

    best = ranked(catalog, {**SHARED_BY_DAY, "time_windows": windows})[0]

    assert best.shape == "C"


def test_a_split_pool_for_night_training_is_said_to_stand_idle(catalog):
    split = next(
        r
        for r in ranked(catalog, {**SHARED_BY_DAY, "time_windows": NIGHT_TRAINING}, limit=40)
        if r.shape == "C"
    )

    assert "pool training stands idle the rest of the time" in split.explanation


def test_more_than_one_tenant_asks_for_quotas_though_tenancy_was_left_open(catalog):
    data = {"workload_types": ["online_inference"], "tenant_count": 3}

    best = ranked(catalog, data)[0]

    assert "capabilities: 3 tenants needs capability:quota: offered" in best.fits
    assert any(fit.startswith("3 tenants: ") for fit in best.fits)


def test_gpu_memory_sizes_the_mig_slices_in_the_reasons(catalog):
    data = {"workload_types": ["online_inference"], "isolation": "hard", "gpu_memory_gb": 80}

    reasons = [fit for r in ranked(catalog, data, limit=20) for fit in r.fits]

    assert any("smallest MIG slice (1g) holds about 10 GB" in fit for fit in reasons)


def test_a_gpu_model_outside_the_facts_gets_no_vendor_row_and_is_named(catalog):
    # Issue 38: an unknown accelerator never falls back to NVIDIA rows; the T4 is not in
    # catalog/data/facts/gpus.yaml, so nothing vendor-specific is guessed for it.
    data = {"workload_types": ["online_inference"], "isolation": "hard", "gpu_model": "Tesla T4"}

    ranking = recommend(Profile.from_dict(data), catalog, limit=20)

    assert ranking.unknown_models == ["Tesla T4"]
    assert not any(r.vendors for stack in ranking for r in catalog if r.id in stack.rows)
    assert any("Tesla T4 is not in EcoMap's GPU facts" in text for text in ranking.left_out)
    assert "nvidia-device-plugin/whole-gpu" in {item["row"] for item in ranking.left_out_rows}


def test_one_gpu_node_cannot_hold_split_pools(catalog):
    data = {**SHARED_BY_DAY, "node_count": 1}

    best = ranked(catalog, data)[0]

    assert best.shape != "C"


@pytest.mark.parametrize(
    ("model", "mig"),
    [("A100 80GB", True), ("NVIDIA H100 SXM", True), ("Tesla T4", False), ("L40S", False),
     ("RTX 4090", False), ("MI300X", False), ("Unknown X1", None), ("", None)],
)  # fmt: skip
def test_known_gpu_models_have_or_lack_mig(model, mig):
    assert _mig_capable(model) is mig


def test_the_recommend_command_takes_the_new_fields(catalog):
    from evaluations.engine.cli import recommend_json

    data = {**SHARED_BY_DAY, "time_windows": NIGHT_TRAINING, "node_count": 4, "gpu_model": "H100"}

    stacks = recommend_json(data, catalog, limit=3)["stacks"]

    assert {stack["shape"] for stack in stacks} >= {"B"}
    assert all("pool_details" in stack for stack in stacks)
