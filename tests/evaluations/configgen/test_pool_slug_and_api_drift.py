"""Label values and API versions in the drift (issue 42 item 3): a pool's display name becomes
its DNS-1123 slug wherever it is a label value; generated objects whose API version the release
found in the cluster does not serve (Kueue v1beta2 against an installed 0.10.1) are warned of."""

from __future__ import annotations

import pytest

from catalog.engine.cluster import parse_snapshot
from catalog.engine.cluster.decision import _named, pool_slug
from catalog.engine.cluster.detect import NodePool
from catalog.engine.rows import Row
from evaluations.clusters.selectors import config_drift_of
from evaluations.configgen.api_drift import api_version_drift, contract_spans
from evaluations.configgen.model import Document, GeneratedFile
from evaluations.configgen.selectors import decision_facts, evaluation_config
from evaluations.decisions.models import Decision

POOL_LABEL = "ecomap.io/pool"
V1BETA2 = "crd:kueue.x-k8s.io/v1beta2/ClusterQueue"


@pytest.mark.parametrize(
    ("name", "slug"),
    [
        ("interactive development", "interactive-development"),
        ("Training_A100", "training-a100"),
        ("  --GPU  pool--  ", "gpu-pool"),
        ("训练", "pool"),
    ],
)
def test_a_pool_name_becomes_a_label_value(name, slug):
    assert pool_slug(name) == slug


def test_the_cluster_drift_finds_a_decided_pool_by_its_slug_label():
    labelled = NodePool("interactive-development", {POOL_LABEL: "interactive-development"}, ())

    assert _named(labelled, "interactive development")
    assert not _named(labelled, "training")


def _cluster_queue_file(api: str) -> GeneratedFile:
    return GeneratedFile(
        "kueue/cluster-queues.yaml",
        "kueue",
        [Document({"apiVersion": api, "kind": "ClusterQueue", "metadata": {"name": "q"}})],
    )


def _kueue_row() -> Row:
    row = Row.__new__(Row)
    object.__setattr__(row, "project", "kueue")
    object.__setattr__(row, "contract_versions", {V1BETA2: {"since": "0.15.0"}})
    return row


def test_v1beta2_objects_against_an_installed_kueue_0_10_1_are_warned_of():
    spans = contract_spans([_kueue_row()])

    (drift,) = api_version_drift(
        [_cluster_queue_file("kueue.x-k8s.io/v1beta2")],
        installed={"kueue": "v0.10.1"},
        spans=spans,
    )

    assert drift.severity == "warning"
    assert "v1beta2" in drift.message and "0.10.1" in drift.message
    assert "since 0.15.0" in drift.message


@pytest.mark.parametrize(
    ("api", "installed"),
    [
        ("kueue.x-k8s.io/v1beta2", {"kueue": "0.16.0"}),
        ("kueue.x-k8s.io/v1beta1", {"kueue": "0.10.1"}),
        ("kueue.x-k8s.io/v1beta2", {}),  # the cluster shows no release: nothing is guessed
    ],
)
def test_served_or_unknown_releases_give_no_warning(api, installed):
    spans = contract_spans([_kueue_row()])

    assert api_version_drift([_cluster_queue_file(api)], installed=installed, spans=spans) == []


@pytest.mark.django_db
def test_a_decided_pool_with_a_display_name_is_configured_under_its_slug(approved):
    decision = Decision.objects.get(evaluation=approved)
    decision.pools = {"interactive development": list(decision.rows)}
    decision.save(update_fields=["pools"])
    approved.refresh_from_db()

    facts = decision_facts(approved)

    assert "interactive-development" in facts.pools
    assert "interactive development" not in facts.pools
    nodes = next(f for f in evaluation_config(approved) if f.kind == "node-pool")
    assert nodes.path == "nodes/interactive-development.yaml"
    assert nodes.documents[0].data["labels"]["ecomap.io/pool"] == "interactive-development"


@pytest.mark.django_db
def test_the_snapshots_kueue_release_is_weighed_against_the_generated_api_versions(approved):
    files = evaluation_config(approved)
    apis = {
        doc.data.get("apiVersion")
        for f in files
        if f.path == "kueue/cluster-queues.yaml"
        for doc in f.documents
    }
    if "kueue.x-k8s.io/v1beta2" not in apis:
        pytest.skip("the demo decision generates no v1beta2 Kueue objects")
    snapshot = parse_snapshot(
        {
            "format": "ecomap.cluster/v1",
            "cluster": "old-kueue",
            "nodes": {"items": []},
            "deployments": {
                "items": [
                    {
                        "metadata": {"name": "kueue-controller-manager", "namespace": "kueue"},
                        "spec": {
                            "template": {
                                "spec": {
                                    "containers": [
                                        {
                                            "name": "manager",
                                            "image": "registry.k8s.io/kueue/kueue:v0.10.1",
                                        }
                                    ]
                                }
                            }
                        },
                    }
                ]
            },
        }
    )

    drift = config_drift_of(snapshot, approved)

    warned = [d for d in drift.items if "not served by the installed kueue" in d.message]
    assert "kueue/cluster-queues.yaml" in {d.path for d in warned}
    assert all(d.severity == "warning" and "0.10.1" in d.message for d in warned)
