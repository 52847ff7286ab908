"""The generators on their own (no database): coverage of a HAMi pool's resources, quotas that
sum to the pool's capacity, MIG layouts NVIDIA documents, the Kueue API of the pinned version,
and hostile names refused rather than written."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from catalog.engine.profile import Profile
from evaluations.configgen.generate import generate
from evaluations.configgen.model import Chart, DecisionFacts, RowFacts
from evaluations.configgen.names import NameRefused
from evaluations.configgen.schemas import check_files

DATA = Path(__file__).resolve().parents[3] / "catalog" / "data"


def bundle_row(project: str, key: str) -> RowFacts:
    """A row as the built-in catalog bundle states it (the generator's real input)."""
    bundle = yaml.safe_load((DATA / f"{project}.yaml").read_text())
    for entry in bundle["projects"]:
        for row in entry["placements"]:
            if row["key"] == key:
                return RowFacts(
                    ref=f"{project}/{key}",
                    layer=row["layer"],
                    units=tuple(row.get("resource_units") or ()),
                    provides=tuple(row.get("provides") or ()),
                    version=str(row.get("project_version") or ""),
                    chart=Chart.of(row.get("config")),
                )
    raise LookupError(f"{project}/{key}")


def hami_decision(**profile) -> DecisionFacts:
    rows = (
        bundle_row("nvidia-gpu-operator", "clusterpolicy"),
        bundle_row("hami", "device-plugin"),
        bundle_row("hami", "scheduler-extender"),
        bundle_row("kueue", "controller"),
    )
    data = {
        "workload_types": ["online_inference"],
        "tenant_count": 3,
        "gpu_model": "A100 80GB",
        "node_count": 2,
        "gpus_per_node": 8,
        **profile,
    }
    return DecisionFacts(evaluation_id=41, rows=rows, profile=Profile.from_dict(data))


def documents(files, path):
    file = next(f for f in files if f.path == path)
    return list(yaml.safe_load_all(file.content))


def test_every_generated_file_parses_and_validates():
    files = generate(hami_decision())

    assert check_files(files) == []
    assert {f.path for f in files} == {
        "nodes/shared.yaml",
        "gpu-operator/values.yaml",
        "hami/values.yaml",
        "kueue/resource-flavors.yaml",
        "kueue/cluster-queues.yaml",
        "kueue/local-queues.yaml",
        "kueue/values.yaml",  # pods asking for CPU and memory are admitted (issue 39)
        *(f"examples/tenant-{n}.yaml" for n in (1, 2, 3)),  # how work enters (issue 39)
        "install.sh",
    }


def test_cluster_queues_cover_every_resource_hami_advertises():
    # HAMi's documented resource names for NVIDIA GPUs (charts/hami/values.yaml v2.10.0, lines
    # 25-28: resourceName, resourceMem, resourceMemPercentage, resourceCores; and the README's
    # "nvidia.com/gpumem" example). A ClusterQueue missing one leaves pods requesting it pending.
    hami_resources = {
        "nvidia.com/gpu",
        "nvidia.com/gpumem",
        "nvidia.com/gpumem-percentage",
        "nvidia.com/gpucores",
    }
    queues = documents(generate(hami_decision()), "kueue/cluster-queues.yaml")

    assert [q["metadata"]["name"] for q in queues] == ["tenant-1", "tenant-2", "tenant-3"]
    for queue in queues:
        group = queue["spec"]["resourceGroups"][0]
        assert hami_resources <= set(group["coveredResources"])
        for flavor in group["flavors"]:
            assert [r["name"] for r in flavor["resources"]] == group["coveredResources"]


def test_quotas_sum_to_the_pools_capacity():
    # 2 nodes x 8 GPUs = 16 A100 80GB. HAMi (chart v2.10.0 defaults) shows deviceSplitCount = 10
    # nvidia.com/gpu per GPU, the GPU's memory in MiB as nvidia.com/gpumem (80 GB = 81920 MiB,
    # deviceMemoryScaling 1) and 100 per GPU as gpucores and gpumem-percentage.
    expected = {
        "nvidia.com/gpu": 16 * 10,
        "nvidia.com/gpumem": 16 * 81920,
        "nvidia.com/gpucores": 16 * 100,
        "nvidia.com/gpumem-percentage": 16 * 100,
    }
    queues = documents(generate(hami_decision()), "kueue/cluster-queues.yaml")

    totals: dict[str, int] = {}
    for queue in queues:
        for resource in queue["spec"]["resourceGroups"][0]["flavors"][0]["resources"]:
            totals[resource["name"]] = totals.get(resource["name"], 0) + resource["nominalQuota"]
    assert totals == expected
    assert all(
        r["nominalQuota"] > 0
        for q in queues
        for r in q["spec"]["resourceGroups"][0]["flavors"][0]["resources"]
    )


def test_kueue_api_follows_the_pinned_version():
    # Kueue v0.19.2 serves v1beta1 and v1beta2 and stores v1beta2 (its CRD); v1beta2 renamed
    # spec.cohort to spec.cohortName (Kueue docs, "Cohort"). A Kueue row without the v1beta2
    # CRD (an older pin) gets v1beta1.
    files = generate(hami_decision())
    queue = documents(files, "kueue/cluster-queues.yaml")[0]
    assert queue["apiVersion"] == "kueue.x-k8s.io/v1beta2"
    assert queue["spec"]["cohortName"] == "evaluation-41"

    older = hami_decision()
    rows = tuple(
        RowFacts(r.ref, r.layer, r.units, tuple(p for p in r.provides if "v1beta2" not in p))
        if r.project == "kueue"
        else r
        for r in older.rows
    )
    files = generate(DecisionFacts(41, rows, older.profile))
    queue = documents(files, "kueue/cluster-queues.yaml")[0]
    assert queue["apiVersion"] == "kueue.x-k8s.io/v1beta1"
    assert queue["spec"]["cohort"] == "evaluation-41"
    assert check_files(files) == []


def test_values_say_where_they_come_from():
    files = generate(hami_decision())
    queues = next(f for f in files if f.path == "kueue/cluster-queues.yaml").content

    assert "the decision of evaluation 41" in queues
    assert "row kueue/controller v0.19.2" in queues
    # tenant-1's quota line names the capacity figure it is a share of
    assert "of pool shared's 16 GPUs (capacity sizing) of 160" in queues


def test_mig_pool_gets_layouts_nvidia_documents_for_the_gpu():
    # NVIDIA MIG User Guide, A100 80GB profiles; one GPU has 7 compute slices.
    a100_80gb = {"1g.10gb": 1, "1g.20gb": 1, "2g.20gb": 2, "3g.40gb": 3, "4g.40gb": 4, "7g.80gb": 7}
    rows = (
        bundle_row("nvidia-device-plugin", "mig-mixed"),
        bundle_row("nvidia-mig", "mig-manager"),
        bundle_row("nvidia-gpu-operator", "clusterpolicy"),
        bundle_row("kueue", "controller"),
    )
    profile = Profile.from_dict(
        {
            "workload_types": ["training", "online_inference"],
            "tenant_count": 2,
            "gpu_model": "A100 80GB",
            "node_count": 3,
        }
    )
    files = generate(DecisionFacts(7, rows, profile))

    assert check_files(files) == []
    configs = documents(files, "mig-parted/config.yaml")[0]["mig-configs"]
    assert configs["all-disabled"] == [{"devices": "all", "mig-enabled": False}]
    layouts = [c[0]["mig-devices"] for name, c in configs.items() if name != "all-disabled"]
    assert layouts
    for layout in layouts:
        assert set(layout) <= set(a100_80gb)
        assert sum(a100_80gb[p] * n for p, n in layout.items()) <= 7
    # the queues cover each MIG profile the nodes will present
    covered = documents(files, "kueue/cluster-queues.yaml")[0]["spec"]["resourceGroups"][0]
    for layout in layouts:
        assert {f"nvidia.com/mig-{p}" for p in layout} <= set(covered["coveredResources"])
    values = documents(files, "gpu-operator/values.yaml")[0]
    assert values["mig"] == {"strategy": "mixed"}


def test_time_slicing_pool_gets_the_device_plugins_sharing_config():
    rows = (
        bundle_row("nvidia-device-plugin", "time-slicing"),
        bundle_row("kueue", "controller"),
    )
    files = generate(DecisionFacts(9, rows, Profile.from_dict({"workload_types": ["interactive"]})))

    assert check_files(files) == []
    config = documents(files, "nvidia-device-plugin/shared.yaml")[0]
    # NVIDIA device plugin README, "Shared Access to GPUs with CUDA Time-Slicing"
    assert config["sharing"]["timeSlicing"]["resources"] == [
        {"name": "nvidia.com/gpu", "replicas": 4}
    ]
    nodes = next(f for f in files if f.path == "nodes/shared.yaml").content
    assert "ASSUMED: step 1 does not say how many GPU nodes" in nodes


HOSTILE = ["a: b\n- c", "../x", "x" * 300, "Tenant", "", "-a"]


@pytest.mark.parametrize("name", HOSTILE)
def test_hostile_tenant_name_is_refused_never_written(name):
    facts = hami_decision()
    facts = DecisionFacts(41, facts.rows, facts.profile, tenants=("tenant-1", name))

    with pytest.raises(NameRefused, match="tenant name .* cannot be a Kubernetes name"):
        generate(facts)


@pytest.mark.parametrize("name", HOSTILE)
def test_hostile_pool_name_is_refused_never_written(name):
    facts = hami_decision()
    pools = {name: ["hami/device-plugin"], "b": ["hami/scheduler-extender"]}

    with pytest.raises(NameRefused, match="pool name .* cannot be a Kubernetes name"):
        generate(DecisionFacts(41, facts.rows, facts.profile, pools=pools))


def test_a_refusal_says_why():
    facts = hami_decision()
    with pytest.raises(NameRefused) as caught:
        generate(DecisionFacts(41, facts.rows, facts.profile, tenants=("x" * 300,)))
    assert "longer than 63 characters" in str(caught.value)
    with pytest.raises(NameRefused) as caught:
        generate(DecisionFacts(41, facts.rows, facts.profile, tenants=("a: b\n- c",)))
    assert "only lower-case letters, digits and '-'" in str(caught.value)


def test_every_quota_has_a_comment_naming_its_capacity_figure():
    files = generate(hami_decision())
    file = next(f for f in files if f.path == "kueue/cluster-queues.yaml")

    for document in file.documents:
        quotas = [
            r["nominalQuota"]
            for flavor in document.data["spec"]["resourceGroups"][0]["flavors"]
            for r in flavor["resources"]
        ]
        noted = [(path, value, why) for path, value, why in document.why if "nominalQuota" in path]
        assert [value for _path, value, _why in noted] == quotas
        assert all("(capacity sizing)" in why and "GPUs" in why for _p, _v, why in noted)
