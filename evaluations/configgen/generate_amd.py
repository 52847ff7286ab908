"""AMD Instinct partitions from a decision: for every pool whose GPUs the AMD device plugin's
`partitions-mixed` row presents, a Device Config Manager (DCM) profile in the ConfigMap DCM reads,
the node label that selects it, and one AMD GPU Operator DeviceConfig per AMD pool that starts the
device plugin with its naming strategy (mixed on partitioned pools, single on whole-GPU pools)
and DCM where it partitions. `amd_layout` is the partition layout `capacity_of.capacity` counts
`amd.com/<compute>_<memory>` by. Plain Python; docs/configgen.md ("AMD partitions") says more.

Sources, at the catalog's pins (AMD GPU Operator v1.5.1, AMD GPU device plugin v1.31.0.10):
- DCM ConfigMap: data key `config.json`, `gpu-config-profiles.<profile>.skippedGPUs.ids` and
  `.profiles[]` of `computePartition`, `memoryPartition`, `numGPUsAssigned` (their sum plus the
  skipped GPUs is the node's GPUs); compute SPX and CPX, memory NPS1 and NPS4, NPS4 only with CPX
  https://github.com/ROCm/gpu-operator/blob/v1.5.1/docs/dcm/device-config-manager-configmap.md#L132-L138
- the node label `dcm.amd.com/gpu-config-profile=<profile>` selects the profile; DCM
  partitions idle GPUs (taint `amd-dcm=up:NoExecute` while it works)
  https://github.com/ROCm/gpu-operator/blob/v1.5.1/docs/dcm/applying-partition-profiles.rst
- DeviceConfig `amd.com/v1alpha1`: `spec.selector`, `spec.driver.enable` (CRD default true:
  false keeps the inbox driver, as the chart's default DeviceConfig does),
  `spec.configManager.{enable,config.name,configManagerTolerations}`,
  `spec.devicePlugin.{enableDevicePlugin,devicePluginArguments,devicePluginTolerations,
  nodeLabellerTolerations}`; `devicePluginArguments` supports `resource_naming_strategy`
  single|mixed; one node belongs to one DeviceConfig
  https://github.com/ROCm/gpu-operator/blob/v1.5.1/api/v1alpha1/deviceconfig_types.go#L43-L90
  https://github.com/ROCm/gpu-operator/blob/v1.5.1/api/v1alpha1/deviceconfig_types.go#L452-L520
  https://github.com/ROCm/gpu-operator/blob/v1.5.1/api/v1alpha1/deviceconfig_types.go#L638-L682
  https://github.com/ROCm/gpu-operator/blob/v1.5.1/docs/device_plugin/device-plugin.md
- the default DeviceConfig's selector `feature.node.kubernetes.io/amd-gpu: "true"` (set by the
  chart's NFD rule) and `crds.defaultCR.install`, the chart's namespace `kube-amd-gpu`
  https://github.com/ROCm/gpu-operator/blob/v1.5.1/helm-charts-k8s/values.yaml#L55-L64
  https://github.com/ROCm/gpu-operator/blob/v1.5.1/README.md#L60-L75
- mixed naming: a partitioned GPU is reported as `amd.com/<compute>_<memory>` (8 GPUs in CPX-NPS4
  report `amd.com/cpx_nps4: 64`, 5 in SPX-NPS1 `amd.com/spx_nps1: 5`), never as `amd.com/gpu`
  https://github.com/ROCm/k8s-device-plugin/blob/v1.31.0.10/docs/user-guide/configuration.md#L183-L199
- partitions per GPU and the compute-memory pairs AMD documents per model: the GPU facts
  (catalog/data/facts/gpus.yaml, `amd_partitions.logical_gpus` and `.combinations`, each sourced
  there: amd-smi and the Instinct partitioning matrix for MI300X, the ROCm Compute Profiler's spec
  file and AMD Accelerator Cloud's partitioning page for MI325X and MI355X)
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from catalog.engine.gpus import GpuModel
from catalog.engine.text import _
from evaluations.configgen.model import (
    POOL_LABEL,
    ConfigRefused,
    DecisionFacts,
    Document,
    GeneratedFile,
    Pool,
    unknown_model,
)
from evaluations.configgen.names import k8s_name

PARTITIONED_ROW = "amd-gpu-device-plugin/partitions-mixed"
DEVICE_PLUGIN_PROJECT = "amd-gpu-device-plugin"
OPERATOR_PROJECT = "amd-gpu-operator"
METRICS_EXPORTER_PROJECT = "amd-device-metrics-exporter"
OPERATOR_VERSION = "v1.5.1"  # the catalog's pin, named when the decision has no operator row
AMD_NAMESPACE = "kube-amd-gpu"
DCM_CONFIGMAP = "ecomap-dcm-config"
PROFILE_LABEL = "dcm.amd.com/gpu-config-profile"
AMD_GPU_LABEL = ("feature.node.kubernetes.io/amd-gpu", "true")
DEVICE_CONFIG_API = "amd.com/v1alpha1"
DEVICE_CONFIG_PREFIX = "amd-gpu-"
AMD_FILE_KIND = "amd-gpu-operator"
AMD_VALUES_KIND = "amd-gpu-operator-values"
DCM_PATH = "amd-gpu-operator/dcm-config.yaml"
DEVICE_CONFIGS_PATH = "amd-gpu-operator/device-configs.yaml"
VALUES_PATH = "amd-gpu-operator/values.yaml"
# What DCM applies, as its ConfigMap page documents it at v1.5.1 ("Supported Partition Modes",
# device-config-manager-configmap.md#L132-L138; schemas.DCM_PROFILE checks the same): compute SPX
# and CPX, memory NPS1 and NPS4, NPS4 only with CPX. A pair the facts give outside these (DPX-NPS2,
# CPX-NPS2) is not generated.
DCM_COMPUTE = ("SPX", "CPX")
DCM_MEMORY = ("NPS1", "NPS4")
# Step 1 names a model that partitions: a sentence names the models the facts give counts for.
PARTITIONED_MODELS = "MI300X, MI325X, MI355X"


@dataclass(frozen=True, slots=True)
class AmdLayout:
    """Every GPU of a pool's nodes in one compute/memory partition mode."""

    compute: str
    memory: str
    per_gpu: int
    model: str

    @property
    def resource(self) -> str:
        """The name the device plugin's mixed strategy reports a partition under (lower-cased,
        k8s-device-plugin v1.31.0.10 internal/pkg/amdgpu/amdgpu.go#L164-L181)."""
        return f"amd.com/{self.compute.lower()}_{self.memory.lower()}"

    def cites(self) -> str:
        return (
            f"{self.compute}-{self.memory} on every {self.model}: {self.per_gpu} partitions per "
            "GPU, reported as " + self.resource
        )


def partitioned(pool: Pool) -> bool:
    return any(row.ref == PARTITIONED_ROW for row in pool.data_plane)


def dcm_applies(compute: str, memory: str) -> bool:
    """Whether DCM v1.5.1 documents this compute/memory pair (DCM_COMPUTE, DCM_MEMORY)."""
    if compute not in DCM_COMPUTE or memory not in DCM_MEMORY:
        return False
    return memory != "NPS4" or compute == "CPX"


def layout_of(model: GpuModel) -> AmdLayout | None:
    """The finest layout the model's facts give that DCM applies: the documented pair whose
    compute mode gives the most logical GPUs per GPU, then the finer memory mode (NPS4 before
    NPS1, as AMD's own `cpx-profile` example). The recommender decides partitions-mixed for pools
    of inference-sized tasks; whole-GPU work belongs on a whole-gpu pool. With the facts as they
    stand: MI300X CPX-NPS4 (the Instinct partitioning matrix), MI325X CPX-NPS4 (the ROCm Compute
    Profiler's spec file), MI355X CPX-NPS1 (the same file, the amdgpu driver; its CPX-NPS2 is an
    SR-IOV pair DCM does not document). None when no documented pair has a sourced count."""
    candidates = [
        (per_gpu, int(memory.removeprefix("NPS")), compute, memory)
        for compute, memory in model.amd_combinations
        if dcm_applies(compute, memory) and (per_gpu := model.amd_partitions_per_gpu(compute))
    ]
    if not candidates:
        return None
    per_gpu, _nps, compute, memory = max(candidates)
    return AmdLayout(compute, memory, per_gpu, model.name)


def amd_layout(pool: Pool) -> AmdLayout | None:
    """The pool's partition layout, or None when it has no partitions-mixed row or its model has
    no layout (generate() refuses such a pool first: refuse_partitions_without_layout)."""
    model = pool.cluster.model
    if not partitioned(pool) or model is None:
        return None
    return layout_of(model)


def refuse_partitions_without_layout(pool: Pool, said: str | None) -> None:
    """A pool decided for AMD partitions whose GPUs the facts give no layout: files for it would
    present something else than what was decided, so nothing is generated (ConfigRefused says
    why). `said` is step 1's GPU model as typed."""
    if not partitioned(pool) or amd_layout(pool) is not None:
        return
    model = pool.cluster.model
    if model is None:
        why = unknown_model(said)
        raise ConfigRefused(
            _(
                "pool %(pool)s is decided for AMD GPU partitions, and a partition layout depends "
                "on the GPU model: %(why)s. Name an AMD Instinct model that partitions in step 1 "
                "(%(models)s) and generate again.",
                pool=pool.name,
                why=why,
                models=PARTITIONED_MODELS,
            )
        )
    if not model.amd_compute_partitions:
        raise ConfigRefused(
            _(
                "pool %(pool)s is decided for AMD GPU partitions, but the %(model)s has no compute "
                "partitions (EcoMap's GPU facts): decide another resource unit for this pool.",
                pool=pool.name,
                model=model.name,
            )
        )
    raise ConfigRefused(
        _(
            "pool %(pool)s is decided for AMD GPU partitions, but EcoMap's GPU facts give the "
            "%(model)s no verified count of logical GPUs for a partition layout the Device Config "
            "Manager applies (compute SPX or CPX, memory NPS1 or NPS4, NPS4 only with CPX): "
            "partition its GPUs with amd-smi, or decide another resource unit for this pool.",
            pool=pool.name,
            model=model.name,
        )
    )


def _profile_name(pool: Pool, layout: AmdLayout) -> str:
    return k8s_name("DCM profile", f"{pool.name}-{layout.compute.lower()}-{layout.memory.lower()}")


def _amd_pools(pools: list[Pool]) -> list[Pool]:
    return [p for p in pools if any(r.project == DEVICE_PLUGIN_PROJECT for r in p.data_plane)]


def amd_files(
    facts: DecisionFacts, pools: list[Pool], header: list[str], files: list[GeneratedFile]
) -> list[GeneratedFile]:
    """The DCM ConfigMap, the DeviceConfigs and (with the operator decided) its chart values,
    when a pool's GPUs are partitioned; the profile label goes into that pool's node file."""
    if not any(partitioned(pool) for pool in pools):
        return []
    operator = next((r for r in facts.rows if r.project == OPERATOR_PROJECT), None)
    notes = list(header)
    if operator is None:
        notes.append(
            f"The decision names no AMD GPU Operator row: these DeviceConfigs and the Device "
            f"Config Manager that reads {DCM_PATH} come with the AMD GPU Operator "
            f"({OPERATOR_VERSION}), so install.sh does not apply them. Install it first, or "
            "partition each GPU with amd-smi and start the device plugin with "
            "-resource_naming_strategy=mixed (k8s-device-plugin v1.31.0.10 configuration.md)"
        )
    notes.append(
        "DCM partitions only idle GPUs: on a node already running work, taint it "
        "amd-dcm=up:NoExecute before setting its profile label and remove the taint after "
        "(AMD GPU Operator docs, Applying partition profiles)"
    )
    node_files = {f.documents[0].data["pool"]: f for f in files if f.kind == "node-pool"}
    profiles = {}
    for pool in pools:
        layout = amd_layout(pool)  # a partitioned pool without one was refused by generate()
        if layout is None:
            continue
        name = _profile_name(pool, layout)
        profiles[name] = (pool, layout)
        doc = node_files[pool.name].documents[0]
        doc.data["labels"][PROFILE_LABEL] = doc.note(
            f"labels.{PROFILE_LABEL}", name, f"DCM profile of {DCM_PATH}: {layout.cites()}"
        )
    result = [_dcm_file(profiles, notes)] if profiles else []
    result.append(_device_configs_file(facts, _amd_pools(pools), notes, bool(profiles)))
    if operator is not None:
        result.append(_values_file(operator.cites(), header))
    return result


def _dcm_file(profiles: dict[str, tuple[Pool, AmdLayout]], header: list[str]) -> GeneratedFile:
    doc = Document({})
    config = {}
    for name, (pool, layout) in profiles.items():
        gpus = pool.cluster.gpus_per_node
        config[name] = {
            "skippedGPUs": {"ids": []},
            "profiles": [
                {
                    "computePartition": layout.compute,
                    "memoryPartition": layout.memory,
                    "numGPUsAssigned": gpus,
                }
            ],
        }
        doc.note(
            f"gpu-config-profiles.{name}",
            f"{layout.compute}/{layout.memory} x {gpus}",
            f"{pool.cites_gpus()}; {layout.cites()}; every GPU of the node assigned, none "
            f"skipped; pool {pool.name} is partitioned (row {PARTITIONED_ROW}): the "
            "recommender decides it for inference-sized tasks",
        )
    doc.data.update(
        {
            "apiVersion": "v1",
            "kind": "ConfigMap",
            "metadata": {"name": DCM_CONFIGMAP, "namespace": AMD_NAMESPACE},
            "data": {"config.json": json.dumps({"gpu-config-profiles": config})},
        }
    )
    doc.note("metadata.name", DCM_CONFIGMAP, "the DeviceConfigs' spec.configManager.config.name")
    doc.note("metadata.namespace", AMD_NAMESPACE, "the operator's namespace (its README)")
    return GeneratedFile(
        DCM_PATH,
        AMD_FILE_KIND,
        [doc],
        [
            *header,
            f"The Device Config Manager's profiles (config.json); a node's {PROFILE_LABEL} "
            "label picks one: kubectl apply -f " + DCM_PATH,
        ],
    )


def _device_configs_file(
    facts: DecisionFacts, pools: list[Pool], header: list[str], dcm: bool
) -> GeneratedFile:
    documents = []
    tainted = len(facts.pools) > 1
    # MetricsExporterSpec.enable (deviceconfig_types.go#L684-L688; on in the chart's default
    # DeviceConfig, values.yaml#L155-L157): kept on for a decided exporter when the operator runs.
    exporter = next((r for r in facts.rows if r.project == METRICS_EXPORTER_PROJECT), None)
    has_operator = any(r.project == OPERATOR_PROJECT for r in facts.rows)
    operator_exporter = exporter.cites() if exporter and has_operator else ""
    for pool in pools:
        layout = amd_layout(pool)
        strategy = "mixed" if partitioned(pool) else "single"
        doc = Document({})
        key, value = AMD_GPU_LABEL
        spec: dict = {
            "selector": {key: value, POOL_LABEL: pool.name},
            "driver": {"enable": False},
            "devicePlugin": {
                "enableDevicePlugin": True,
                "devicePluginArguments": {"resource_naming_strategy": strategy},
            },
            "configManager": {"enable": layout is not None},
        }
        doc.note(
            "spec.selector",
            spec["selector"],
            f"the chart's default DeviceConfig selector and pool {pool.name}'s label: one "
            "DeviceConfig per pool (a node belongs to one DeviceConfig)",
        )
        doc.note("spec.driver.enable", False, "the inbox amdgpu driver, as the chart's default")
        doc.note(
            "spec.devicePlugin.devicePluginArguments.resource_naming_strategy",
            strategy,
            ", ".join(r.cites() for r in pool.data_plane if r.project == DEVICE_PLUGIN_PROJECT)
            + (
                ": partitions reported as amd.com/<compute>_<memory>"
                if strategy == "mixed"
                else ": whole GPUs reported as amd.com/gpu"
            ),
        )
        if layout is not None:
            spec["configManager"]["config"] = {"name": DCM_CONFIGMAP}
            doc.note(
                "spec.configManager",
                "enable, config " + DCM_CONFIGMAP,
                f"DCM applies pool {pool.name}'s profile ({layout.cites()})",
            )
        else:
            doc.note("spec.configManager.enable", False, "no partitions in this pool")
        if operator_exporter:
            spec["metricsExporter"] = {"enable": True}
            doc.note(
                "spec.metricsExporter.enable",
                True,
                f"{operator_exporter}: the operator runs it, as the chart's default DeviceConfig "
                "(not installed) would; do not install its own chart as well",
            )
        if tainted:
            toleration = {
                "key": POOL_LABEL,
                "operator": "Equal",
                "value": pool.name,
                "effect": "NoSchedule",
            }
            spec["devicePlugin"]["devicePluginTolerations"] = [dict(toleration)]
            spec["devicePlugin"]["nodeLabellerTolerations"] = [dict(toleration)]
            if layout is not None:
                spec["configManager"]["configManagerTolerations"] = [dict(toleration)]
            doc.note(
                "spec.*Tolerations", "the pool's taint", "its operands run on the tainted nodes"
            )
        # Its operands are <name>-device-plugin, -node-labeller, -device-config-manager.
        name = k8s_name("DeviceConfig", f"{DEVICE_CONFIG_PREFIX}{pool.name}")
        doc.data.update(
            {
                "apiVersion": DEVICE_CONFIG_API,
                "kind": "DeviceConfig",
                "metadata": {"name": name, "namespace": AMD_NAMESPACE},
                "spec": spec,
            }
        )
        doc.note("metadata.name", name, f"pool {pool.name}; its operands are {name}-device-plugin…")
        documents.append(doc)
    return GeneratedFile(
        DEVICE_CONFIGS_PATH,
        AMD_FILE_KIND,
        documents,
        [
            *header,
            "AMD GPU Operator DeviceConfigs, one per AMD pool (the chart's default DeviceConfig "
            f"is not installed: {VALUES_PATH}): kubectl apply -f {DEVICE_CONFIGS_PATH}",
        ]
        + ([] if dcm else ["no pool has a partition layout: DCM stays off"]),
    )


def _values_file(cited: str, header: list[str]) -> GeneratedFile:
    doc = Document({"crds": {"defaultCR": {"install": False}}})
    doc.note(
        "crds.defaultCR.install",
        False,
        f"{cited}; {DEVICE_CONFIGS_PATH} has one DeviceConfig per pool, and the default one "
        "would claim every AMD GPU node first",
    )
    return GeneratedFile(
        VALUES_PATH,
        AMD_VALUES_KIND,
        [doc],
        [
            *header,
            "helm install amd-gpu-operator rocm/gpu-operator-charts -n kube-amd-gpu "
            f"-f {VALUES_PATH}",
        ],
    )
