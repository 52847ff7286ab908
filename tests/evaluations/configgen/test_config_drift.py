"""Drift per generated file: a cluster set up as the files say shows no difference, and each
kind of difference (a queue that does not cover a resource or has no quota, a different quota,
a node's MIG configuration or geometry, the device plugin's strategy or replicas, pool labels
and taints) is listed under the file that sets it. Snapshots are built as kubectl prints them,
with the labels GFD v0.20.0 writes (internal/lm/strategy.go, internal/lm/resource.go)."""

from __future__ import annotations

from typing import Any

from catalog.engine.cluster import parse_snapshot
from catalog.engine.profile import Profile
from evaluations.configgen.config_drift import config_drift, quantity_value
from evaluations.configgen.generate import generate
from evaluations.configgen.model import DecisionFacts, GeneratedFile
from tests.evaluations.cluster_factories import GPUS_PER_NODE, snapshot_as_generated
from tests.evaluations.configgen.test_generate import bundle_row, hami_decision


def mig_decision() -> DecisionFacts:
    rows = (
        bundle_row("nvidia-device-plugin", "mig-mixed"),
        bundle_row("nvidia-mig", "mig-manager"),
        bundle_row("nvidia-gpu-operator", "clusterpolicy"),
        bundle_row("kueue", "controller"),
    )
    profile = Profile.from_dict(
        {
            "workload_types": ["training"],
            "tenant_count": 2,
            "gpu_model": "A100 80GB",
            "node_count": 2,
        }
    )
    return DecisionFacts(7, rows, profile)


def two_pool_decision() -> DecisionFacts:
    """A MIG pool and a whole-GPU pool: several pools, so each is tainted."""
    rows = (
        bundle_row("nvidia-device-plugin", "mig-mixed"),
        bundle_row("nvidia-device-plugin", "whole-gpu"),
        bundle_row("nvidia-mig", "mig-manager"),
        bundle_row("kueue", "controller"),
    )
    profile = Profile.from_dict(
        {
            "workload_types": ["training"],
            "tenant_count": 2,
            "gpu_model": "A100 80GB",
            "node_count": 4,
        }
    )
    pools = {
        "mig": ["nvidia-device-plugin/mig-mixed", "nvidia-mig/mig-manager"],
        "whole": ["nvidia-device-plugin/whole-gpu"],
    }
    return DecisionFacts(8, rows, profile, pools=pools)


def time_slicing_decision() -> DecisionFacts:
    rows = (bundle_row("nvidia-device-plugin", "time-slicing"), bundle_row("kueue", "controller"))
    profile = Profile.from_dict({"workload_types": ["interactive"], "node_count": 2})
    return DecisionFacts(9, rows, profile)


def drift(files, document) -> list[tuple[str, str, str]]:
    items = config_drift(files, parse_snapshot(document))
    return [(d.path, d.severity, str(d.message)) for d in items if d.severity != "info"]


def queue(document, name: str) -> dict[str, Any]:
    return next(q for q in document["clusterqueues"]["items"] if q["metadata"]["name"] == name)


def test_a_cluster_set_up_as_generated_shows_no_difference():
    for facts in (hami_decision(), mig_decision(), two_pool_decision(), time_slicing_decision()):
        files = generate(facts)
        assert drift(files, snapshot_as_generated(files)) == [], facts.name


def test_what_a_snapshot_cannot_show_is_said_once_per_file_not_guessed():
    files = generate(hami_decision())

    items = config_drift(files, parse_snapshot(snapshot_as_generated(files)))

    infos = {d.path for d in items if d.severity == "info"}
    assert {"hami/values.yaml", "kueue/resource-flavors.yaml", "kueue/local-queues.yaml"} <= infos


def test_a_cluster_queue_that_does_not_cover_hamis_memory_is_an_error_of_the_queues_file():
    files = generate(hami_decision())
    document = snapshot_as_generated(files)
    group = queue(document, "tenant-1")["spec"]["resourceGroups"][0]
    group["coveredResources"].remove("nvidia.com/gpumem")
    for flavor in group["flavors"]:
        flavor["resources"] = [r for r in flavor["resources"] if r["name"] != "nvidia.com/gpumem"]

    assert drift(files, document) == [
        (
            "kueue/cluster-queues.yaml",
            "error",
            "ClusterQueue tenant-1 does not cover nvidia.com/gpumem.",
        )
    ]


def test_a_missing_cluster_queue_is_an_error():
    files = generate(hami_decision())
    document = snapshot_as_generated(files)
    document["clusterqueues"]["items"] = [
        q for q in document["clusterqueues"]["items"] if q["metadata"]["name"] != "tenant-3"
    ]

    assert drift(files, document) == [
        ("kueue/cluster-queues.yaml", "error", "ClusterQueue tenant-3 is missing from the cluster.")
    ]


def test_no_quota_is_an_error_and_another_quota_a_warning_with_both_numbers():
    files = generate(hami_decision())
    document = snapshot_as_generated(files)
    resources = queue(document, "tenant-2")["spec"]["resourceGroups"][0]["flavors"][0]["resources"]
    gpu = next(r for r in resources if r["name"] == "nvidia.com/gpu")
    cores = next(r for r in resources if r["name"] == "nvidia.com/gpucores")
    generated_gpu, generated_cores = gpu["nominalQuota"], cores["nominalQuota"]
    gpu["nominalQuota"] = 0
    cores["nominalQuota"] = str(generated_cores // 2)

    assert drift(files, document) == [
        (
            "kueue/cluster-queues.yaml",
            "error",
            "ClusterQueue tenant-2 has no quota for nvidia.com/gpu in flavor shared "
            f"(generated {generated_gpu}).",
        ),
        (
            "kueue/cluster-queues.yaml",
            "warning",
            "ClusterQueue tenant-2: the quota of nvidia.com/gpucores in flavor shared differs "
            f"(generated {generated_cores}, cluster {generated_cores // 2}).",
        ),
    ]


def test_a_node_left_at_another_mig_configuration_is_a_difference_of_its_pool_file():
    files = generate(mig_decision())
    document = snapshot_as_generated(files)
    node = document["nodes"]["items"][0]
    generated = node["metadata"]["labels"]["nvidia.com/mig.config"]
    node["metadata"]["labels"]["nvidia.com/mig.config"] = "all-1g.10gb"
    # all-1g.10gb on an A100 80GB: seven 1g.10gb per GPU (mig-parted's default config).
    for name in [r for r in node["status"]["allocatable"] if r.startswith("nvidia.com/mig-")]:
        del node["status"]["allocatable"][name]
    node["status"]["allocatable"]["nvidia.com/mig-1g.10gb"] = str(7 * GPUS_PER_NODE)
    name = node["metadata"]["name"]

    found = drift(files, document)

    pool_file = f"nodes/{node['metadata']['labels']['ecomap.io/pool']}.yaml"
    assert (
        pool_file,
        "warning",
        f"nvidia.com/mig.config is all-1g.10gb on node {name}; generated {generated}.",
    ) in found
    [geometry] = [item for item in found if item[0] == "mig-parted/config.yaml"]
    assert geometry[1] == "warning"
    assert (
        f"MIG devices on node {name}: 1g.10gb x56; MIG configuration {generated} gives"
        in geometry[2]
    )


def test_whole_gpus_on_a_mig_node_are_a_geometry_difference():
    files = generate(mig_decision())
    document = snapshot_as_generated(files)
    node = document["nodes"]["items"][-1]
    node["status"]["allocatable"] = {"cpu": "96", "nvidia.com/gpu": str(GPUS_PER_NODE)}

    [(path, severity, message)] = drift(files, document)

    assert (path, severity) == ("mig-parted/config.yaml", "warning")
    assert message.startswith(f"MIG devices on node {node['metadata']['name']}: whole GPUs;")


def test_the_device_plugins_strategy_and_replicas_are_compared_where_gfd_shows_them():
    files = generate(time_slicing_decision())
    document = snapshot_as_generated(files)
    first, second = document["nodes"]["items"]
    first["metadata"]["labels"]["nvidia.com/gpu.replicas"] = "2"
    second["metadata"]["labels"]["nvidia.com/mig.strategy"] = "single"

    assert drift(files, document) == [
        (
            "nvidia-device-plugin/shared.yaml",
            "warning",
            f"replicas differs on node {first['metadata']['name']}: "
            "nvidia.com/gpu.replicas is 2, generated 4.",
        ),
        (
            "nvidia-device-plugin/shared.yaml",
            "warning",
            f"migStrategy differs on node {second['metadata']['name']}: "
            "nvidia.com/mig.strategy is single, generated none.",
        ),
    ]


def test_pool_labels_and_taints_missing_on_nodes_are_listed_once_for_all_those_nodes():
    files = generate(two_pool_decision())
    document = snapshot_as_generated(files)
    nodes = [
        n
        for n in document["nodes"]["items"]
        if n["metadata"]["labels"]["ecomap.io/pool"] == "whole"
    ]
    for node in nodes:
        del node["metadata"]["labels"]["nvidia.com/device-plugin.config"]
        node["spec"]["taints"] = []
    names = ", ".join(n["metadata"]["name"] for n in nodes)

    assert drift(files, document) == [
        (
            "nodes/whole.yaml",
            "warning",
            f"Label nvidia.com/device-plugin.config=whole is missing on nodes {names}.",
        ),
        (
            "nodes/whole.yaml",
            "warning",
            f"Taint ecomap.io/pool=whole:NoSchedule is missing on nodes {names}.",
        ),
    ]


def test_a_pool_no_node_is_labelled_with_is_said_for_that_pool():
    files = generate(mig_decision())
    document = snapshot_as_generated(files)
    pool = document["nodes"]["items"][0]["metadata"]["labels"]["ecomap.io/pool"]
    document["nodes"]["items"] = [
        n for n in document["nodes"]["items"] if n["metadata"]["labels"]["ecomap.io/pool"] != pool
    ]

    assert (
        f"nodes/{pool}.yaml",
        "warning",
        f"No node carries ecomap.io/pool={pool}: the pool's labels and taints are not applied.",
    ) in drift(files, document)


def test_kubernetes_quantities_compare_as_numbers():
    assert quantity_value("40") == quantity_value(40)
    assert quantity_value("1Ki") == 1024
    assert quantity_value("500m") * 2 == 1
    assert quantity_value("lots") is None


def test_a_kind_of_file_the_comparison_does_not_know_is_said_not_to_be_compared():
    files = generate(hami_decision())
    newer = GeneratedFile("future/objects.yaml", "future-kind", [])

    items = config_drift([*files, newer], parse_snapshot(snapshot_as_generated(files)))

    [said] = [item for item in items if item.path == "future/objects.yaml"]
    assert (said.severity, said.compared) == ("info", False)
    assert str(said.message) == "EcoMap does not compare this file with a snapshot yet."
