"""One device plugin DaemonSet, a different mode on each node pool: the GPU Operator runs one
nvidia-device-plugin-daemonset on every GPU node, and the per-node configuration (the node label
`nvidia.com/device-plugin.config` picks a named config of the plugin's ConfigMap, k8s-device-plugin
v0.20.0 README.md#L819-L845; `nvidia.com/mig.config` picks the MIG geometry, GPU Operator v26.7.0
nodelabeling_controller.go#L306-L316) makes it whole-GPU on one pool and MIG or time-slicing on
another. Each mode is found on the pool whose nodes show it, with the same DaemonSet.

Node labels as GFD v0.20.0 writes them (tests/catalog/engine/cluster/test_mig_disabled_detection.py
cites the lines): the MIG strategy label on every node; the mixed strategy's resources
`nvidia.com/mig-<profile>` (internal/rm/rm.go#L140-L146); under time-slicing with renaming,
`nvidia.com/gpu.shared` (README.md#L432-L452), `nvidia.com/gpu.sharing-strategy=time-slicing`
(README.md#L630) and a `-SHARED` product (internal/lm/resource.go#L159-L203).
"""

from __future__ import annotations

from typing import Any

from catalog.engine.cluster import Decided
from tests.catalog.engine.cluster.test_cluster_checks import check, found
from tests.catalog.engine.cluster.test_mig_disabled_detection import (
    PRODUCT,
    gfd_whole_gpu_labels,
    operator_node,
    operator_snapshot,
)

WHOLE = "nvidia-device-plugin/whole-gpu"
MIXED = "nvidia-device-plugin/mig-mixed"
SLICED = "nvidia-device-plugin/time-slicing"
DAEMONSET = "DaemonSet gpu-operator/nvidia-device-plugin-daemonset"


def whole_gpu_node(name: str) -> dict[str, Any]:
    """MIG left disabled by the operator's default, GFD still naming the cluster's strategy."""
    labels = {
        **gfd_whole_gpu_labels(),
        "pool": "train",
        "nvidia.com/device-plugin.config": "train",
        "nvidia.com/mig.config": "all-disabled",
        "nvidia.com/mig.strategy": "mixed",
    }
    return operator_node(name, labels, 8)


def mig_mixed_node(name: str) -> dict[str, Any]:
    labels = {
        **gfd_whole_gpu_labels(),
        "pool": "serve",
        "nvidia.com/device-plugin.config": "serve",
        "nvidia.com/mig.config": "all-balanced",
        "nvidia.com/mig.strategy": "mixed",
    }
    node = operator_node(name, labels, 0)
    node["status"]["allocatable"] = {
        "cpu": "96",
        "memory": "1Ti",
        "nvidia.com/mig-1g.10gb": "16",
        "nvidia.com/mig-3g.40gb": "8",
    }
    return node


def time_sliced_node(name: str) -> dict[str, Any]:
    labels = {
        **gfd_whole_gpu_labels(),
        "pool": "notebooks",
        "nvidia.com/device-plugin.config": "notebooks",
        "nvidia.com/mig.config": "all-disabled",
        "nvidia.com/gpu.product": f"{PRODUCT}-SHARED",
        "nvidia.com/gpu.replicas": "4",
        "nvidia.com/gpu.sharing-strategy": "time-slicing",
    }
    node = operator_node(name, labels, 0)
    node["status"]["allocatable"] = {"cpu": "96", "memory": "1Ti", "nvidia.com/gpu.shared": "32"}
    return node


def two_pools() -> dict[str, Any]:
    return operator_snapshot(
        [whole_gpu_node("train-1"), whole_gpu_node("train-2"), mig_mixed_node("serve-1")]
    )


def by_row(report) -> dict[str, Any]:
    return {d.row: d for d in report.detected}


def test_one_daemonset_is_whole_gpu_on_one_pool_and_mig_mixed_on_the_other():
    found_ = by_row(check(two_pools()))

    assert found_[WHOLE].nodes == ("train-1", "train-2")
    assert found_[MIXED].nodes == ("serve-1",)
    assert found_[WHOLE].objects == found_[MIXED].objects == (DAEMONSET,)
    assert set(found_[WHOLE].pools).isdisjoint(found_[MIXED].pools)


def test_each_mode_is_found_by_what_its_own_pool_shows():
    found_ = by_row(check(two_pools()))

    assert "extended resource nvidia.com/mig-*" in found_[MIXED].matched
    assert "extended resource nvidia.com/mig-*" not in found_[WHOLE].matched
    assert "extended resource nvidia.com/gpu" in found_[WHOLE].matched


def test_a_decision_of_one_mode_per_pool_reads_as_deployed_where_decided():
    # the operator runs its MIG manager on every MIG-capable node, so it is decided for no pool
    decision = Decided(
        rows=(WHOLE, MIXED, "nvidia-mig/mig-manager"),
        pools={"train": (WHOLE,), "serve": (MIXED,)},
    )

    report = check(two_pools(), decision=decision)

    assert not found(report, "decided-row-absent")
    assert not found(report, "pool-row-unexpected")
    assert not found(report, "pool-row-missing")
    assert not found(report, "pool-not-found")


def test_two_modes_of_one_daemonset_on_disjoint_pools_do_not_conflict():
    report = check(two_pools())

    assert {WHOLE, MIXED} <= set(by_row(report))
    assert not found(report, "exclusive-token-shared")


def test_time_slicing_on_one_pool_and_whole_gpus_on_another_are_both_found():
    snapshot = operator_snapshot([whole_gpu_node("train-1"), time_sliced_node("nb-1")])

    found_ = by_row(check(snapshot))

    assert found_[WHOLE].nodes == ("train-1",)
    assert found_[SLICED].nodes == ("nb-1",)


def test_a_node_of_a_decided_mig_pool_left_whole_is_a_difference_of_that_pool():
    # serve-2 carries the serve pool's label, but MIG Manager left it at all-disabled: its GPUs
    # are presented whole, so the serve pool runs the whole-GPU mode decided for train only.
    unpartitioned = whole_gpu_node("serve-2")
    unpartitioned["metadata"]["labels"]["pool"] = "serve"
    decision = Decided(
        rows=(WHOLE, MIXED, "nvidia-mig/mig-manager"),
        pools={"train": (WHOLE,), "serve": (MIXED,)},
    )

    report = check(
        operator_snapshot([*two_pools()["nodes"]["items"], unpartitioned]), decision=decision
    )

    [unexpected] = found(report, "pool-row-unexpected")
    assert (unexpected.rows, unexpected.nodes) == ((WHOLE,), ("serve-2",))
    [missing] = found(report, "pool-row-missing")
    assert (missing.rows, missing.nodes) == ((MIXED,), ("serve-2",))


def test_nodes_labelled_by_ecomaps_node_pool_files_form_the_decided_pools():
    # docs/configgen.md: nodes/<pool>.yaml labels each decided pool's nodes ecomap.io/pool=<pool>
    nodes = [whole_gpu_node("a-1"), whole_gpu_node("b-1")]
    for node, pool in zip(nodes, ("inference", "training"), strict=True):
        del node["metadata"]["labels"]["pool"]
        node["metadata"]["labels"]["ecomap.io/pool"] = pool

    pools = check(operator_snapshot(nodes)).pools

    assert [(p.name, p.nodes) for p in pools] == [
        (f"inference ({PRODUCT})", ("a-1",)),
        (f"training ({PRODUCT})", ("b-1",)),
    ]
