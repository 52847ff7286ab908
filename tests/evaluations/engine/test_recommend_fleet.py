"""Recommendations for the cluster as it really is (issue 38): node groups, named tenants with
absolute demand, what is installed, and models the GPU facts do not know."""

from __future__ import annotations

import json

import pytest

from catalog.engine.profile import Profile
from evaluations.engine.cli import recommend_json
from evaluations.engine.recommend import recommend
from tests.evaluations.engine.test_recommend import load_builtin_catalog
from tests.evaluations.expert_profiles.profiles import PROFILES_BY_NAME

HOSPITAL = PROFILES_BY_NAME["hospital-a100-l4-kueue"].profile


@pytest.fixture(scope="module")
def catalog():
    return load_builtin_catalog()


@pytest.fixture(scope="module")
def hospital(catalog):
    return recommend(Profile.from_dict(HOSPITAL), catalog, limit=5)


def _pool(stack, serving: str) -> tuple[str, dict]:
    return next(
        (name, pool) for name, pool in stack.pool_details.items() if serving in pool["workloads"]
    )


def test_the_l4_group_hosts_a_pool_and_is_never_given_mig(hospital):
    for stack in hospital:
        groups = {pool["node_group"] for pool in stack.pool_details.values()}
        assert groups == {"a100", "l4"}, stack.pools
        for pool in stack.pool_details.values():
            if pool["node_group"] == "l4":
                assert "mig_slice" not in pool["units"]
                assert pool["gpu_model"] == "NVIDIA L4"


def test_only_the_clinical_tenant_is_served_by_the_inference_pool(hospital):
    name, pool = _pool(hospital[0], "online_inference")

    assert pool["tenants"] == ["clinical"]
    # One tenant in a pool is not "one pool per tenant (3 pools)".
    assert not any("one pool per tenant" in note for note in hospital[0].explanation.split(";"))
    assert not any("(3 pools)" in str(text) for text in hospital[0].missing)
    assert pool["demand"] == [
        {"tenant": "clinical", "workload": "online_inference", "replicas": 12, "when": "always"}
    ]


def test_twelve_always_on_replicas_beyond_the_l4_group_are_said(hospital):
    assert any(
        "node group l4 has 8 GPUs" in text and "asks for 12" in text for text in hospital[0].missing
    ), hospital[0].missing


def test_the_installed_kueue_is_kept_first_and_replacing_it_is_a_migration(hospital):
    first = hospital[0]
    assert "kueue/controller" in first.cluster_wide
    assert any("keeps the installed kueue 0.10.1" in fit for fit in first.fits)
    others = [s for s in hospital if "kueue/controller" not in s.rows]
    assert others, "another governor should still be offered, below"
    assert all(
        any("replaces the installed kueue 0.10.1" in text for text in s.missing) for s in others
    )


def test_the_top_three_are_three_data_planes(hospital):
    planes = {
        tuple(sorted((name, tuple(pool["units"])) for name, pool in s.pool_details.items()))
        for s in hospital[:3]
    }
    assert len(planes) == 3, [s.pools for s in hospital[:3]]
    assert hospital.alike is None


def test_an_unknown_accelerator_gets_no_vendor_row_and_is_named_at_the_top(catalog):
    data = {
        "workload_types": ["training"],
        "tenancy": "single",
        "node_groups": [{"name": "x", "gpu_model": "Gaudi 9", "nodes": 2, "gpus_per_node": 8}],
    }

    ranking = recommend(Profile.from_dict(data), catalog)

    assert ranking.unknown_models == ["Gaudi 9"]
    rows = {row.id: row for row in catalog}
    assert not any(rows[ref].vendors for stack in ranking for ref in stack.rows)
    assert any(item["row"] == "nvidia-device-plugin/whole-gpu" for item in ranking.left_out_rows)


def test_an_unknown_group_beside_a_known_one_gets_only_vendor_neutral_presenters(catalog):
    data = {
        "workload_types": ["training", "online_inference"],
        "isolation": "soft",
        "tenancy": "single",
        "node_groups": [
            {"name": "h100", "gpu_model": "H100", "nodes": 2, "gpus_per_node": 8},
            {"name": "odd", "gpu_model": "Mystery X1", "nodes": 1, "gpus_per_node": 4},
        ],
    }

    ranking = recommend(Profile.from_dict(data), catalog)

    rows = {row.id: row for row in catalog}
    assert ranking.unknown_models == ["Mystery X1"]
    assert any("Node group odd: Mystery X1 is not in" in text for text in ranking.left_out)
    for stack in ranking:
        for name, pool in stack.pool_details.items():
            if pool["node_group"] == "odd":
                presenters = [rows[r] for r in stack.pools[name] if rows[r].layer == "data_plane"]
                assert not any(r.vendors for r in presenters), (name, stack.pools[name])


def test_recommend_json_is_the_ranking_with_left_out_rows_and_unknown_models(catalog):
    data = recommend_json(HOSPITAL, catalog, limit=3)

    assert [s["rank"] for s in data["stacks"]] == [1, 2, 3]
    assert data["unknown_models"] == []
    assert {"row": "amd-gpu-device-plugin/whole-gpu"}.items() <= next(
        item for item in data["left_out"] if item["row"] == "amd-gpu-device-plugin/whole-gpu"
    ).items()
    assert all(item["reason"] for item in data["left_out"])
    assert data["stacks"][0]["pool_details"]["inference"]["node_group"] == "l4"
    json.dumps(data)


def test_a_single_pool_of_whole_gpus_is_shape_a_without_colocation_checks(catalog):
    data = {
        "workload_types": ["online_inference"],
        "isolation": "hard",
        "tenancy": "single",
        "p99_target_ms": 100,
        "gpu_model": "L40S",
    }

    ranking = recommend(Profile.from_dict(data), catalog, limit=10)

    whole = [
        s for s in ranking if all(p["units"] == ["whole_gpu"] for p in s.pool_details.values())
    ]
    assert whole
    for stack in whole:
        assert stack.shape == "A", (stack.shape, stack.trade_off)
        assert "sharing GPUs through" not in stack.trade_off
        checks = [c for p in stack.pool_details.values() for c in p["acceptance_checks"]]
        assert not any("other work loads the same GPUs" in c for c in checks)
        assert any("P99 latency against the 100 ms target at peak load" in c for c in checks)


def test_a_cost_row_that_cannot_read_a_pools_resources_says_so(hospital):
    hami = next(s for s in hospital if "hami/device-plugin" in s.rows)

    assert any(
        "OpenCost cost-model cannot cost pool interactive's nvidia.com/gpucores" in text
        for text in hami.missing
    )
    assert not any("OpenCost cost-model gives cost and usage visibility" in f for f in hami.fits)


def test_on_an_nvlink_rack_no_topology_blind_governor_outranks_one_that_places_by_topology(
    catalog,
):
    rows = {row.id: row for row in catalog}
    ranking = recommend(
        Profile.from_dict(PROFILES_BY_NAME["gb200-nvl72-two-teams"].profile), catalog, limit=5
    )

    aware = [
        any("capability:topology-aware" in rows[r].provides for r in s.cluster_wide)
        for s in ranking
    ]
    assert aware[0]
    # Once a topology-blind governor appears, none that places by topology comes after it.
    assert aware == sorted(aware, reverse=True), [s.cluster_wide for s in ranking]
    checks = ranking[0].acceptance_checks
    assert any("ComputeDomain" in c and "nvidia.com/gpu.clique" in c for c in checks)
    assert any("NCCL all-reduce" in c for c in checks)


def test_the_installed_release_is_judged_once_not_contract_by_contract(hospital):
    first = hospital[0]
    said = [f.message for f in first.report.fit if f.aspect == "versions"]

    # Kueue 0.10.1: the catalog's row is verified at 0.19.2; the v1beta2 CRDs it added from
    # 0.15.0 (catalog/data/kueue.yaml contract_versions) are not counted, said in one line.
    assert len(said) == 1, said
    assert "0.10.1 is installed and kept" in said[0]
    assert "an upgrade is a step of its own" in said[0]


def test_amd_partitions_are_not_said_to_lack_mig(catalog):
    # The MI300X splits into compute partitions (catalog/data/facts/gpus.yaml, CPX 8 logical
    # GPUs): a pool on them is not "MIG on a GPU without MIG".
    data = {
        "workload_types": ["online_inference", "interactive"],
        "isolation": "soft",
        "tenancy": "multi",
        "tenant_count": 8,
        "gpu_model": "MI300X",
        "node_count": 16,
        "gpus_per_node": 8,
        "kubernetes_version": "1.32",
    }

    ranking = recommend(Profile.from_dict(data), catalog)

    partitioned = [s for s in ranking if "amd-gpu-device-plugin/partitions-mixed" in s.rows]
    assert partitioned
    for stack in partitioned:
        assert not any("MI300X has none" in text for text in stack.missing), stack.missing
        assert any("split into compute partitions" in text for text in stack.fits)
