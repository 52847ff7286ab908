"""A placement's `detect` signatures (bundle v1, optional): validated, stored, exported again,
kept by a merge import that does not state them, and refused with a JSON path when malformed."""

from __future__ import annotations

import pytest

from catalog.models import PlacementRow
from catalog.selectors import bundle_export
from catalog.services import BundleInvalid
from tests.factories import apply, bundle, placement, project

pytestmark = pytest.mark.django_db

SIGNATURES = {
    "daemonsets": ["*hami-device-plugin", "*hami-device-plugin"],
    "helm_charts": ["hami"],
    "images": ["projecthami/hami"],
    "extended_resources": ["nvidia.com/gpumem", "nvidia.com/gpucores"],
    "unless_node_labels": ["gpu=off"],
    "evidence": ["https://github.com/Project-HAMi/HAMi/blob/v2.7.1/charts/hami/values.yaml"],
    "note": "The DaemonSet name follows the Helm release name.",
}


def hami(**fields):
    return bundle(project("hami", placement("device-plugin", **fields), name="HAMi"))


def test_signatures_are_stored_in_a_fixed_order_without_duplicates_and_exported_again():
    apply(hami(detect=SIGNATURES))

    stored = PlacementRow.objects.get(key="device-plugin").detect
    assert stored["daemonsets"] == ["*hami-device-plugin"]
    exported = bundle_export()["projects"][0]["placements"][0]
    assert exported["detect"] == stored
    assert list(exported["detect"]) == [
        "helm_charts",
        "images",
        "daemonsets",
        "unless_node_labels",
        "extended_resources",
        "evidence",
        "note",
    ]


def test_a_merge_import_that_does_not_state_them_keeps_them():
    apply(hami(detect=SIGNATURES))

    apply(hami(promise="Caps GPU memory per container."), mode="merge")

    assert PlacementRow.objects.get(key="device-plugin").detect["helm_charts"] == ["hami"]


@pytest.mark.parametrize(
    ("detect", "path"),
    [
        ({"daemonset": ["x"]}, "detect"),
        ({"images": "projecthami/hami"}, "detect.images"),
        ({"crds": ["two words"]}, "detect.crds[0]"),
        ({"evidence": ["not a url"]}, "detect.evidence[0]"),
    ],
)
def test_malformed_signatures_are_refused_with_their_path(detect, path):
    with pytest.raises(BundleInvalid) as refused:
        apply(hami(detect=detect))

    assert any(error.path.endswith(path) for error in refused.value.errors), [
        (e.path, e.message) for e in refused.value.errors
    ]
    assert not PlacementRow.objects.exists()


def test_versions_and_contract_versions_are_stored_exported_and_kept_by_merges():
    spans = {"resource:example.com/gpu": {"since": "0.15.0"}, "signal:x/y": {"until": "2.0"}}
    apply(hami(versions=">=0.15,<0.20", contract_versions=spans))

    row = PlacementRow.objects.get(key="device-plugin")
    assert (row.versions, row.contract_versions) == (">=0.15,<0.20", spans)
    exported = bundle_export()["projects"][0]["placements"][0]
    assert exported["versions"] == ">=0.15,<0.20"
    assert exported["contract_versions"] == spans

    apply(hami(promise="Caps GPU memory per container."), mode="merge")
    assert PlacementRow.objects.get(key="device-plugin").versions == ">=0.15,<0.20"


@pytest.mark.parametrize(
    ("fields", "path"),
    [
        ({"versions": "newest; drop table"}, "versions"),
        ({"contract_versions": {"resource:x": {"from": "1.0"}}}, "contract_versions"),
        ({"contract_versions": {"not an interface": {"since": "1.0"}}}, "contract_versions"),
    ],
)
def test_malformed_versions_are_refused(fields, path):
    with pytest.raises(BundleInvalid) as refused:
        apply(hami(**fields))

    assert any(path in error.path for error in refused.value.errors), [
        (e.path, e.message) for e in refused.value.errors
    ]
