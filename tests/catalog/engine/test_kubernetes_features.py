"""Kubernetes feature gates as catalog facts: versions, stages, availability, the first release."""

from __future__ import annotations

import pytest

from catalog.engine.baseline import baseline_offers, feature_interface
from catalog.engine.kubernetes import (
    available,
    feature_stage,
    features,
    parse_version,
    since,
    unavailable_reason,
)

ISSUE_FEATURES = (
    "DynamicResourceAllocation",
    "DRAExtendedResource",
    "DRAPartitionableDevices",
    "DRAConsumableCapacity",
    "DRADeviceTaints",
    "DRAPrioritizedList",
)


@pytest.mark.parametrize(
    ("text", "minor"),
    [("1.34", (1, 34)), ("v1.34.2", (1, 34)), ("v1.30.4-eks-1a2b3c", (1, 30)), ("1.31+", (1, 31))],
)
def test_it_reads_kubernetes_versions_as_people_and_clusters_write_them(text, minor):
    assert parse_version(text) == minor


@pytest.mark.parametrize("text", ["", "latest", "1", "one.two"])
def test_it_refuses_text_that_is_not_a_kubernetes_version(text):
    with pytest.raises(ValueError, match="not a Kubernetes version"):
        parse_version(text)


@pytest.mark.parametrize("gate", ISSUE_FEATURES)
def test_every_feature_the_issue_names_is_sourced_with_a_first_default_on_release(gate):
    assert gate in features()
    assert features()[gate].source.startswith("https://")
    assert since(gate) is not None


def test_extended_resources_via_dra_are_alpha_until_1_36():
    assert feature_stage("DRAExtendedResource", "1.34") == "alpha"
    assert not available("DRAExtendedResource", "v1.35.1")
    assert available("DRAExtendedResource", "1.36")
    assert since("DRAExtendedResource") == "1.36"


def test_a_beta_gate_that_was_off_by_default_is_not_available():
    # DRA core was beta in 1.32 and 1.33 but off by default; on from 1.34.
    assert feature_stage("DynamicResourceAllocation", "1.33") == "beta"
    assert not available("DynamicResourceAllocation", "1.33")
    assert available("DynamicResourceAllocation", "1.34")


def test_a_release_before_the_first_stage_is_absent_and_a_ga_gate_stays_ga():
    assert feature_stage("DRADeviceTaints", "1.30") == "absent"
    assert feature_stage("DynamicResourceAllocation", "1.40") == "GA"
    assert available("DynamicResourceAllocation", "1.40")


def test_an_unverified_minor_has_no_stage():
    # DRAAdminAccess is verified only up to 1.34 (beta): later stages are not known.
    assert feature_stage("DRAAdminAccess", "1.36") is None


def test_unknown_gates_are_named():
    with pytest.raises(KeyError, match="unknown Kubernetes feature"):
        since("NoSuchGate")


def test_the_reason_names_the_stage_and_the_release_that_brings_it():
    assert unavailable_reason("DRAExtendedResource", "1.34") == (
        "DRAExtendedResource: alpha in Kubernetes 1.34, on by default from 1.36"
    )
    assert unavailable_reason("DRADeviceTaints", "1.31") == (
        "DRADeviceTaints: not yet in Kubernetes 1.31, on by default from 1.36"
    )


def test_the_baseline_offers_a_gate_when_no_version_is_known_and_only_where_it_is_on():
    interface = feature_interface("DRAPartitionableDevices")
    assert baseline_offers(interface)
    assert not baseline_offers(interface, "1.35")
    assert baseline_offers(interface, "1.36")
    assert baseline_offers("api:v1/Pod", "1.20")
