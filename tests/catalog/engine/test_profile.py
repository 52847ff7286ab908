"""The step-1 profile's optional cluster facts: GPU model and memory, node and tenant counts,
and when each workload type runs."""

from __future__ import annotations

import pytest

from catalog.engine.profile import TIME_WINDOWS, Profile, profile_valid_fields

MIXED = {"workload_types": ["training", "online_inference"]}


def test_an_old_profile_without_the_new_fields_stays_valid():
    profile = Profile.from_dict({**MIXED, "tenancy": "multi", "priorities": ["cost"]})

    assert profile.gpu_model is None
    assert profile.node_count is None
    assert profile.time_windows == ()


def test_the_new_fields_parse_and_round_trip():
    profile = Profile.from_dict(
        {
            **MIXED,
            "gpu_model": "  A100   80GB ",
            "gpu_memory_gb": 80,
            "node_count": 6,
            "tenant_count": 3,
            "time_windows": {"online_inference": "always", "training": "night"},
        }
    )

    assert profile.gpu_model == "A100 80GB"
    assert (profile.gpu_memory_gb, profile.node_count, profile.tenant_count) == (80, 6, 3)
    assert profile.window("training") == "night"
    assert profile.to_dict()["time_windows"] == {"training": "night", "online_inference": "always"}
    assert Profile.from_dict(profile.to_dict()) == profile


def test_the_time_window_vocabulary_is_small_and_fixed():
    assert TIME_WINDOWS == ("always", "business_hours", "night", "weekend")


def test_more_than_one_tenant_makes_an_unsaid_tenancy_multi():
    assert Profile.from_dict({"tenant_count": 2}).tenancy == "multi"
    assert Profile.from_dict({"tenant_count": 1}).tenancy == "single"


@pytest.mark.parametrize(
    ("data", "field"),
    [
        ({"gpu_memory_gb": 0}, "gpu_memory_gb"),
        ({"gpu_memory_gb": True}, "gpu_memory_gb"),
        ({"node_count": 2.5}, "node_count"),
        ({"node_count": "4"}, "node_count"),
        ({"tenant_count": -1}, "tenant_count"),
        ({"gpu_model": "x" * 81}, "gpu_model"),
        ({"gpu_model": 80}, "gpu_model"),
        ({**MIXED, "time_windows": {"training": "lunchtime"}}, "time_windows"),
        ({**MIXED, "time_windows": {"batch": "night"}}, "time_windows"),
        ({**MIXED, "time_windows": {"cooking": "night"}}, "time_windows"),
        ({**MIXED, "time_windows": ["night"]}, "time_windows"),
        ({"tenancy": "single", "tenant_count": 3}, "tenant_count"),
    ],
)
def test_a_bad_value_is_an_error_naming_its_field(data, field):
    with pytest.raises(ValueError, match=rf"^{field}:"):
        Profile.from_dict(data)


def test_a_whole_float_count_is_a_count():
    assert Profile.from_dict({"node_count": 4.0}).node_count == 4


def test_valid_fields_are_kept_apart_from_the_bad_ones():
    valid, errors = profile_valid_fields(
        {
            **MIXED,
            "priorities": ["cost", "cost"],
            "p99_target_ms": "fast",
            "isolation": "hard",
            "node_count": 3,
            "unknown": 1,
        }
    )

    assert valid == {**MIXED, "isolation": "hard", "node_count": 3}
    assert sorted(errors) == ["p99_target_ms", "priorities", "unknown"]


def test_a_contradiction_drops_the_field_that_names_it():
    valid, errors = profile_valid_fields({"tenancy": "single", "tenant_count": 5})

    assert valid == {"tenancy": "single"}
    assert "contradict" in errors["tenant_count"]
