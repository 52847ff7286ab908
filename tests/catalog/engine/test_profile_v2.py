"""Profile v2 (DESIGN.md): node groups, named tenants with absolute demand, what is installed."""

from __future__ import annotations

import pytest

from catalog.engine.profile import DEFAULT_GROUP, Profile, profile_valid_fields
from tests.evaluations.expert_profiles.profiles import PROFILES_BY_NAME

# The hospital of issue 38 (6 nodes x 4 A100 40GB and 4 x 2 L4, Kubernetes 1.31, Kueue installed,
# three tenants who run different work), as the expert suite holds it.
HOSPITAL = PROFILES_BY_NAME["hospital-a100-l4-kueue"].profile


def test_the_hospital_is_read_with_both_node_groups_and_every_tenant_by_name():
    profile = Profile.from_dict(HOSPITAL)
    assert [(g.name, g.model.key, g.gpus) for g in profile.groups] == [
        ("a100", "a100-40gb", 24),
        ("l4", "l4", 8),
    ]
    assert [t.name for t in profile.tenant_list] == ["clinical", "research", "students"]
    assert profile.tenancy == "multi"
    assert profile.tenant_count == 3
    # Step 1 named no workload types: the tenants' work is the profile's.
    assert profile.workload_types == ("training", "online_inference", "interactive")
    assert profile.kubernetes_version == "1.31"
    assert profile.installed_versions == {"kueue": "0.10.1"}


def test_absolute_demand_is_kept_as_said():
    clinical, research, students = Profile.from_dict(HOSPITAL).tenant_list
    assert clinical.demand[0].whole_gpus == 12
    assert research.demand[0].whole_gpus == 16
    assert research.demand[0].when == "window"
    # 30 MIG instances are not 30 GPUs.
    assert students.demand[0].whole_gpus is None
    assert students.demand[0].mig_profile == "1g.10gb"


def test_one_model_per_cluster_is_not_taken_for_a_fleet_of_two():
    profile = Profile.from_dict(HOSPITAL)
    assert profile.gpu_model is None
    # 10 nodes of two shapes would be sized at a default shape: left unsaid.
    assert profile.node_count is None


def test_a_gpu_model_beside_mixed_node_groups_is_refused_and_the_groups_are_kept():
    data = {**HOSPITAL, "gpu_model": "A100 40GB"}
    with pytest.raises(ValueError, match="^gpu_model: .*contradicts"):
        Profile.from_dict(data)
    valid, errors = profile_valid_fields(data)
    assert "gpu_model" in errors
    assert valid["node_groups"] == HOSPITAL["node_groups"]


def test_one_node_group_reads_as_the_v1_fields_so_older_readers_still_see_the_cluster():
    profile = Profile.from_dict(
        {"node_groups": [{"name": "h100", "gpu_model": "H100", "nodes": 3, "gpus_per_node": 8}]}
    )
    assert (profile.gpu_model, profile.node_count, profile.gpus_per_node) == ("H100", 3, 8)


def test_a_v1_profile_is_one_node_group_and_numbered_tenants():
    profile = Profile.from_dict(
        {"workload_types": ["training"], "gpu_model": "H100", "node_count": 2, "tenant_count": 3}
    )
    (group,) = profile.groups
    assert (group.name, group.gpu_model, group.nodes) == (DEFAULT_GROUP, "H100", 2)
    assert [t.name for t in profile.tenant_list] == ["tenant-1", "tenant-2", "tenant-3"]
    assert all(t.workloads == ("training",) for t in profile.tenant_list)
    assert profile.node_groups == () and profile.tenants == ()


def test_a_profile_round_trips_through_its_dict():
    profile = Profile.from_dict(HOSPITAL)
    assert Profile.from_dict(profile.to_dict()) == profile


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"tenants": [{"name": "Clinical", "workloads": ["training"]}]}, r"^tenants\[0\]\.name"),
        (
            {
                "tenants": [
                    {"name": "a", "workloads": ["training"]},
                    {"name": "a", "workloads": ["training"]},
                ]
            },
            r"tenants\[1\]\.name: a is named twice",
        ),
        ({"tenants": [{"name": "a", "workloads": []}]}, r"name the work this tenant runs"),
        (
            {
                "tenants": [
                    {"name": "a", "workloads": ["training"], "demand": [{"workload": "training"}]}
                ]
            },
            r"give either gpus, or replicas",
        ),
        (
            {
                "tenants": [
                    {
                        "name": "a",
                        "workloads": ["training"],
                        "demand": [{"workload": "training", "gpus": 2, "replicas": 2}],
                    }
                ]
            },
            r"give either gpus, or replicas",
        ),
        (
            {
                "tenants": [
                    {
                        "name": "a",
                        "workloads": ["training"],
                        "demand": [{"workload": "online_inference", "gpus": 2}],
                    }
                ]
            },
            r"not among this tenant's workloads",
        ),
        (
            {"node_groups": [{"name": "x", "gpu_model": "H100", "nodes": 0, "gpus_per_node": 8}]},
            r"^node_groups\[0\]\.nodes: expected a whole number",
        ),
        (
            {"node_groups": [{"name": "x"}, {"name": "x"}]},
            r"node_groups\[1\]\.name: x is named twice",
        ),
        ({"installed": [{"project": "Kueue!", "version": "0.10.1"}]}, r"installed\[0\]\.project"),
        ({"installed": [{"project": "kueue", "version": "latest"}]}, r"installed\[0\]\.version"),
        ({"installed": {"kueue": "0.10.1"}}, r"^installed: expected a list"),
    ],
)
def test_bad_v2_input_is_refused_naming_the_entry_and_the_field(change, message):
    with pytest.raises(ValueError, match=message):
        Profile.from_dict(change)


def test_a_mig_profile_no_group_has_is_refused():
    # The L4 has no MIG (GPU facts), and 1g.10gb is an A100 40GB profile, not an H100 one.
    data = {
        "node_groups": [{"name": "l4", "gpu_model": "L4", "nodes": 1, "gpus_per_node": 2}],
        "tenants": [
            {
                "name": "a",
                "workloads": ["interactive"],
                "demand": [{"workload": "interactive", "replicas": 4, "mig_profile": "1g.10gb"}],
            }
        ],
    }
    with pytest.raises(ValueError, match=r"no node group's GPU model has MIG profile 1g\.10gb"):
        Profile.from_dict(data)


def test_a_workload_type_no_named_tenant_runs_is_refused():
    data = {
        "workload_types": ["training", "online_inference"],
        "tenants": [{"name": "research", "workloads": ["training"]}],
    }
    with pytest.raises(ValueError, match="^tenants: no tenant runs online_inference"):
        Profile.from_dict(data)


def test_named_tenants_contradict_a_different_count_and_a_single_tenancy():
    two = [{"name": "a", "workloads": ["training"]}, {"name": "b", "workloads": ["training"]}]
    with pytest.raises(ValueError, match="^tenant_count: 3 contradicts the 2 tenants named"):
        Profile.from_dict({"tenants": two, "tenant_count": 3})
    with pytest.raises(ValueError, match="^tenancy: single contradicts the 2 tenants named"):
        Profile.from_dict({"tenants": two, "tenancy": "single"})
    # A step-1 save keeps the tenants and drops the tenancy they contradict.
    valid, errors = profile_valid_fields({"tenants": two, "tenancy": "single"})
    assert list(errors) == ["tenancy"] and valid == {"tenants": two}


def test_a_pool_follows_the_strictest_rule_of_the_tenants_it_serves():
    profile = Profile.from_dict(HOSPITAL)
    clinical, research, students = profile.tenant_list
    # Multi-tenant and hard: hard partitions only, unless a tenant never shares.
    assert profile.rule_for([research, students]) == "hard_partitions"
    assert profile.rule_for([clinical, students]) == "never"


def test_a_tenant_demanding_hard_isolation_raises_it_for_its_own_work_only():
    profile = Profile.from_dict(
        {
            "isolation": "soft",
            "tenants": [
                {"name": "a", "workloads": ["online_inference"], "isolation": "hard"},
                {"name": "b", "workloads": ["online_inference", "interactive"]},
            ],
        }
    )
    a, b = profile.tenant_list
    assert profile.isolation_for("online_inference", [a, b]) == "hard"
    assert profile.isolation_for("interactive", [a, b]) == "soft"
    assert profile.isolation_for("online_inference", [b]) == "soft"
