"""AMD partitions from a decision: a Device Config Manager profile per partitioned pool, the node
label that selects it, the AMD GPU Operator DeviceConfig that starts the device plugin with the
mixed naming strategy, and the amd.com/<compute>_<memory> capacities quotas cover.

Expected values come from AMD's documentation at the catalog's pinned releases:
- DCM ConfigMap `config.json`: `gpu-config-profiles.<name>.profiles[]` with `computePartition`,
  `memoryPartition`, `numGPUsAssigned` (the sum over a profile is the node's GPUs), NPS4 only
  with CPX; the profile is chosen by the node label `dcm.amd.com/gpu-config-profile`
  https://github.com/ROCm/gpu-operator/blob/v1.5.1/docs/dcm/device-config-manager-configmap.md#L132-L138
  https://github.com/ROCm/gpu-operator/blob/v1.5.1/docs/dcm/applying-partition-profiles.rst
- DeviceConfig (amd.com/v1alpha1) `spec.configManager.enable`, `.config.name`,
  `spec.devicePlugin.devicePluginArguments.resource_naming_strategy` single|mixed
  https://github.com/ROCm/gpu-operator/blob/v1.5.1/api/v1alpha1/deviceconfig_types.go
  https://github.com/ROCm/gpu-operator/blob/v1.5.1/docs/device_plugin/device-plugin.md
- mixed naming: 8 GPUs partitioned CPX-NPS4 report `amd.com/cpx_nps4: 64`
  https://github.com/ROCm/k8s-device-plugin/blob/v1.31.0.10/docs/user-guide/configuration.md#L183-L199
- logical GPUs per GPU and the compute-memory pairs per model: catalog/data/facts/gpus.yaml,
  which cites them. MI300X CPX + NPS4 (AMD GPU partitioning compatibility matrix,
  https://instinct.docs.amd.com/projects/amdgpu-docs/en/latest/gpu-partitioning/index.html);
  MI325X and MI355X: 8 logical GPUs per GPU in CPX (https://aac.amd.com/help/bare-metal/gpu-partitioning/),
  CPX under NPS4 on MI325X and under NPS1 on MI355X (ROCm Compute Profiler's spec file,
  https://github.com/ROCm/rocm-systems/blob/1b1610fc2b2ab32af71e6e04e4d4a6a4ae597992/projects/rocprofiler-compute/src/utils/mi_gpu_spec.yaml#L246-L325)
- the operator's chart: `helm repo add rocm https://rocm.github.io/gpu-operator`,
  `rocm/gpu-operator-charts` in `kube-amd-gpu`, versions spelled `v1.5.1`; `crds.defaultCR.install`
  https://github.com/ROCm/gpu-operator/blob/v1.5.1/README.md ,
  https://github.com/ROCm/gpu-operator/blob/v1.5.1/helm-charts-k8s/values.yaml
"""

from __future__ import annotations

import copy
import json
from dataclasses import replace

import pytest
import yaml
from django.utils import translation

from catalog.engine.cluster import parse_snapshot
from catalog.engine.gpus import gpu_model_find
from catalog.engine.profile import Profile
from catalog.engine.text import render
from evaluations.configgen.capacity_of import sized_pools
from evaluations.configgen.config_drift import config_drift
from evaluations.configgen.generate import generate
from evaluations.configgen.generate_amd import layout_of, refuse_partitions_without_layout
from evaluations.configgen.model import ConfigRefused, DecisionFacts
from evaluations.configgen.roundtrip import round_trip, snapshot_of
from evaluations.configgen.schemas import check_files
from tests.evaluations.configgen.builtin import catalog_rows, signatures
from tests.evaluations.configgen.catalog_rows import bundle_row

PARTITIONED = "amd-gpu-device-plugin/partitions-mixed"
WHOLE = "amd-gpu-device-plugin/whole-gpu"
OPERATOR = "amd-gpu-operator/deviceconfig"
KUEUE = "kueue/controller"
DCM = "amd-gpu-operator/dcm-config.yaml"
DEVICE_CONFIGS = "amd-gpu-operator/device-configs.yaml"
PROFILE_LABEL = "dcm.amd.com/gpu-config-profile"


def decision(*refs: str, pools=None, **profile) -> DecisionFacts:
    data = {
        "workload_types": ["online_inference"],
        "tenant_count": 2,
        "gpu_model": "MI300X",
        "node_count": 2,
        "gpus_per_node": 8,
        **profile,
    }
    return DecisionFacts(
        evaluation_id=71,
        rows=tuple(bundle_row(ref) for ref in refs),
        profile=Profile.from_dict(data),
        pools=pools or {},
    )


def two_pools(*common: str, **profile) -> DecisionFacts:
    return decision(
        *common,
        WHOLE,
        PARTITIONED,
        pools={"training": [WHOLE], "inference": [PARTITIONED]},
        workload_types=["training", "online_inference"],
        **profile,
    )


def file_of(files, path):
    return next(f for f in files if f.path == path)


def documents(files, path):
    return list(yaml.safe_load_all(file_of(files, path).content))


def test_a_partitioned_pool_gets_a_dcm_profile_of_cpx_nps4_on_each_of_its_nodes_gpus():
    files = generate(decision(PARTITIONED, OPERATOR, KUEUE))

    [configmap] = documents(files, DCM)
    assert configmap["apiVersion"] == "v1"
    assert configmap["kind"] == "ConfigMap"
    assert configmap["metadata"]["namespace"] == "kube-amd-gpu"
    config = json.loads(configmap["data"]["config.json"])
    [(name, profile)] = config["gpu-config-profiles"].items()
    assert profile["profiles"] == [
        {"computePartition": "CPX", "memoryPartition": "NPS4", "numGPUsAssigned": 8}
    ]
    [node_file] = documents(files, "nodes/shared.yaml")
    assert node_file["labels"][PROFILE_LABEL] == name
    assert check_files(files) == []


def test_the_device_config_enables_dcm_with_that_configmap_and_the_mixed_naming_strategy():
    files = generate(decision(PARTITIONED, OPERATOR, KUEUE))

    [configmap] = documents(files, DCM)
    [device_config] = documents(files, DEVICE_CONFIGS)
    assert device_config["apiVersion"] == "amd.com/v1alpha1"
    assert device_config["kind"] == "DeviceConfig"
    assert device_config["metadata"]["namespace"] == "kube-amd-gpu"
    spec = device_config["spec"]
    assert spec["configManager"]["enable"] is True
    assert spec["configManager"]["config"]["name"] == configmap["metadata"]["name"]
    assert spec["devicePlugin"]["devicePluginArguments"] == {"resource_naming_strategy": "mixed"}
    assert spec["selector"]["ecomap.io/pool"] == "shared"


def test_quotas_cover_and_sum_to_the_partitions_the_mixed_strategy_reports():
    files = generate(decision(PARTITIONED, OPERATOR, KUEUE))

    queues = documents(files, "kueue/cluster-queues.yaml")
    quotas = {}
    for queue in queues:
        group = queue["spec"]["resourceGroups"][0]
        assert "amd.com/cpx_nps4" in group["coveredResources"]
        for resource in group["flavors"][0]["resources"]:
            quotas[resource["name"]] = quotas.get(resource["name"], 0) + resource["nominalQuota"]
    # 2 nodes x 8 MI300X, each CPX-NPS4: 8 GPUs report amd.com/cpx_nps4: 64 per node
    assert quotas["amd.com/cpx_nps4"] == 2 * 64
    assert quotas["amd.com/gpu"] == 0  # mixed: a partitioned GPU is not reported as amd.com/gpu
    assert quotas["amd.com/spx_nps1"] == 0


def test_each_pool_gets_its_own_device_config_with_its_naming_strategy():
    files = generate(two_pools(OPERATOR, KUEUE))

    configs = {d["metadata"]["name"]: d["spec"] for d in documents(files, DEVICE_CONFIGS)}
    by_pool = {spec["selector"]["ecomap.io/pool"]: spec for spec in configs.values()}
    assert by_pool["inference"]["devicePlugin"]["devicePluginArguments"] == {
        "resource_naming_strategy": "mixed"
    }
    assert by_pool["training"]["devicePlugin"]["devicePluginArguments"] == {
        "resource_naming_strategy": "single"
    }
    assert by_pool["inference"]["configManager"]["enable"] is True
    assert by_pool["training"]["configManager"]["enable"] is False
    [training] = documents(files, "nodes/training.yaml")
    assert PROFILE_LABEL not in training["labels"]
    assert check_files(files) == []


def test_install_sh_installs_the_operator_chart_without_its_default_device_config():
    files = generate(decision(PARTITIONED, OPERATOR, KUEUE))

    [values] = documents(files, "amd-gpu-operator/values.yaml")
    assert values["crds"]["defaultCR"]["install"] is False
    script = file_of(files, "install.sh").content
    assert "helm repo add --force-update rocm https://rocm.github.io/gpu-operator" in script
    assert (
        "helm upgrade --install amd-gpu-operator rocm/gpu-operator-charts --version v1.5.1 "
        "-n kube-amd-gpu --create-namespace --wait -f amd-gpu-operator/values.yaml"
    ) in script
    assert f"kubectl apply -f {DEVICE_CONFIGS}" in script
    assert "needs cert-manager" in script  # README v1.5.1 Prerequisites
    # Checked before the operator's chart, so a missing cert-manager stops install.sh there.
    check = "kubectl get crd certificates.cert-manager.io"
    assert script.index(check) < script.index("helm upgrade --install amd-gpu-operator")
    assert script.index("rocm/gpu-operator-charts") < script.index(f"apply -f {DEVICE_CONFIGS}")


def test_without_the_operator_decided_the_amd_files_are_not_applied_and_say_why():
    files = generate(decision(PARTITIONED, KUEUE))

    assert "amd-gpu-operator/values.yaml" not in [f.path for f in files]
    script = file_of(files, "install.sh").content
    assert f"kubectl apply -f {DEVICE_CONFIGS}" not in script
    assert f"kubectl apply -f {DCM}" not in script
    assert "AMD GPU Operator" in file_of(files, DEVICE_CONFIGS).content
    assert check_files(files) == []


def test_the_round_trip_finds_the_partitioned_pool_in_mixed_mode_and_the_other_whole():
    facts = two_pools(OPERATOR, KUEUE)
    files = generate(facts)

    snapshot = snapshot_of(facts, files, catalog_rows(), signatures())
    inference = [
        n for n in snapshot["nodes"]["items"] if n["metadata"]["name"].startswith("inference-")
    ]
    for node in inference:
        assert node["metadata"]["labels"][PROFILE_LABEL] == "inference-cpx-nps4"
        assert node["status"]["allocatable"] == {"amd.com/cpx_nps4": "64"}  # 8 GPUs x 8
    report = round_trip(facts, rows=catalog_rows(), signatures=signatures(), files=files)
    assert [f"{f.code}: {f.message}" for f in report.findings if f.severity == "error"] == []
    pools = {found.row: found.pools for found in report.detected}
    assert pools[PARTITIONED] == ("inference",)
    assert pools[WHOLE] == ("training",)


def test_the_device_plugins_the_operator_starts_for_the_generated_device_configs_are_found():
    # The operator names a DeviceConfig's device plugin DaemonSet <DeviceConfig>-device-plugin
    # (gpu-operator v1.5.1 internal/controllers/device_config_reconciler.go#L1221): a cluster set
    # up from these files runs amd-gpu-<pool>-device-plugin, one per pool, which the catalog's
    # signature must know to find the decided modes.
    from catalog.engine.cluster import check_cluster
    from evaluations.configgen.roundtrip import decided_of

    facts = two_pools(OPERATOR, KUEUE)
    files = generate(facts)
    configs = [
        d["metadata"]["name"]
        for f in files
        if f.path == DEVICE_CONFIGS
        for d in yaml.safe_load_all(f.content)
    ]
    document = snapshot_of(facts, files, catalog_rows(), signatures())
    plugins = [
        d for d in document["daemonsets"]["items"] if "device-plugin" in d["metadata"]["name"]
    ]
    [plugin] = plugins
    document["daemonsets"]["items"].remove(plugin)
    for name in configs:
        own = copy.deepcopy(plugin)
        own["metadata"]["name"] = f"{name}-device-plugin"
        document["daemonsets"]["items"].append(own)

    report = check_cluster(
        parse_snapshot(document),
        rows=catalog_rows(),
        signatures=signatures(),
        decision=decided_of(facts),
    )

    assert sorted(configs) == ["amd-gpu-inference", "amd-gpu-training"]
    assert [f"{f.code}: {f.message}" for f in report.findings if f.severity == "error"] == []
    pools = {found.row: found.pools for found in report.detected}
    assert pools[PARTITIONED] == ("inference",)
    assert pools[WHOLE] == ("training",)


def test_drift_names_nodes_whose_gpus_are_not_partitioned_as_the_dcm_profile_says():
    facts = two_pools(OPERATOR, KUEUE)
    files = generate(facts)
    snapshot = snapshot_of(facts, files, catalog_rows(), signatures())
    assert [d for d in config_drift(files, parse_snapshot(snapshot)) if d.path == DCM] == []

    node = next(n for n in snapshot["nodes"]["items"] if n["metadata"]["name"] == "inference-1")
    node["status"]["allocatable"] = {"amd.com/gpu": "8"}  # DCM never ran: whole GPUs
    [drift] = [d for d in config_drift(files, parse_snapshot(snapshot)) if d.path == DCM]
    assert drift.severity == "warning"
    assert "inference-1" in str(drift.message)
    assert "amd.com/cpx_nps4" in str(drift.message)
    assert [
        d.compared
        for d in config_drift(files, parse_snapshot(snapshot))
        if d.path == DEVICE_CONFIGS
    ] == [False]


def dcm_profiles(files):
    [configmap] = documents(files, DCM)
    return json.loads(configmap["data"]["config.json"])["gpu-config-profiles"]


def nominal_quotas(files):
    quotas = {}
    for queue in documents(files, "kueue/cluster-queues.yaml"):
        for resource in queue["spec"]["resourceGroups"][0]["flavors"][0]["resources"]:
            quotas[resource["name"]] = quotas.get(resource["name"], 0) + resource["nominalQuota"]
    return quotas


# (model, the layout the facts give, its device plugin resource): MI325X CPX under NPS4 and MI355X
# CPX under NPS1 (ROCm Compute Profiler's spec file; DCM v1.5.1 documents NPS1 and NPS4 only, so
# the MI355X's SR-IOV pair CPX-NPS2 is not used); 8 logical GPUs per GPU in CPX (AMD Accelerator
# Cloud's partitioning page).
NEWER = [("MI325X", "NPS4", "amd.com/cpx_nps4"), ("MI355X", "NPS1", "amd.com/cpx_nps1")]


@pytest.mark.parametrize(("gpu_model", "memory", "resource"), NEWER)
def test_a_newer_instinct_pool_gets_cpx_with_the_memory_mode_documented_for_its_model(
    gpu_model, memory, resource
):
    files = generate(decision(PARTITIONED, OPERATOR, KUEUE, gpu_model=gpu_model))

    [(name, profile)] = dcm_profiles(files).items()
    assert profile["profiles"] == [
        {"computePartition": "CPX", "memoryPartition": memory, "numGPUsAssigned": 8}
    ]
    assert name == f"shared-cpx-{memory.lower()}"
    [node_file] = documents(files, "nodes/shared.yaml")
    assert node_file["labels"][PROFILE_LABEL] == name
    assert check_files(files) == []


@pytest.mark.parametrize(("gpu_model", "memory", "resource"), NEWER)
def test_quotas_count_eight_partitions_per_gpu_of_a_newer_instinct_pool(
    gpu_model, memory, resource
):
    files = generate(decision(PARTITIONED, OPERATOR, KUEUE, gpu_model=gpu_model))

    quotas = nominal_quotas(files)
    # 2 nodes x 8 GPUs x 8 logical GPUs in CPX: the mixed strategy reports them under the layout's
    # name only (k8s-device-plugin configuration.md), every other AMD name is 0
    assert quotas[resource] == 2 * 8 * 8
    for other in ("amd.com/gpu", "amd.com/spx_nps1", "amd.com/cpx_nps1", "amd.com/cpx_nps4"):
        if other != resource:
            assert quotas.get(other, 0) == 0


@pytest.mark.parametrize(("gpu_model", "memory", "resource"), NEWER)
def test_the_round_trip_of_a_newer_instinct_fleet_has_no_error(gpu_model, memory, resource):
    facts = two_pools(OPERATOR, KUEUE, gpu_model=gpu_model)
    files = generate(facts)

    snapshot = snapshot_of(facts, files, catalog_rows(), signatures())
    inference = [
        n for n in snapshot["nodes"]["items"] if n["metadata"]["name"].startswith("inference-")
    ]
    assert inference
    for node in inference:
        assert node["metadata"]["labels"][PROFILE_LABEL] == f"inference-cpx-{memory.lower()}"
        assert node["status"]["allocatable"] == {resource: "64"}  # 8 GPUs x 8
    report = round_trip(facts, rows=catalog_rows(), signatures=signatures(), files=files)
    assert [f"{f.code}: {f.message}" for f in report.findings if f.severity == "error"] == []
    assert check_files(files) == []


def test_the_finest_layout_prefers_the_most_partitions_then_the_finer_memory_mode():
    mi325x = gpu_model_find("MI325X")
    # the facts give CPX with NPS1 and with NPS4: both 8 per GPU, NPS4 is the finer memory mode
    assert (layout_of(mi325x).compute, layout_of(mi325x).memory) == ("CPX", "NPS4")
    # without a sourced CPX count the finest counted pair DCM applies is SPX-NPS1, 1 per GPU
    spx_only = replace(mi325x, amd_logical_gpus=(("SPX", 1),))
    layout = layout_of(spx_only)
    assert (layout.compute, layout.memory, layout.per_gpu) == ("SPX", "NPS1", 1)
    assert layout.resource == "amd.com/spx_nps1"


def test_a_model_without_a_verified_count_is_refused_with_the_reason():
    facts = decision(PARTITIONED, OPERATOR, KUEUE, gpu_model="MI355X")
    [pool], _notes = sized_pools(facts)
    no_counts = replace(pool.cluster.model, amd_logical_gpus=())
    pool.cluster = replace(pool.cluster, model=no_counts)

    assert layout_of(no_counts) is None
    with pytest.raises(ConfigRefused, match="no verified count of logical GPUs") as refused:
        refuse_partitions_without_layout(pool, "MI355X")
    assert "AMD Instinct MI355X" in str(refused.value)
    with translation.override("zh-hans"):
        said = render(refused.value.args[0], translation.gettext)
    assert "经过核实的逻辑 GPU 数量" in said and "AMD Instinct MI355X" in said


def test_an_amd_model_without_partitions_is_refused_and_nothing_is_generated():
    # the MI210 has no compute partitions (ROCm Compute Profiler: MI200-series do not use them)
    with pytest.raises(ConfigRefused, match="MI210 has no compute partitions"):
        generate(decision(PARTITIONED, OPERATOR, KUEUE, gpu_model="MI210"))


def test_a_partitioned_pool_without_a_gpu_model_is_refused_naming_what_to_say():
    with pytest.raises(ConfigRefused, match="step 1 names no GPU model") as refused:
        generate(decision(PARTITIONED, OPERATOR, KUEUE, gpu_model=None))
    assert "MI300X, MI325X, MI355X" in str(refused.value)


def test_a_whole_gpu_amd_pool_needs_no_partition_counts():
    files = generate(decision(WHOLE, OPERATOR, KUEUE, gpu_model="MI210"))

    assert DCM not in [f.path for f in files]
    assert check_files(files) == []


def test_with_the_operator_its_device_configs_keep_a_decided_metrics_exporter_on():
    # the chart's default DeviceConfig, which these replace, enables it (values.yaml v1.5.1
    # deviceConfig.spec.metricsExporter.enable: true)
    exporter = "amd-device-metrics-exporter/exporter"
    with_operator = generate(decision(PARTITIONED, OPERATOR, exporter, KUEUE))
    without = generate(decision(PARTITIONED, OPERATOR, KUEUE))

    [spec] = [d["spec"] for d in documents(with_operator, DEVICE_CONFIGS)]
    assert spec["metricsExporter"] == {"enable": True}
    assert "metricsExporter" not in documents(without, DEVICE_CONFIGS)[0]["spec"]
    assert check_files(with_operator) == []
