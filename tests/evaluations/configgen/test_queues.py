"""Volcano Queues and KAI Scheduler Queues from a decision: the API each release serves, every
resource the pools present under quota, and tenants' shares that add up to the pools' capacity.

Sources (at the releases the catalog pins):
- Volcano v1.15.1 Queue CRD, scheduling.volcano.sh/v1beta1, cluster-scoped, spec.capability,
  spec.deserved, spec.guarantee.resource, spec.weight (1..65535), spec.reclaimable
  https://github.com/volcano-sh/volcano/blob/v1.15.1/config/crd/volcano/bases/scheduling.volcano.sh_queues.yaml
  and its admission webhook: guarantee <= deserved <= capability
  https://github.com/volcano-sh/volcano/blob/v1.15.1/pkg/webhooks/admission/queues/validate/validate_queue.go#L226-L290
- KAI Scheduler v0.17.0 Queue, scheduling.run.ai/v2, spec.parentQueue, spec.resources.{gpu,cpu,
  memory}.{quota,overQuotaWeight,limit}; only leaf queues take jobs; pods name their queue with
  the label kai.scheduler/queue
  https://github.com/kai-scheduler/KAI-Scheduler/blob/v0.17.0/docs/queues/README.md
  https://github.com/kai-scheduler/KAI-Scheduler/blob/v0.17.0/docs/quickstart/README.md#L29-L33
"""

from __future__ import annotations

import pytest
import yaml

from catalog.engine.profile import Profile
from evaluations.configgen.generate import generate
from evaluations.configgen.model import DecisionFacts
from evaluations.configgen.schemas import check_files
from tests.evaluations.configgen.catalog_rows import bundle_row

# 2 nodes x 8 A100 80GB = 16 GPUs, whole GPUs from NVIDIA's device plugin (nvidia.com/gpu).
GPUS = 16
PROFILE = {
    "workload_types": ["training"],
    "tenant_count": 3,
    "gpu_model": "A100 80GB",
    "node_count": 2,
    "gpus_per_node": 8,
}


def decision(scheduler: str, pools: dict | None = None, **profile) -> DecisionFacts:
    rows = tuple(
        bundle_row(ref)
        for ref in (
            "nvidia-gpu-operator/clusterpolicy",
            "nvidia-device-plugin/whole-gpu",
            scheduler,
        )
    )
    return DecisionFacts(
        evaluation_id=52,
        rows=rows,
        profile=Profile.from_dict({**PROFILE, **profile}),
        pools=pools or {},
    )


def documents(files, path):
    file = next(f for f in files if f.path == path)
    return list(yaml.safe_load_all(file.content))


def content(files, path):
    return next(f for f in files if f.path == path).content


# ---- Volcano ------------------------------------------------------------------------------------


def test_volcano_decision_gives_one_cluster_scoped_queue_per_tenant_that_validates():
    files = generate(decision("volcano/scheduler"))

    assert check_files(files) == []
    queues = documents(files, "volcano/queues.yaml")
    ours = {"app.kubernetes.io/managed-by": "ecomap"}  # install.sh may remove it later
    assert [q["metadata"] for q in queues] == [
        {"name": "tenant-1", "labels": ours},
        {"name": "tenant-2", "labels": ours},
        {"name": "tenant-3", "labels": ours},
    ]  # cluster-scoped: no namespace
    assert {q["apiVersion"] for q in queues} == {"scheduling.volcano.sh/v1beta1"}
    assert {q["kind"] for q in queues} == {"Queue"}


def test_volcano_deserved_shares_sum_to_the_pools_capacity_and_stay_within_the_webhooks_order():
    queues = documents(generate(decision("volcano/scheduler")), "volcano/queues.yaml")

    assert sum(q["spec"]["deserved"]["nvidia.com/gpu"] for q in queues) == GPUS
    for queue in queues:
        spec = queue["spec"]
        for resource in ("nvidia.com/gpu",):  # every resource the pool presents
            assert resource in spec["capability"]
            assert resource in spec["deserved"]
            assert resource in spec["guarantee"]["resource"]
            assert (
                spec["guarantee"]["resource"][resource]
                <= spec["deserved"][resource]
                <= spec["capability"][resource]
                <= GPUS
            )
        assert 1 <= spec["weight"] <= 65535
        assert spec["reclaimable"] is True


def test_volcano_queues_cover_every_pool_and_sum_per_resource_across_pools():
    pools = {
        "train": ["nvidia-device-plugin/whole-gpu"],
        "serve": ["nvidia-device-plugin/whole-gpu"],
    }
    files = generate(decision("volcano/scheduler", pools=pools))

    assert check_files(files) == []
    queues = documents(files, "volcano/queues.yaml")
    # Volcano queues are cluster-wide: the two pools' GPUs together are what the tenants share.
    assert sum(q["spec"]["deserved"]["nvidia.com/gpu"] for q in queues) == GPUS


def test_volcano_file_says_how_workloads_pick_their_queue():
    text = content(generate(decision("volcano/scheduler")), "volcano/queues.yaml")

    assert "scheduling.volcano.sh/queue-name" in text  # a plain pod's annotation
    assert "spec.queue" in text  # a Volcano Job's or PodGroup's field
    assert "schedulerName: volcano" in text
    assert "row volcano/scheduler v1.15.1" in text


def test_no_volcano_file_without_volcano():
    files = generate(decision("kai-scheduler/scheduler"))
    assert not any(f.path.startswith("volcano/") for f in files)


# ---- KAI Scheduler ------------------------------------------------------------------------------


def test_kai_decision_gives_a_parent_queue_and_a_child_queue_per_tenant():
    files = generate(decision("kai-scheduler/scheduler"))

    assert check_files(files) == []
    queues = documents(files, "kai-scheduler/queues.yaml")
    assert {q["apiVersion"] for q in queues} == {"scheduling.run.ai/v2"}
    assert {q["kind"] for q in queues} == {"Queue"}
    parents = [q for q in queues if "parentQueue" not in q["spec"]]
    children = [q for q in queues if "parentQueue" in q["spec"]]
    assert len(parents) == 1
    parent = parents[0]["metadata"]["name"]
    assert [q["metadata"]["name"] for q in children] == ["tenant-1", "tenant-2", "tenant-3"]
    assert all(q["spec"]["parentQueue"] == parent for q in children)
    assert all("namespace" not in q["metadata"] for q in queues)  # cluster-scoped


def test_kai_gpu_quotas_are_gpus_and_sum_to_the_pools_gpus():
    queues = documents(generate(decision("kai-scheduler/scheduler")), "kai-scheduler/queues.yaml")
    parent = next(q for q in queues if "parentQueue" not in q["spec"])
    children = [q for q in queues if "parentQueue" in q["spec"]]

    assert sum(q["spec"]["resources"]["gpu"]["quota"] for q in children) == GPUS
    assert parent["spec"]["resources"]["gpu"]["quota"] == GPUS
    for queue in queues:
        resources = queue["spec"]["resources"]
        assert set(resources) <= {"gpu", "cpu", "memory"}
        for quota in resources.values():
            assert set(quota) == {"quota", "overQuotaWeight", "limit"}
            # limit -1 is "no limit"; 0 or unset would allow nothing over quota
            assert quota["limit"] == -1 or quota["limit"] >= quota["quota"]


def test_kai_file_says_how_pods_pick_their_queue():
    text = content(generate(decision("kai-scheduler/scheduler")), "kai-scheduler/queues.yaml")

    assert "kai.scheduler/queue" in text
    assert "schedulerName: kai-scheduler" in text
    assert "row kai-scheduler/scheduler v0.17.0" in text


@pytest.mark.parametrize("scheduler", ["volcano/scheduler", "kai-scheduler/scheduler"])
def test_every_queue_quota_names_the_capacity_figure_it_is_a_share_of(scheduler):
    files = generate(decision(scheduler))
    file = next(f for f in files if f.path.endswith("/queues.yaml"))

    for document in file.documents:
        notes = [why for path, _value, why in document.why if "gpu" in path]
        assert notes
        assert any("capacity sizing" in why for why in notes)


def test_the_check_refuses_what_volcanos_webhook_refuses():
    files = generate(decision("volcano/scheduler"))
    file = next(f for f in files if f.path == "volcano/queues.yaml")
    first, second = (document.data["spec"] for document in file.documents[:2])
    first["guarantee"]["resource"]["nvidia.com/gpu"] = first["deserved"]["nvidia.com/gpu"] + 1
    second["deserved"]["nvidia.com/gpu"] = second["capability"]["nvidia.com/gpu"] + 1

    problems = check_files([file])

    assert any("guarantee of nvidia.com/gpu" in p for p in problems)
    assert any("deserved of nvidia.com/gpu" in p and "exceeds capability" in p for p in problems)


def test_the_check_refuses_a_kai_queue_with_a_field_the_api_does_not_have():
    files = generate(decision("kai-scheduler/scheduler"))
    file = next(f for f in files if f.path == "kai-scheduler/queues.yaml")
    file.documents[1].data["spec"]["resources"]["gpu"]["deserved"] = 1  # Volcano's word

    assert check_files([file])


def test_amd_whole_gpus_are_shared_out_like_nvidias():
    # ROCm k8s-device-plugin v1.31.0.10 README: each AMD GPU of a node is one amd.com/gpu
    # https://github.com/ROCm/k8s-device-plugin/blob/v1.31.0.10/README.md
    rows = (bundle_row("amd-gpu-device-plugin/whole-gpu"), bundle_row("volcano/scheduler"))
    facts = DecisionFacts(52, rows, Profile.from_dict({**PROFILE, "gpu_model": "MI300X"}))
    files = generate(facts)

    assert check_files(files) == []
    queues = documents(files, "volcano/queues.yaml")
    assert sum(q["spec"]["deserved"]["amd.com/gpu"] for q in queues) == GPUS
    assert {q["spec"]["capability"]["amd.com/gpu"] for q in queues} == {GPUS}


def test_a_resource_whose_capacity_nothing_gives_is_left_uncapped_not_capped_at_zero():
    # Time-slicing keeps the name nvidia.com/gpu by default (renameByDefault false, device
    # plugin v0.20.0 README); the row also advertises nvidia.com/gpu.shared, whose count nothing
    # in the decision gives. Volcano treats a resource absent from spec.capability as
    # unrestricted (validate_queue.go#L271-L276 at v1.15.1); a capability of 0 would hold every
    # pod that asks for it.
    rows = (bundle_row("nvidia-device-plugin/time-slicing"), bundle_row("volcano/scheduler"))
    facts = DecisionFacts(52, rows, Profile.from_dict(PROFILE))
    files = generate(facts)

    assert check_files(files) == []
    for queue in documents(files, "volcano/queues.yaml"):
        assert "nvidia.com/gpu.shared" not in queue["spec"].get("capability", {})
        assert "nvidia.com/gpu.shared" in queue["spec"]["deserved"]
        assert queue["spec"]["capability"]["nvidia.com/gpu"] > 0


def test_an_ascend_pool_caps_the_resource_of_its_npu_model():
    # The Ascend device plugin presents one resource name per NPU model (huawei.com/Ascend910
    # for the 910 series); the pool's NPUs are that resource, the other names are not on its
    # nodes.
    rows = (bundle_row("ascend-device-plugin/whole-npu"), bundle_row("volcano/scheduler"))
    facts = DecisionFacts(52, rows, Profile.from_dict({**PROFILE, "gpu_model": "Ascend 910B"}))
    files = generate(facts)

    assert check_files(files) == []
    queues = documents(files, "volcano/queues.yaml")
    assert {q["spec"]["capability"]["huawei.com/Ascend910"] for q in queues} == {GPUS}
    assert sum(q["spec"]["deserved"]["huawei.com/Ascend910"] for q in queues) == GPUS


def test_volcano_puts_dra_gpus_under_quota_by_device_class():
    # Volcano v1.15.1 DeviceClass quota: the queue key deviceclass/<DeviceClass> counts devices
    # (docs/user-guide/how_to_use_dra_quota.md#L60-L70); NVIDIA's DRA driver publishes each GPU
    # as a device of class gpu.nvidia.com (its chart v0.4.1, templates/deviceclass-gpu.yaml).
    rows = (
        bundle_row("nvidia-dra-driver-gpu/gpu-kubelet-plugin"),
        bundle_row("kubernetes-dra/core-allocation"),
        bundle_row("volcano/scheduler"),
    )
    facts = DecisionFacts(52, rows, Profile.from_dict({**PROFILE, "kubernetes_version": "1.34"}))
    files = generate(facts)

    assert check_files(files) == []
    queues = documents(files, "volcano/queues.yaml")
    key = "deviceclass/gpu.nvidia.com"
    assert sum(q["spec"]["deserved"][key] for q in queues) == GPUS
    assert {q["spec"]["capability"][key] for q in queues} == {GPUS}
    assert all(key in q["spec"]["guarantee"]["resource"] for q in queues)
