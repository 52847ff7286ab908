"""catalog.evidence: how an evidence link reads (tests/catalog/test_labels.py has the basic
shapes); here the parts the report and the ADR rely on."""

from __future__ import annotations

import pytest

from catalog.evidence import evidence_label


@pytest.mark.parametrize(
    ("url", "label"),
    [
        (
            "https://github.com/NVIDIA/k8s-device-plugin/tree/main/deployments/helm",
            "NVIDIA/k8s-device-plugin · deployments/helm",
        ),
        (
            "https://github.com/NVIDIA/k8s-device-plugin/blob/v0.17.0/README.md#L251-L264",
            "NVIDIA/k8s-device-plugin · README.md L251–264",
        ),
        (
            "https://github.com/kubernetes-sigs/kueue/blob/main/site/content/en/docs/a%20b.md",
            "kubernetes-sigs/kueue · …/docs/a b.md",
        ),
        (
            "https://github.com/volcano-sh/volcano/blob/v1.12/README.md#quick-start",
            "volcano-sh/volcano · README.md",
        ),
        ("https://github.com/NVIDIA/gpu-operator/issues/42", "NVIDIA/gpu-operator · issues/42"),
    ],
)
def test_a_github_link_reads_as_repository_and_path(url, label):
    assert evidence_label(url) == label


def test_the_repository_comes_first_and_is_set_off_once():
    # The report says the repository once per line and links each file by the part after it.
    for url in (
        "https://github.com/Project-HAMi/HAMi/blob/v2.10.0/charts/hami/values.yaml#L25-L28",
        "https://docs.nvidia.com/datacenter/cloud-native/gpu-operator/latest/gpu-operator-mig.html",
    ):
        where, separator, page = evidence_label(url).partition(" · ")
        assert separator and page
        assert " · " not in page
        assert where in url


def test_a_site_without_a_path_is_its_host():
    assert evidence_label("https://kubernetes.io") == "kubernetes.io"
    assert evidence_label("https://WWW.Example.org/") == "example.org"
