"""KAI Scheduler queues in the drift: the cluster's queues.scheduling.run.ai (snapshot list
`kaiqueues`, docs/cluster-snapshot.md) against kai-scheduler/queues.yaml.

KAI Scheduler v0.17.0 (docs/queues/README.md): a queue's `spec.resources.gpu.quota` is what its
tenant is guaranteed, `limit` caps it (-1: no limit), `overQuotaWeight` shares what is idle, and
`spec.parentQueue` is the queue whose quota it is part of. A missing queue or a queue without
quota is an error (the tenant's pods wait, or nothing is guaranteed); another figure is a
difference to look at."""

from __future__ import annotations

import copy

from catalog.engine.cluster import parse_snapshot
from evaluations.configgen.config_drift import config_drift
from evaluations.configgen.generate import generate
from evaluations.configgen.roundtrip import snapshot_of
from tests.evaluations.configgen.builtin import catalog_rows, signatures
from tests.evaluations.configgen.test_queues import decision

PATH = "kai-scheduler/queues.yaml"


def _setup():
    facts = decision("kai-scheduler/scheduler")
    files = generate(facts)
    return files, snapshot_of(facts, files, catalog_rows(), signatures())


def _drift(files, document) -> list[tuple[str, str]]:
    return [
        (item.severity, str(item.message))
        for item in config_drift(files, parse_snapshot(document))
        if item.path == PATH
    ]


def test_the_cluster_the_files_give_shows_no_kai_drift():
    files, document = _setup()

    # The parent queue and one per tenant (3) are in the projected cluster, all equal.
    assert len(document["kaiqueues"]["items"]) == 4
    assert _drift(files, document) == []


def test_a_missing_queue_a_queue_without_quota_and_another_figure_are_listed():
    files, document = _setup()
    queues = {q["metadata"]["name"]: q for q in document["kaiqueues"]["items"]}
    del queues["tenant-3"]
    document["kaiqueues"]["items"] = list(queues.values())
    queues["tenant-1"]["spec"]["resources"]["gpu"]["quota"] = 0
    queues["tenant-2"]["spec"]["resources"]["gpu"]["limit"] = 4
    generated_quota = next(
        d.data
        for d in files[[f.path for f in files].index(PATH)].documents
        if d.data["metadata"]["name"] == "tenant-1"
    )["spec"]["resources"]["gpu"]["quota"]

    items = _drift(files, document)

    assert ("error", "KAI queue tenant-3 is missing from the cluster.") in items
    assert (
        "error",
        f"KAI queue tenant-1 has no GPU quota (generated {generated_quota} GPUs): its tenant is "
        "guaranteed nothing.",
    ) in items
    assert (
        "warning",
        "KAI queue tenant-2: its GPU limit differs (generated -1, cluster 4).",
    ) in items
    assert len(items) == 3


def test_a_queue_under_another_parent_is_a_difference():
    files, document = _setup()
    queue = next(q for q in document["kaiqueues"]["items"] if q["metadata"]["name"] == "tenant-2")
    queue["spec"]["parentQueue"] = "default"

    items = _drift(files, document)

    assert items == [
        (
            "warning",
            "KAI queue tenant-2 has parent queue default, generated evaluation-52: its quota is "
            "shared under another parent.",
        )
    ]


def test_a_volcano_queue_of_the_same_name_is_not_a_kai_queue():
    files, document = _setup()
    volcano = copy.deepcopy(document["kaiqueues"]["items"])
    for queue in volcano:
        queue["apiVersion"] = "scheduling.volcano.sh/v1beta1"
    document["kaiqueues"]["items"] = volcano  # a hand-made file with the wrong group's queues

    items = _drift(files, document)

    assert len(items) == 4
    assert all(severity == "error" and "missing from the cluster" in m for severity, m in items)


def test_a_snapshot_without_kai_queues_says_they_were_not_compared():
    files, document = _setup()
    del document["kaiqueues"]

    items = [
        (i.severity, str(i.message), i.compared)
        for i in config_drift(files, parse_snapshot(document))
        if i.path == PATH
    ]

    assert items == [
        (
            "info",
            "The snapshot holds no KAI Scheduler queues (not collected): not compared.",
            False,
        )
    ]
