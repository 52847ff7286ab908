"""DRA driver releases as catalog facts: each keyed to a real catalog row's pinned release, sourced
at that release's tag, and a cluster version compared with the minimum down to the patch.

Sources: the NVIDIA DRA driver v0.4.1 supports Kubernetes v1.34.2 or later
(https://github.com/kubernetes-sigs/dra-driver-nvidia-gpu/blob/v0.4.1/docs/prerequisites.md#L8-L11)
and its chart's kubeVersion is ">=1.32.0-0" (deployments/helm/dra-driver-nvidia-gpu/Chart.yaml#L34);
HAMi's k8s-dra-driver v0.1.0 chart has kubeVersion ">=1.34.0-0"
(https://github.com/Project-HAMi/k8s-dra-driver/blob/v0.1.0/chart/hami-dra-driver/Chart.yaml#L8).
"""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from django.conf import settings

from catalog.engine.dra_releases import (
    BELOW,
    UNSURE,
    chart_refuses,
    driver_release,
    driver_releases,
    kubernetes_support,
)


def catalog_pins() -> set[tuple[str, str]]:
    """(project slug, project_version) of every built-in catalog row."""
    return {
        (project["slug"], str(placement.get("project_version") or ""))
        for path in sorted(Path(settings.CATALOG_DATA_DIR).glob("*.yaml"))
        for project in yaml.safe_load(path.read_text(encoding="utf-8"))["projects"]
        for placement in project["placements"]
    }


def test_every_release_is_a_release_a_catalog_row_pins_and_is_sourced_at_its_tag():
    pins = catalog_pins()
    for (project, release), facts in driver_releases().items():
        assert (project, release) in pins, (project, release)
        assert facts.sources and facts.verified_at
        assert all(f"/blob/{release}/" in url for url in facts.sources), release


@pytest.mark.parametrize(
    ("version", "support"),
    [
        ("1.33", BELOW),
        ("v1.34.1", BELOW),
        ("1.34", UNSURE),  # a minor only: 1.34.0 and 1.34.1 are below, 1.34.2 is not
        ("1.34.2", None),
        ("v1.34.3-eks-1a2b3c", None),
        ("1.35", None),
    ],
)
def test_the_nvidia_driver_v0_4_1_needs_kubernetes_1_34_2(version, support):
    release = driver_release("nvidia-dra-driver-gpu", "v0.4.1")

    assert kubernetes_support(release, version) == support


def test_a_minimum_without_a_patch_is_met_by_any_patch_of_its_minor():
    release = driver_release("hami-dra-driver", "v0.1.0")

    assert kubernetes_support(release, "1.34") is None
    assert kubernetes_support(release, "1.33.9") == BELOW


def test_the_chart_kube_version_says_where_helm_refuses_to_install():
    nvidia = driver_release("nvidia-dra-driver-gpu", "v0.4.1")
    hami = driver_release("hami-dra-driver", "v0.1.0")

    assert not chart_refuses(nvidia, "1.33")  # installs from 1.32, supported from 1.34.2
    assert chart_refuses(hami, "1.33")
    assert not chart_refuses(hami, "1.34")


def test_a_release_the_catalog_states_nothing_for_is_none():
    assert driver_release("nvidia-dra-driver-gpu", "v0.3.0") is None
