"""The stack check with versions: gates off at the cluster's Kubernetes, pinned component
versions outside what a row was verified for, contracts outside their since/until span."""

from __future__ import annotations

import pytest

from catalog.engine.profile import Profile
from catalog.engine.rows import Row
from catalog.engine.stack import Gap, check_stack

EXTENDED = "api:kubernetes/feature/DRAExtendedResource"


def dra_driver(**fields) -> Row:
    return Row.create(
        "nvidia-dra-driver-gpu",
        "gpu-kubelet-plugin",
        "data_plane",
        requires={"api:kubernetes/feature/DynamicResourceAllocation", EXTENDED},
        **fields,
    )


def kai(**fields) -> Row:
    return Row.create(
        "kai-scheduler",
        "scheduler",
        "control_plane",
        provides={"capability:gpu-sharing-reservation"},
        **fields,
    )


def hami() -> Row:
    return Row.create(
        "hami",
        "device-plugin",
        "data_plane",
        requires={"capability:gpu-sharing-reservation"},
    )


def test_without_a_kubernetes_version_every_gate_is_assumed_on():
    report = check_stack([dra_driver()])

    assert report.ok
    assert [f for f in report.fit if f.aspect == "kubernetes"] == []


def test_a_gate_off_at_the_profiles_version_is_a_gap_naming_the_release_that_brings_it():
    profile = Profile.from_dict({"kubernetes_version": "v1.34.2"})

    report = check_stack([dra_driver()], profile=profile)

    assert report.gaps == (Gap("nvidia-dra-driver-gpu/gpu-kubelet-plugin", EXTENDED, "default"),)
    [finding] = [f for f in report.fit if f.aspect == "kubernetes"]
    assert finding.status == "gap"
    assert finding.message.startswith(
        "DRAExtendedResource: alpha in Kubernetes 1.34, on by default from 1.36"
    )


def test_the_same_stack_passes_at_the_release_where_the_gate_is_on():
    report = check_stack([dra_driver()], profile=Profile.from_dict({"kubernetes_version": "1.36"}))

    assert report.ok


def test_a_keyword_version_overrides_the_profiles():
    profile = Profile.from_dict({"kubernetes_version": "1.36"})

    report = check_stack([dra_driver()], profile=profile, kubernetes_version="1.35")

    assert not report.ok


def test_a_pinned_version_outside_the_rows_versions_is_a_warning():
    profile = Profile.from_dict({"component_versions": {"nvidia-dra-driver-gpu": "0.3.0"}})

    report = check_stack([dra_driver(versions=">=0.4.1")], profile=profile)

    assert report.ok
    [finding] = [f for f in report.fit if f.aspect == "versions"]
    assert finding.status == "warning"
    assert finding.message == (
        "nvidia-dra-driver-gpu/gpu-kubelet-plugin: claims verified for >=0.4.1; you pin 0.3.0"
    )


@pytest.mark.parametrize("pinned", ["0.4.1", "v0.5.0"])
def test_a_pinned_version_inside_the_rows_versions_says_nothing(pinned):
    profile = Profile.from_dict({"component_versions": {"nvidia-dra-driver-gpu": pinned}})

    report = check_stack([dra_driver(versions=">=0.4.1")], profile=profile)

    assert [f for f in report.fit if f.aspect == "versions"] == []


def test_a_contract_before_its_since_release_is_absent_so_its_consumer_has_a_gap():
    kai_row = kai(contract_versions={"capability:gpu-sharing-reservation": {"since": "0.16.4"}})
    profile = Profile.from_dict({"component_versions": {"kai-scheduler": "v0.16.0"}})

    report = check_stack([kai_row, hami()], profile=profile)

    assert report.gaps == (
        Gap("hami/device-plugin", "capability:gpu-sharing-reservation", "default"),
    )
    assert any(
        "capability:gpu-sharing-reservation exists since 0.16.4; v0.16.0 is treated as without it"
        in f.message
        for f in report.fit
    )


def test_a_contract_from_its_until_release_on_is_absent():
    kai_row = kai(contract_versions={"capability:gpu-sharing-reservation": {"until": "0.20"}})

    kept = check_stack([kai_row, hami()], component_versions={"kai-scheduler": "0.19.9"})
    gone = check_stack([kai_row, hami()], component_versions={"kai-scheduler": "0.20.0"})

    assert kept.ok
    assert not gone.ok


def test_profile_versions_are_validated_and_round_trip():
    profile = Profile.from_dict(
        {"kubernetes_version": " v1.34.2 ", "component_versions": {"kueue": "0.19.3"}}
    )

    assert profile.to_dict()["kubernetes_version"] == "v1.34.2"
    assert Profile.from_dict(profile.to_dict()) == profile
    with pytest.raises(ValueError, match="kubernetes_version"):
        Profile.from_dict({"kubernetes_version": "latest"})
    with pytest.raises(ValueError, match="component_versions"):
        Profile.from_dict({"component_versions": {"Not A Slug": "1.0"}})
    with pytest.raises(ValueError, match="component_versions"):
        Profile.from_dict({"component_versions": {"kueue": "soon"}})
