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
- the operator's chart: `helm repo add rocm https://rocm.github.io/gpu-operator`,
  `rocm/gpu-operator-charts` in `kube-amd-gpu`, versions spelled `v1.5.1`; `crds.defaultCR.install`
  https://github.com/ROCm/gpu-operator/blob/v1.5.1/README.md ,
  https://github.com/ROCm/gpu-operator/blob/v1.5.1/helm-charts-k8s/values.yaml
"""

from __future__ import annotations

import copy
import json

import yaml

from catalog.engine.cluster import parse_snapshot
from catalog.engine.profile import Profile
from evaluations.configgen.config_drift import config_drift
from evaluations.configgen.generate import generate
from evaluations.configgen.model import DecisionFacts
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


def two_pools(*common: str) -> DecisionFacts:
    return decision(
        *common,
        WHOLE,
        PARTITIONED,
        pools={"training": [WHOLE], "inference": [PARTITIONED]},
        workload_types=["training", "online_inference"],
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


def test_a_model_without_known_partition_counts_gets_no_dcm_profile_and_says_so():
    files = generate(decision(PARTITIONED, OPERATOR, KUEUE, gpu_model="MI355X"))

    assert DCM not in [f.path for f in files]
    [node_file] = documents(files, "nodes/shared.yaml")
    assert PROFILE_LABEL not in node_file["labels"]
    [device_config] = documents(files, DEVICE_CONFIGS)
    assert device_config["spec"]["configManager"] == {"enable": False}
    assert "no partition counts" in file_of(files, DEVICE_CONFIGS).content
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
