"""DRA from a decision: a ResourceClaimTemplate per tenant namespace asking one device of the
decided driver's class, in the resource.k8s.io version the decision's Kubernetes release serves,
and a DeviceClass only where the driver's chart does not install one.

Sources:
- resource.k8s.io shapes, k8s.io/api at the releases (v0.N.0 = Kubernetes 1.N):
  v1beta1 (1.32) DeviceRequest.deviceClassName, allocationMode, count
  https://github.com/kubernetes/api/blob/v0.32.0/resource/v1beta1/types.go#L398-L470 ;
  v1beta2 (1.33) and v1 (1.34, GA) DeviceRequest.exactly (ExactDeviceRequest.deviceClassName)
  https://github.com/kubernetes/api/blob/v0.33.0/resource/v1beta2/types.go#L628-L660 ,
  https://github.com/kubernetes/api/blob/v0.34.0/resource/v1/types.go#L768-L830 ;
  ResourceClaimTemplate.spec.spec (ResourceClaimTemplateSpec.spec),
  DeviceClass.spec.selectors[].cel.expression.
- NVIDIA's DRA driver chart v0.4.1 installs DeviceClass gpu.nvidia.com (resources.gpus.enabled,
  on by default) https://github.com/kubernetes-sigs/dra-driver-nvidia-gpu/blob/v0.4.1/deployments/helm/dra-driver-nvidia-gpu/templates/deviceclass-gpu.yaml
- DRA GA with resource.k8s.io/v1 in 1.34; beta (v1beta1) from 1.32
  (catalog/data/facts/kubernetes-features.yaml)
- ComputeDomains: the driver's controller writes the channel's ResourceClaimTemplate itself
  (ComputeDomain spec.channel.resourceClaimTemplate.name)
  https://github.com/kubernetes-sigs/dra-driver-nvidia-gpu/blob/v0.4.1/api/nvidia.com/resource/v1beta1/computedomain.go#L97
"""

from __future__ import annotations

from dataclasses import replace

import pytest
import yaml

from catalog.engine.profile import Profile
from evaluations.configgen.generate import generate
from evaluations.configgen.model import ConfigRefused, DecisionFacts
from evaluations.configgen.schemas import check_files
from tests.evaluations.configgen.catalog_rows import bundle_row

TEMPLATES = "dra/resource-claim-templates.yaml"
CLASSES = "dra/device-classes.yaml"
NVIDIA_DRA = ("nvidia-dra-driver-gpu/gpu-kubelet-plugin", "kubernetes-dra/core-allocation")


def decision(*refs: str, rows=None, pools=None, **profile) -> DecisionFacts:
    data = {
        "workload_types": ["training"],
        "tenant_count": 2,
        "gpu_model": "H100 80GB",
        "node_count": 2,
        **profile,
    }
    return DecisionFacts(
        evaluation_id=63,
        rows=rows or tuple(bundle_row(ref) for ref in refs),
        profile=Profile.from_dict(data),
        pools=pools or {},
    )


def documents(files, path):
    file = next(f for f in files if f.path == path)
    return list(yaml.safe_load_all(file.content))


def test_claim_template_per_tenant_on_kubernetes_1_34_uses_resource_k8s_io_v1():
    files = generate(decision(*NVIDIA_DRA, kubernetes_version="1.34"))

    assert check_files(files) == []
    templates = documents(files, TEMPLATES)
    assert [(t["metadata"]["namespace"]) for t in templates] == ["tenant-1", "tenant-2"]
    for template in templates:
        assert template["apiVersion"] == "resource.k8s.io/v1"
        assert template["kind"] == "ResourceClaimTemplate"
        (request,) = template["spec"]["spec"]["devices"]["requests"]
        assert request["exactly"]["deviceClassName"] == "gpu.nvidia.com"
        assert request["exactly"]["count"] == 1
        assert "deviceClassName" not in request


def test_the_drivers_own_device_class_is_not_duplicated():
    # NVIDIA's chart installs gpu.nvidia.com and mig.nvidia.com: no DeviceClass is generated.
    files = generate(decision(*NVIDIA_DRA, kubernetes_version="1.34"))

    assert CLASSES not in {f.path for f in files}
    assert (
        "installs DeviceClass gpu.nvidia.com"
        in next(f for f in files if f.path == TEMPLATES).content
    )


def test_kubernetes_1_32_gets_v1beta1_with_the_class_on_the_request():
    files = generate(decision(*NVIDIA_DRA, kubernetes_version="1.32"))

    assert check_files(files) == []
    template = documents(files, TEMPLATES)[0]
    assert template["apiVersion"] == "resource.k8s.io/v1beta1"
    (request,) = template["spec"]["spec"]["devices"]["requests"]
    assert request["deviceClassName"] == "gpu.nvidia.com"
    assert "exactly" not in request


def test_kubernetes_1_33_gets_v1beta2_with_exactly():
    files = generate(decision(*NVIDIA_DRA, kubernetes_version="v1.33.4"))

    assert check_files(files) == []
    template = documents(files, TEMPLATES)[0]
    assert template["apiVersion"] == "resource.k8s.io/v1beta2"
    assert template["spec"]["spec"]["devices"]["requests"][0]["exactly"]["deviceClassName"]


def test_unknown_kubernetes_version_uses_v1_and_says_so():
    files = generate(decision(*NVIDIA_DRA))

    assert documents(files, TEMPLATES)[0]["apiVersion"] == "resource.k8s.io/v1"
    text = next(f for f in files if f.path == TEMPLATES).content
    assert "step 1 does not say the Kubernetes version" in text


def test_kubernetes_before_dra_beta_is_refused_with_the_reason():
    with pytest.raises(ConfigRefused, match="1.31"):
        generate(decision(*NVIDIA_DRA, kubernetes_version="1.31"))


def test_a_driver_without_chart_classes_gets_a_device_class_per_pool_selecting_its_driver():
    # A vendor row that names its driver (detect.dra_drivers) but installs no DeviceClass: the
    # Intel GPU row with its chart's classes taken away.
    intel = bundle_row("intel-resource-drivers/gpu-kubelet-plugin")
    bare = replace(
        intel, provides=tuple(p for p in intel.provides if not p.startswith("deviceclass:"))
    )
    pools = {"a": [bare.ref], "b": [bare.ref]}
    files = generate(decision(rows=(bare,), pools=pools, kubernetes_version="1.34"))

    assert check_files(files) == []
    classes = documents(files, CLASSES)
    assert [c["metadata"]["name"] for c in classes] == ["evaluation-63-a", "evaluation-63-b"]
    for device_class in classes:
        assert device_class["apiVersion"] == "resource.k8s.io/v1"
        assert device_class["kind"] == "DeviceClass"
        assert "namespace" not in device_class["metadata"]
        assert device_class["spec"]["selectors"] == [
            {"cel": {"expression": 'device.driver == "gpu.intel.com"'}}
        ]
    templates = documents(files, TEMPLATES)
    assert len(templates) == 2 * 2  # one per tenant and pool
    named = {
        t["spec"]["spec"]["devices"]["requests"][0]["exactly"]["deviceClassName"] for t in templates
    }
    assert named == {"evaluation-63-a", "evaluation-63-b"}


def test_the_dra_api_alone_names_no_driver_so_nothing_is_generated():
    files = generate(
        decision(
            "kubernetes-dra/core-allocation",
            "kubernetes-dra/resource-api",
            "nvidia-device-plugin/whole-gpu",
        )
    )
    assert not any(f.path.startswith("dra/") for f in files)


def test_compute_domains_get_no_claim_template_their_controller_writes_it():
    files = generate(
        decision(
            "nvidia-device-plugin/whole-gpu",
            "nvidia-dra-driver-gpu/compute-domain",
            "nvidia-gpu-operator/clusterpolicy",
            kubernetes_version="1.34",
        )
    )
    assert not any(f.path.startswith("dra/") for f in files)


def test_the_check_refuses_the_v1beta1_request_shape_under_v1():
    files = generate(decision(*NVIDIA_DRA, kubernetes_version="1.34"))
    file = next(f for f in files if f.path == TEMPLATES)
    requests = file.documents[0].data["spec"]["spec"]["devices"]["requests"]
    requests[0] = {"name": "gpu", "deviceClassName": "gpu.nvidia.com"}

    assert check_files([file])


# The pinned driver release against step 1's Kubernetes (catalog/data/facts/dra-drivers.yaml):
# NVIDIA's DRA driver v0.4.1 supports Kubernetes v1.34.2 or later
# https://github.com/kubernetes-sigs/dra-driver-nvidia-gpu/blob/v0.4.1/docs/prerequisites.md#L8-L11
# while its chart installs from 1.32 (Chart.yaml#L29-L34, kubeVersion ">=1.32.0-0") and its
# prerequisites explain enabling DRA on 1.32 and 1.33 (#L43-L56): a warning, not a refusal.
RELEASE_WARNING = "row nvidia-dra-driver-gpu/gpu-kubelet-plugin v0.4.1 supports Kubernetes 1.34.2"


def header(files, path) -> str:
    file = next(f for f in files if f.path == path)
    return "\n".join(line for line in file.content.splitlines() if line.startswith("#"))


def test_a_driver_release_newer_than_step_1s_kubernetes_is_warned_in_the_header_not_refused():
    files = generate(decision(*NVIDIA_DRA, kubernetes_version="1.33"))

    assert check_files(files) == []
    said = header(files, TEMPLATES)
    assert f"WARNING: {RELEASE_WARNING} or later" in said
    assert "step 1's Kubernetes is 1.33: upgrade the cluster to 1.34.2 or later" in said
    assert documents(files, TEMPLATES)[0]["apiVersion"] == "resource.k8s.io/v1beta2"


@pytest.mark.parametrize("version", ["1.34.2", "v1.35.0"])
def test_a_kubernetes_the_driver_release_supports_gets_no_warning(version):
    files = generate(decision(*NVIDIA_DRA, kubernetes_version=version))

    assert RELEASE_WARNING not in header(files, TEMPLATES)


def test_a_minor_without_the_patch_the_release_needs_is_asked_to_be_checked():
    files = generate(decision(*NVIDIA_DRA, kubernetes_version="1.34"))

    said = header(files, TEMPLATES)
    assert "step 1 says 1.34 without the patch release: make sure the cluster runs 1.34.2" in said


def test_a_chart_that_refuses_the_kubernetes_release_is_said_so():
    # HAMi's k8s-dra-driver v0.1.0: Kubernetes >= 1.34 (README.md#L11-L18), chart kubeVersion
    # ">=1.34.0-0" (chart/hami-dra-driver/Chart.yaml#L8).
    files = generate(decision("hami-dra-driver/kubelet-plugin", kubernetes_version="1.33"))

    said = header(files, TEMPLATES)
    assert "row hami-dra-driver/kubelet-plugin v0.1.0 supports Kubernetes 1.34 or later" in said
    assert "Helm refuses to install its chart there (kubeVersion >=1.34.0-0)" in said


# The driver's own chart (dra_values.py): values of dra-driver-nvidia-gpu v0.4.1
# https://github.com/kubernetes-sigs/dra-driver-nvidia-gpu/blob/v0.4.1/deployments/helm/dra-driver-nvidia-gpu/values.yaml
# and its refusals, templates/validation.yaml#L33-L43; install command docs/install.md#L23-L29.
DRIVER_VALUES = "dra-driver-nvidia-gpu/values.yaml"
CHART = "oci://registry.k8s.io/dra-driver-nvidia/charts/dra-driver-nvidia-gpu"


def values_of(files):
    return documents(files, DRIVER_VALUES)[0]


def install_lines(files):
    script = next(f for f in files if f.path == "install.sh").content
    return [line for line in script.splitlines() if not line.startswith("#")]


def test_the_gpu_plugin_is_installed_with_the_override_its_chart_demands():
    files = generate(decision(*NVIDIA_DRA, kubernetes_version="1.34"))

    assert check_files(files) == []
    values = values_of(files)
    # Without gpuResourcesEnabledOverride the chart fails to render while gpus.enabled is true.
    assert values["resources"] == {"gpus": {"enabled": True}, "computeDomains": {"enabled": False}}
    assert values["gpuResourcesEnabledOverride"] is True
    assert "nvidiaDriverRoot" not in values  # no GPU Operator: the chart's default "/" holds
    helm = [line for line in install_lines(files) if CHART in line]
    assert len(helm) == 1
    assert helm[0].startswith("helm upgrade --install dra-driver-nvidia-gpu " + CHART)
    assert "--version 0.4.1 -n dra-driver-nvidia-gpu --create-namespace" in helm[0]
    assert f"-f {DRIVER_VALUES}" in helm[0]


def test_compute_domains_alone_leave_the_gpu_plugin_off_under_the_operators_driver():
    files = generate(
        decision(
            "nvidia-device-plugin/whole-gpu",
            "nvidia-dra-driver-gpu/compute-domain",
            "nvidia-gpu-operator/clusterpolicy",
            kubernetes_version="1.34",
        )
    )

    assert check_files(files) == []
    values = values_of(files)
    assert values["resources"] == {"gpus": {"enabled": False}, "computeDomains": {"enabled": True}}
    assert "gpuResourcesEnabledOverride" not in values
    # The operator's driver container puts the driver under /run/nvidia/driver (install.md L127).
    assert values["nvidiaDriverRoot"] == "/run/nvidia/driver"
    lines = install_lines(files)
    operator = next(i for i, line in enumerate(lines) if "nvidia/gpu-operator" in line)
    driver = next(i for i, line in enumerate(lines) if CHART in line)
    assert operator < driver  # the driver the DRA plugin needs comes first


def test_dynamic_mig_turns_on_its_alpha_gate():
    files = generate(
        decision(
            "nvidia-dra-driver-gpu/dynamic-mig",
            "kubernetes-dra/core-allocation",
            kubernetes_version="1.34",
        )
    )

    assert check_files(files) == []
    assert values_of(files)["featureGates"] == {"DynamicMIG": True}


def test_the_plugin_stays_on_the_driver_pools_and_tolerates_their_taint():
    # Two pools: one by DRA claim, one on the device plugin. The kubelet plugin must not run on
    # the device plugin's nodes (two components handing out the same GPUs).
    rows = (
        bundle_row("nvidia-dra-driver-gpu/gpu-kubelet-plugin"),
        bundle_row("kubernetes-dra/core-allocation"),
        bundle_row("nvidia-device-plugin/whole-gpu"),
    )
    pools = {
        "claims": ["nvidia-dra-driver-gpu/gpu-kubelet-plugin", "kubernetes-dra/core-allocation"],
        "plugin": ["nvidia-device-plugin/whole-gpu"],
    }
    files = generate(decision(rows=rows, pools=pools, kubernetes_version="1.34", node_count=4))

    assert check_files(files) == []
    plugin = values_of(files)["kubeletPlugin"]
    terms = plugin["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"][
        "nodeSelectorTerms"
    ]
    assert len(terms) == 5  # the chart's five ways to recognise an NVIDIA node, each narrowed
    for term in terms:
        assert {"key": "ecomap.io/pool", "operator": "In", "values": ["claims"]} in term[
            "matchExpressions"
        ]
    nodes = {
        doc["pool"]: doc for f in files if f.kind == "node-pool" for doc in documents(files, f.path)
    }
    from evaluations.configgen.agents import tolerates

    for pool in ("claims", "plugin"):
        assert nodes[pool]["taints"]
        for taint in nodes[pool]["taints"]:
            assert tolerates(plugin["tolerations"], taint)
    # the chart's own toleration is kept beside EcoMap's
    assert {"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"} in plugin[
        "tolerations"
    ]
