"""Recommended stacks for a step-1 profile, ranked against the built-in catalog."""

from __future__ import annotations

import json
import random

import pytest
from hypothesis import HealthCheck, given
from hypothesis import settings as hypothesis_settings
from hypothesis import strategies as st

from catalog.engine.profile import (
    ISOLATION_REQUIREMENTS,
    JITTER_TOLERANCES,
    PRIMARY_OBJECTIVES,
    PRIORITIES,
    TENANCIES,
    WORKLOAD_TYPES,
    Profile,
)
from catalog.engine.rows import Row
from evaluations.engine.cli import recommend_json
from evaluations.engine.recommend import (
    INFERENCE_POOL,
    INTERACTIVE_POOL,
    TRAINING_POOL,
    Recommendation,
    recommend,
)
from tests.factories import builtin_rows

TRAINING_FIRST = {
    "workload_types": ["training", "batch"],
    "primary_objective": "throughput",
    "isolation": "hard",
    "tenancy": "multi",
}
INFERENCE_FIRST = {
    "workload_types": ["online_inference"],
    "primary_objective": "p99_latency",
    "p99_target_ms": 50,
    "jitter_tolerance": "low",
    "isolation": "soft",
    "tenancy": "multi",
}
MIXED = {
    "workload_types": ["training", "online_inference", "interactive"],
    "tenancy": "multi",
    "isolation": "hard",
}


def load_builtin_catalog() -> list[Row]:
    """The built-in rows a recommendation may use (as catalog.selectors.recommendable_rows)."""
    return list(builtin_rows(maintained_only=True).values())


@pytest.fixture(scope="module")
def catalog() -> list[Row]:
    return load_builtin_catalog()


@pytest.fixture(scope="module")
def ranked(catalog: list[Row]) -> dict[str, list[Recommendation]]:
    """Each of the three typical profiles, ranked once for the whole module."""
    return {
        name: recommend(Profile.from_dict(profile), catalog, limit=10)
        for name, profile in (
            ("training", TRAINING_FIRST),
            ("inference", INFERENCE_FIRST),
            ("mixed", MIXED),
        )
    }


def is_mig_data_plane(ids: list[str]) -> bool:
    return any(i.startswith("nvidia-mig/") for i in ids) and any(
        i.startswith("nvidia-device-plugin/mig-") for i in ids
    )


def test_a_training_first_profile_trains_on_whole_gpus_under_a_gang_scheduler(ranked, catalog):
    """Issue 26: training wants whole GPUs (MIG has no GPU-to-GPU P2P: NVIDIA MIG user guide,
    deployment considerations), and gang scheduling for distributed jobs."""
    by_id = {r.id: r for r in catalog}
    for recommendation in ranked["training"][:3]:
        for pool in recommendation.pool_details.values():
            assert set(pool["units"]) <= {"whole_gpu", "dra_claim"}, recommendation.pool_details
        assert any("gang" in by_id[i].functions for i in recommendation.rows), recommendation.rows


def test_a_multi_tenant_inference_profile_ranks_hami_with_kueue_in_its_top_three(ranked):
    top = ranked["inference"][:3]

    assert any("hami/device-plugin" in r.rows and "kueue/controller" in r.rows for r in top), [
        r.rows for r in top
    ]


def test_a_mixed_hard_profile_never_shares_a_soft_pool_between_tenants(ranked):
    """Issue 26: tenants demanding hard isolation share a GPU only through MIG; notebooks go to
    MIG slices or to a pool of their own tenant."""
    for recommendation in ranked["mixed"]:
        for name, pool in recommendation.pool_details.items():
            if pool["tenant_sharing"] == "across_tenants":
                assert pool["isolation"] == {
                    "memory": "hard",
                    "compute": "hard",
                    "fault": "hard",
                }, (name, pool)
    best = ranked["mixed"][0]
    assert best.shape == "C"
    assert is_mig_data_plane(best.pools[INTERACTIVE_POOL]) or (
        best.pool_details[INTERACTIVE_POOL]["tenant_sharing"] == "within_tenant"
    )


def test_the_three_typical_profiles_get_the_three_typical_shapes(ranked):
    assert ranked["training"][0].shape == "A"
    assert ranked["inference"][0].shape == "B"
    assert ranked["mixed"][0].shape == "C"


@pytest.mark.parametrize("name", ["training", "inference", "mixed"])
def test_every_recommended_stack_has_no_gaps_and_no_conflicts(ranked, name):
    for recommendation in ranked[name]:
        assert recommendation.report.ok, recommendation.report.to_dict()


@pytest.mark.parametrize("name", ["training", "inference", "mixed"])
def test_no_two_rows_that_meet_on_a_pool_share_an_exclusive_token(ranked, catalog, name):
    by_id = {r.id: r for r in catalog}
    for recommendation in ranked[name]:
        for members in recommendation.pools.values():
            present = [by_id[i] for i in members + recommendation.cluster_wide]
            for i, a in enumerate(present):
                for b in present[i + 1 :]:
                    assert not a.exclusive & b.exclusive, (a.id, b.id)


@pytest.mark.parametrize("name", ["training", "inference", "mixed"])
def test_recommendations_are_ranked_from_one_by_falling_score_in_and_after_the_top_three(
    ranked, name
):
    """The first three are the alternatives (the best of each shape first), each part ranked by
    falling score."""
    recommendations = ranked[name]

    assert [r.rank for r in recommendations] == list(range(1, len(recommendations) + 1))
    for part in (recommendations[:3], recommendations[3:]):
        scores = [r.score for r in part]
        assert scores == sorted(scores, reverse=True)


def test_every_row_of_a_stack_is_in_a_pool_or_cluster_wide(ranked):
    for recommendation in ranked["mixed"]:
        placed = {i for ids in recommendation.pools.values() for i in ids}
        placed |= set(recommendation.cluster_wide)
        assert placed == set(recommendation.rows)
        assert not placed & set(recommendation.cluster_wide) - set(recommendation.cluster_wide)


def test_a_short_list_is_the_head_of_a_long_one(catalog):
    profile = Profile.from_dict(MIXED)

    short = recommend(profile, catalog, limit=3)
    long = recommend(profile, catalog, limit=15)

    assert [r.to_dict() for r in short] == [r.to_dict() for r in long[:3]]


def test_the_ranking_does_not_depend_on_the_catalog_order(catalog):
    shuffled = list(catalog)
    random.Random(7).shuffle(shuffled)
    profile = Profile.from_dict(TRAINING_FIRST)

    assert [r.to_dict() for r in recommend(profile, shuffled)] == [
        r.to_dict() for r in recommend(profile, catalog)
    ]


def test_rows_added_to_close_requires_say_what_they_close(ranked):
    best = ranked["inference"][0]

    assert "nvidia-gpu-operator/clusterpolicy" in best.cluster_wide
    assert "capability:nvidia-driver" in best.explanation


def test_a_single_tenant_inference_profile_needs_no_control_plane(catalog):
    profile = Profile.from_dict({"workload_types": ["online_inference"], "tenancy": "single"})

    best = recommend(profile, catalog, limit=1)[0]

    layers = {r.id: r.layer for r in catalog}
    assert "control_plane" not in {layers[i] for i in best.rows}
    assert best.report.missing_layers == ()


def test_a_stack_whose_requires_no_catalog_row_provides_is_never_recommended():
    plugin = Row.create(
        "vendor",
        "device-plugin",
        "data_plane",
        resource_units={"whole_gpu"},
        provides={"resource:vendor.com/gpu"},
        requires={"capability:vendor-driver"},
        isolation={"memory": "hard", "compute": "hard", "fault": "hard"},
    )

    assert recommend(Profile(workload_types=("online_inference",)), [plugin]) == []


def test_shape_a_is_accepted_on_throughput_wait_time_and_preemption(ranked):
    checks = " ".join(ranked["training"][0].acceptance_checks)

    for words in ("throughput", "wait time", "preemption"):
        assert words in checks


def test_shape_b_is_accepted_on_p99_jitter_blast_radius_and_rollback(ranked):
    checks = " ".join(ranked["inference"][0].acceptance_checks)

    for words in ("P99 latency against the 50 ms target", "jitter", "blast radius", "rollback"):
        assert words in checks


def test_shape_c_is_accepted_per_pool_and_on_self_service_audit_and_cost(ranked):
    best = ranked["mixed"][0]
    checks = best.acceptance_checks

    assert any(c.startswith(f"pool {TRAINING_POOL}: throughput") for c in checks)
    assert any(c.startswith(f"pool {INFERENCE_POOL}: P99") for c in checks)
    for words in ("self-service", "audit", "cost visibility"):
        assert any(words in c for c in checks)
    # Each check also sits on the pool it tests: P99 on the pool serving online inference.
    assert any("P99" in c for c in best.pool_details[INFERENCE_POOL]["acceptance_checks"])
    assert not any("P99" in c for c in best.pool_details[INTERACTIVE_POOL]["acceptance_checks"])


def test_fits_and_missing_are_said_in_words(ranked):
    best = ranked["training"][0]

    assert any("gives whole GPU (" in fit for fit in best.fits), best.fits
    assert all(isinstance(line, str) and line for line in best.fits + best.missing)


def test_a_recommendation_serialises_to_json(ranked):
    data = json.loads(json.dumps(ranked["mixed"][0].to_dict()))

    assert data["rank"] == 1
    assert data["shape"] == "C"
    assert data["report"]["ok"] is True
    assert set(data["pools"]) == {TRAINING_POOL, INFERENCE_POOL, INTERACTIVE_POOL}
    assert set(data["pool_details"]) == set(data["pools"])
    training = data["pool_details"][TRAINING_POOL]
    assert training["units"] == ["whole_gpu"]
    assert training["tenant_sharing"] == "none"
    assert training["workloads"] == ["training"]
    assert set(training["isolation"]) == {"memory", "compute", "fault"}
    assert data["trade_off"]


def test_recommend_json_validates_the_profile_and_returns_ranked_dicts(catalog):
    data = recommend_json(INFERENCE_FIRST, catalog, limit=2)

    assert [d["rank"] for d in data["stacks"]] == [1, 2]
    assert set(data) >= {"stacks", "left_out", "unknown_models"}
    json.dumps(data)


def test_recommend_json_passes_on_the_profile_error_message(catalog):
    with pytest.raises(ValueError, match="unknown profile field"):
        recommend_json({"gpu_count": 8}, catalog, limit=2)
    with pytest.raises(ValueError, match="tenancy: 'many' is not allowed"):
        recommend_json({"tenancy": "many"}, catalog, limit=2)


def test_recommend_json_refuses_a_limit_below_one(catalog):
    with pytest.raises(ValueError, match="limit"):
        recommend_json(TRAINING_FIRST, catalog, limit=0)


profiles = st.builds(
    Profile,
    workload_types=st.lists(st.sampled_from(WORKLOAD_TYPES), unique=True).map(tuple),
    primary_objective=st.none() | st.sampled_from(PRIMARY_OBJECTIVES),
    p99_target_ms=st.none() | st.floats(min_value=1, max_value=1000),
    jitter_tolerance=st.none() | st.sampled_from(JITTER_TOLERANCES),
    isolation=st.sampled_from(ISOLATION_REQUIREMENTS),
    tenancy=st.sampled_from(TENANCIES),
    priorities=st.permutations(PRIORITIES).flatmap(
        lambda ranked: st.integers(0, len(ranked)).map(lambda n: tuple(ranked[:n]))
    ),
)


@hypothesis_settings(
    max_examples=8, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(profile=profiles)
def test_any_profile_gets_only_stacks_that_pass_the_stack_check(catalog, profile):
    recommendations = recommend(profile, catalog, limit=3)

    assert recommendations, profile
    for recommendation in recommendations:
        assert recommendation.report.ok
        assert recommendation.shape in {"A", "B", "C"}
        assert (recommendation.shape == "C") == (len(recommendation.pools) >= 2)


HARD_P99 = {
    "workload_types": ["training", "online_inference", "interactive"],
    "primary_objective": "p99_latency",
    "p99_target_ms": 200,
    "jitter_tolerance": "low",
    "isolation": "hard",
    "failure_semantics": "incident",
    "tenancy": "multi",
    "priorities": ["isolation", "observability", "cost", "compatibility"],
}


def _honours_hard_isolation(recommendation: Recommendation, rows: dict[str, Row]) -> bool:
    return not any("hard isolation is demanded" in m for m in recommendation.missing)


def test_online_inference_demanding_hard_isolation_is_never_put_on_a_shared_pool(catalog):
    ranked = recommend(Profile.from_dict(HARD_P99), catalog, limit=10)

    for recommendation in ranked[:3]:
        for pool in recommendation.pool_details.values():
            if "online_inference" in pool["workloads"]:
                assert pool["isolation"] == {"memory": "hard", "compute": "hard", "fault": "hard"}
    assert _honours_hard_isolation(ranked[0], {r.id: r for r in catalog})


def test_no_stack_serves_work_below_the_hard_isolation_demanded_for_it(catalog):
    """Drafting offers each pool only units whose ceiling can meet its work's demand, so even a
    small catalog where HAMi is the only sharing presenter yields no breaching stack."""
    projects = {"hami", "nvidia-device-plugin", "nvidia-mig", "kueue", "dcgm-exporter",
                "nvidia-gpu-operator", "nvidia-container-toolkit"}  # fmt: skip
    small = [r for r in catalog if r.project in projects]
    by_id = {r.id: r for r in small}
    ranked = recommend(Profile.from_dict(HARD_P99), small, limit=50)

    assert ranked
    assert all(_honours_hard_isolation(r, by_id) for r in ranked), [r.missing for r in ranked]


@pytest.mark.parametrize("name", ["training", "inference", "mixed"])
def test_past_the_top_three_the_shown_score_is_what_the_ranking_follows(ranked, name):
    scores = [recommendation.score for recommendation in ranked[name][3:]]

    assert scores == sorted(scores, reverse=True)
