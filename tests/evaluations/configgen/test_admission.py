"""Configuration a cluster would admit and run (issue 39): per-node agents tolerate the pools'
taints, Kueue admits pods that ask for CPU and memory, a tenant that never shares lends and
borrows nothing; and a configuration that fails one of these is not served.

Upstream expectations, at the releases the catalog pins:
- GPU Operator v26.7.0 values.yaml: `daemonsets.tolerations` (L41-L48) and
  `node-feature-discovery.worker.tolerations` (L618-L637) schedule its per-node pods;
- HAMi v2.10.0 values.yaml `devicePlugin.tolerations` (L421), empty by default;
- NVIDIA device plugin v0.20.0 chart values.yaml `tolerations` (L86-L93);
- Kueue: a workload is admitted only when its ClusterQueue covers every requested resource not
  excluded by `resources.excludeResourcePrefixes` (Configuration v1beta1 from v0.9, v1beta2),
  and the chart's managerConfig.controllerManagerConfigYaml replaces its default whole;
- Kueue ClusterQueue: no cohort, no lending or borrowing (`spec.cohort`/`cohortName`);
  `preemption.reclaimWithinCohort: Any` takes lent quota back.
"""

from __future__ import annotations

import pytest
import yaml
from django.core.management import call_command
from django.core.management.base import CommandError

from catalog.engine.profile import Profile
from evaluations.configgen.admission import (
    admission_problems,
    isolated_tenants_lend,
    kai_holds_non_preemptible,
)
from evaluations.configgen.agents import POOL_TOLERATION, tolerates, untolerated
from evaluations.configgen.generate import generate
from evaluations.configgen.kueue_config import (
    EXCLUDED_PREFIXES,
    admits_cpu_and_memory,
    chart_config,
)
from evaluations.configgen.model import DecisionFacts
from evaluations.configgen.selectors import evaluation_config
from evaluations.engine.recommend import recommend
from evaluations.models import Evaluation
from tests.evaluations.configgen.catalog_rows import bundle_row
from tests.evaluations.configgen.known_gaps import known_gap
from tests.evaluations.engine.test_recommend import load_builtin_catalog
from tests.evaluations.expert_profiles.profiles import PROFILES

TAINT = {"key": "ecomap.io/pool", "value": "training", "effect": "NoSchedule"}


def _file(files, path: str):
    return next(f for f in files if f.path == path)


def _docs(files, path: str) -> list[dict]:
    return [doc for doc in yaml.safe_load_all(_file(files, path).content) if doc]


# -- the toleration rule, as Kubernetes matches it -----------------------------------------------


@pytest.mark.parametrize(
    ("toleration", "expected"),
    [
        (POOL_TOLERATION, True),
        ({"operator": "Exists"}, True),  # an empty key with Exists tolerates everything
        ({"key": "ecomap.io/pool", "operator": "Equal", "value": "training"}, True),
        ({"key": "ecomap.io/pool", "operator": "Equal", "value": "serving"}, False),
        ({"key": "ecomap.io/pool", "operator": "Exists", "effect": "NoExecute"}, False),
        ({"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}, False),
    ],
)
def test_tolerations_match_taints_as_the_scheduler_does(toleration, expected):
    assert tolerates([toleration], TAINT) is expected


# -- every expert profile's stacks, taken as decisions ---------------------------------------------


def _decisions() -> list[tuple[str, DecisionFacts]]:
    rows = load_builtin_catalog()
    found = []
    for expert in PROFILES:
        profile = Profile.from_dict(expert.profile)
        for item in recommend(profile, rows, limit=3):
            stack = item.to_dict()
            details = stack.get("pool_details") or {}
            facts = DecisionFacts(
                evaluation_id=stack["rank"],
                rows=tuple(bundle_row(ref) for ref in stack["rows"]),
                profile=profile,
                pools={name: list(refs) for name, refs in stack["pools"].items()},
                pool_tenant_sharing={n: d.get("tenant_sharing", "") for n, d in details.items()},
                pool_groups={n: d["node_group"] for n, d in details.items() if d.get("node_group")},
                tenants=tuple(tenant.name for tenant in profile.tenants) or None,
            )
            found.append((f"{expert.name} #{stack['rank']}", facts))
    return found


@pytest.fixture(scope="module")
def generated():
    out = []
    for where, facts in _decisions():
        try:
            out.append((where, facts, generate(facts)))
        except ValueError as exc:
            if not known_gap(where.split(" #")[0], str(exc)):
                raise
    return out


def test_the_matrix_covers_the_paths_that_need_these_checks(generated):
    kinds = {file.kind for _where, _facts, files in generated for file in files}
    assert {"gpu-operator-values", "hami-values", "kueue-values", "kueue", "kai-scheduler"} <= kinds
    tainted = [
        where
        for where, _facts, files in generated
        if any(f.kind == "node-pool" and f.documents[0].data["taints"] for f in files)
    ]
    assert len(tainted) >= 10


def test_every_expert_decision_gives_configuration_a_cluster_admits(generated):
    problems = [
        f"{where}: {problem}"
        for where, facts, files in generated
        for problem in admission_problems(facts, files)
    ]
    assert problems == []


def test_the_gpu_operators_pods_tolerate_every_pool_and_keep_the_chart_defaults(generated):
    seen = 0
    for _where, _facts, files in generated:
        values = [f for f in files if f.kind == "gpu-operator-values"]
        pools = [f for f in files if f.kind == "node-pool" and f.documents[0].data["taints"]]
        if not values or not pools:
            continue
        seen += 1
        doc = values[0].documents[0].data
        daemonsets = doc["daemonsets"]["tolerations"]
        assert {"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"} in daemonsets
        worker = doc["node-feature-discovery"]["worker"]["tolerations"]
        assert worker[0]["key"] == "node-role.kubernetes.io/control-plane"
        for pool in pools:
            for taint in pool.documents[0].data["taints"]:
                assert tolerates(daemonsets, taint) and tolerates(worker, taint)
    assert seen


def test_a_values_file_without_the_pool_toleration_is_found(generated):
    _where, _facts, files = next(
        (w, f, fs) for w, f, fs in generated if any(x.kind == "gpu-operator-values" for x in fs)
        and any(x.kind == "node-pool" and x.documents[0].data["taints"] for x in fs)
    )  # fmt: skip
    values = _file(files, "gpu-operator/values.yaml").documents[0].data
    values["daemonsets"]["tolerations"] = values["daemonsets"]["tolerations"][:1]

    problems = untolerated(files)
    assert problems and "daemonsets.tolerations does not tolerate pool" in problems[0]


def test_kueue_values_keep_the_chart_default_and_exclude_cpu_and_memory(generated):
    where, facts, files = next(
        (w, f, fs) for w, f, fs in generated if any(x.kind == "kueue-values" for x in fs)
    )
    kueue = next(row for row in facts.rows if row.project == "kueue")
    text = (
        _file(files, "kueue/values.yaml")
        .documents[0]
        .data["managerConfig"]["controllerManagerConfigYaml"]
    )
    config = yaml.safe_load(text)

    default = chart_config(kueue.version)
    assert {k: v for k, v in config.items() if k != "resources"} == default, where
    assert set(EXCLUDED_PREFIXES) <= set(config["resources"]["excludeResourcePrefixes"])
    assert "-f kueue/values.yaml" in _file(files, "install.sh").content
    # Without it, a pod asking for CPU is refused by every ClusterQueue.
    without = [f for f in files if f.kind != "kueue-values"]
    refused = admits_cpu_and_memory(without)
    assert any("a pod asking for cpu is never admitted" in p for p in refused)


def test_a_tenant_that_never_shares_is_in_no_cohort_and_the_others_reclaim(generated):
    where, facts, files = next(
        (w, f, fs) for w, f, fs in generated if w.startswith("hospital-a100-l4-kueue")
    )
    queues = {d["metadata"]["name"]: d for d in _docs(files, "kueue/cluster-queues.yaml")}

    clinical = queues["clinical"]["spec"]
    assert "cohort" not in clinical and "cohortName" not in clinical, where
    research = queues["research"]["spec"]
    assert research.get("cohort") or research.get("cohortName")
    assert research["preemption"]["reclaimWithinCohort"] == "Any"

    # As the files before issue 39 had it: every tenant in the evaluation's cohort.
    file = _file(files, "kueue/cluster-queues.yaml")
    for doc in file.documents:
        if doc.data["metadata"]["name"] == "clinical":
            doc.data["spec"]["cohortName"] = "evaluation-1"
    assert isolated_tenants_lend(facts, files)


def test_kai_queues_leave_cpu_and_memory_unlimited_for_non_preemptible_work(generated):
    where, _facts, files = next(
        (w, f, fs) for w, f, fs in generated if any(x.kind == "kai-scheduler" for x in fs)
    )
    queues = _docs(files, "kai-scheduler/queues.yaml")
    for queue in queues:
        for resource in ("cpu", "memory"):
            assert queue["spec"]["resources"][resource]["quota"] == -1, where

    file = _file(files, "kai-scheduler/queues.yaml")
    file.documents[-1].data["spec"]["resources"]["cpu"]["quota"] = 0  # as before issue 39
    assert kai_holds_non_preemptible(files)


# -- the installed Kueue, and what is served -----------------------------------------------------


@pytest.mark.django_db
def test_an_installed_kueue_0_10_gets_its_own_chart_default_v1beta1(approved):
    installed = [{"project": "kueue", "version": "0.10.1"}]
    approved.profile = {**approved.profile, "installed": installed}
    approved.save(update_fields=["profile"])

    files = evaluation_config(Evaluation.objects.get(pk=approved.pk))
    config = yaml.safe_load(
        _file(files, "kueue/values.yaml")
        .documents[0]
        .data["managerConfig"]["controllerManagerConfigYaml"]
    )
    assert config["apiVersion"] == "config.kueue.x-k8s.io/v1beta1"
    assert config["metrics"]["bindAddress"] == ":8080"  # 0.10.1's chart, not 0.19.2's :8443
    assert "cpu" in config["resources"]["excludeResourcePrefixes"]


@pytest.mark.django_db
def test_a_kueue_release_without_chart_facts_gets_a_step_by_hand(approved):
    installed = [{"project": "kueue", "version": "0.8.1"}]
    approved.profile = {**approved.profile, "installed": installed}
    approved.save(update_fields=["profile"])

    files = evaluation_config(Evaluation.objects.get(pk=approved.pk))
    assert not any(f.path == "kueue/values.yaml" for f in files)
    script = _file(files, "install.sh").content
    assert "Kueue 0.8.1: EcoMap holds no chart default Configuration" in script
    assert "excludeResourcePrefixes" in script


@pytest.mark.django_db
def test_configuration_that_would_not_run_is_refused_with_its_findings(
    approved, client, monkeypatch
):
    from evaluations.configgen import selectors

    monkeypatch.setattr(
        selectors, "admission_problems", lambda facts, files: ["first finding", "second finding"]
    )
    client.force_login(approved.team.memberships.first().user)

    response = client.get(f"/api/v1/evaluations/{approved.pk}/config/")
    assert response.status_code == 409
    body = response.json()
    assert "would not run as decided (2 findings" in body["detail"]
    assert [e["message"] for e in body["errors"]] == ["first finding", "second finding"]
    archive = client.get(f"/api/v1/evaluations/{approved.pk}/config.tar.gz")
    assert archive.status_code == 409
    page = client.get(f"/evaluations/{approved.pk}/configuration/")
    assert page.status_code == 200
    assert "second finding" in page.content.decode()
    with pytest.raises(CommandError) as refused:
        call_command("export_config", str(approved.pk), "--tar", "/dev/null")
    assert "  - first finding\n  - second finding" in str(refused.value)


def test_the_operators_mig_strategy_is_the_one_every_pool_is_generated_for():
    # The GPU Operator turns mig.strategy into MIG_STRATEGY on every node's device plugin, and a
    # flag from the environment overrides the config file's (k8s-device-plugin v0.20.0
    # api/config/v1/config.go, NewConfig): a single-strategy pool beside a mixed one runs mixed.
    from tests.evaluations.configgen.test_generate import bundle_row as row

    facts = DecisionFacts(
        evaluation_id=43,
        rows=(
            row("nvidia-gpu-operator", "clusterpolicy"),
            row("nvidia-device-plugin", "mig-single"),
            row("nvidia-device-plugin", "mig-mixed"),
            row("nvidia-mig", "mig-manager"),
            row("kueue", "controller"),
        ),
        profile=Profile.from_dict(
            {
                "workload_types": ["online_inference", "interactive"],
                "tenant_count": 2,
                "gpu_model": "A100 80GB",
                "node_count": 4,
                "gpus_per_node": 8,
            }
        ),
        pools={
            "serving": ["nvidia-device-plugin/mig-single", "nvidia-mig/mig-manager"],
            "notebooks": ["nvidia-device-plugin/mig-mixed", "nvidia-mig/mig-manager"],
        },
    )
    files = generate(facts)

    assert _docs(files, "gpu-operator/values.yaml")[0]["mig"]["strategy"] == "mixed"
    for pool in ("serving", "notebooks"):
        config = _docs(files, f"nvidia-device-plugin/{pool}.yaml")[0]
        assert config["flags"]["migStrategy"] == "mixed", pool
    covered = _docs(files, "kueue/cluster-queues.yaml")[0]["spec"]["resourceGroups"][0]
    assert any(name.startswith("nvidia.com/mig-") for name in covered["coveredResources"])
    assert admission_problems(facts, files) == []
    # Only the profiles of the sized layouts, not every profile the row lists (23 before).
    profiles = {
        profile
        for entries in _docs(files, "mig-parted/config.yaml")[0]["mig-configs"].values()
        for entry in entries
        for profile in entry.get("mig-devices") or {}
    }
    mig = {n for n in covered["coveredResources"] if n.startswith("nvidia.com/mig-")}
    assert mig == {f"nvidia.com/mig-{profile}" for profile in profiles}

    _file(files, "nvidia-device-plugin/serving.yaml").documents[0].data["flags"]["migStrategy"] = (
        "single"  # as the files before issue 39 had it
    )
    assert any("mig.strategy mixed is in force" in p for p in admission_problems(facts, files))


# -- quotas by the named tenants' work, and how work enters ----------------------------------------


def _quotas(files) -> dict[str, dict[str, int]]:
    """Tenant -> flavor (pool) -> the sum of its nominal quotas there."""
    return {
        doc["metadata"]["name"]: {
            flavor["name"]: sum(r["nominalQuota"] for r in flavor["resources"])
            for flavor in doc["spec"]["resourceGroups"][0]["flavors"]
        }
        for doc in _docs(files, "kueue/cluster-queues.yaml")
    }


def test_each_named_tenant_gets_quota_in_the_pools_that_run_its_work(generated):
    # The hospital of issue 38: clinical serves, research trains, students use notebooks. Before
    # issue 39 every tenant got a third of every pool (clinical: 2 training GPUs, no inference).
    where, _facts, files = next(
        (w, f, fs) for w, f, fs in generated if w.startswith("hospital-a100-l4-kueue")
    )
    quotas = _quotas(files)
    owner = {"training": "research", "inference": "clinical", "interactive": "students"}
    for pool, tenant in owner.items():
        if pool not in quotas[tenant]:
            continue  # this stack has no such pool
        assert quotas[tenant][pool] > 0, (where, pool)
        assert all(quotas[other][pool] == 0 for other in quotas if other != tenant), (where, pool)


def test_every_tenant_gets_an_example_per_pool_it_has_quota_in_and_install_sh_skips_them(
    generated,
):
    checked = {"kueue": 0, "volcano": 0, "kai-scheduler": 0, "dra": 0, "compute-domain": 0}
    for where, facts, files in generated:
        examples = {f.path: f for f in files if f.kind == "workload-example"}
        if not examples:
            continue
        assert "examples/" not in _file(files, "install.sh").content, where
        taints = {
            f.documents[0].data["pool"]: f.documents[0].data["taints"]
            for f in files
            if f.kind == "node-pool"
        }
        templates = {
            (d.data["metadata"]["namespace"], d.data["metadata"]["name"])
            for f in files
            if f.path == "dra/resource-claim-templates.yaml"
            for d in f.documents
        }
        projects = facts.projects()
        for path, file in examples.items():
            tenant = path.removeprefix("examples/").removesuffix(".yaml")
            channels = {
                d.data["spec"]["channel"]["resourceClaimTemplate"]["name"]
                for d in file.documents
                if d.data["kind"] == "ComputeDomain"
            }
            for doc in file.documents:
                data = doc.data
                if data["kind"] == "ComputeDomain":
                    assert data["metadata"]["namespace"] == tenant
                    checked["compute-domain"] += 1
                    continue
                pod = data["spec"]["template"]["spec"]
                if channels and data["kind"] == "Job":
                    claimed = {c["resourceClaimTemplateName"] for c in pod["resourceClaims"]}
                    assert channels & claimed, (where, path)
                pool = pod["nodeSelector"]["ecomap.io/pool"]
                assert data["metadata"]["namespace"] == tenant
                for taint in taints[pool]:
                    assert tolerates(pod.get("tolerations", []), taint), (where, path)
                labels = data["metadata"]["labels"]
                if "kueue" in projects and data["kind"] == "Job":
                    assert labels["kueue.x-k8s.io/queue-name"] == "gpu"
                    checked["kueue"] += 1
                if "volcano" in projects:
                    annotations = data["spec"]["template"]["metadata"]["annotations"]
                    assert annotations["scheduling.volcano.sh/queue-name"] == tenant
                    assert pod["schedulerName"] == "volcano"
                    checked["volcano"] += 1
                if "kai-scheduler" in projects:
                    assert labels["kai.scheduler/queue"] == tenant
                    assert pod["schedulerName"] == "kai-scheduler"
                    checked["kai-scheduler"] += 1
                for claim in pod.get("resourceClaims", []):
                    if claim["resourceClaimTemplateName"] in channels:
                        continue  # the ComputeDomain's own template (the driver makes it)
                    assert (tenant, claim["resourceClaimTemplateName"]) in templates, where
                    checked["dra"] += 1
    assert all(checked.values()), checked


@pytest.mark.parametrize("scheduler", ["volcano/scheduler", "kai-scheduler/scheduler"])
def test_hami_under_volcano_or_kai_is_refused_with_the_alternative(scheduler):
    # HAMi v2.10.0 pkg/scheduler/webhook.go#L64-L69: a pod with another schedulerName is let
    # through untouched, and HAMi's device plugin allocates only what HAMi's scheduler assigned.
    # The round trip of such a decision reported "Volcano scheduler cannot put quota on or
    # place nvidia.com/gpumem (only the scheduler that HAMi device-plugin requires can assign it)".
    from evaluations.configgen.model import ConfigRefused
    from tests.evaluations.configgen.test_generate import bundle_row as row

    project, key = scheduler.split("/")
    facts = DecisionFacts(
        evaluation_id=45,
        rows=(
            row("nvidia-gpu-operator", "clusterpolicy"),
            row("hami", "device-plugin"),
            row("hami", "scheduler-extender"),
            row(project, key),
        ),
        profile=Profile.from_dict(
            {"workload_types": ["online_inference"], "tenant_count": 2,
             "gpu_model": "A100 80GB", "node_count": 2, "gpus_per_node": 8}
        ),
    )  # fmt: skip

    with pytest.raises(ConfigRefused, match="volcano-vgpu-device-plugin"):
        generate(facts)


def test_volcano_queues_with_deserved_get_the_capacity_plugin_and_reclaim(generated):
    # Volcano v1.15.1 how_to_use_capacity_plugin.md: "add reclaim action", "add this field
    # [capacity] and remove proportion plugin"; the chart's default has neither.
    from evaluations.configgen.volcano_config import chart_default, reclaims_deserved

    where, facts, files = next(
        (w, f, fs) for w, f, fs in generated if any(x.kind == "volcano" for x in fs)
    )
    text = (
        _file(files, "volcano/values.yaml").documents[0].data["custom"]["scheduler_config_override"]
    )
    config = yaml.safe_load(text)
    plugins = [p["name"] for tier in config["tiers"] for p in tier["plugins"]]

    assert "reclaim" in [a.strip() for a in config["actions"].split(",")], where
    assert "capacity" in plugins and "proportion" not in plugins
    default = chart_default("v1.15.1")
    assert [p["name"] for p in default["tiers"][0]["plugins"]] == plugins[:3]  # the rest kept
    assert "-f volcano/values.yaml" in _file(files, "install.sh").content

    doc = _file(files, "volcano/values.yaml").documents[0]
    doc.data["custom"]["scheduler_config_override"] = yaml.safe_dump(default)
    assert len(reclaims_deserved(files)) == 2


def _gaudi_with_kueue(kueue_version: str | None = None) -> DecisionFacts:
    from dataclasses import replace

    kueue = bundle_row("kueue/controller")
    if kueue_version is not None:
        kueue = replace(kueue, version=kueue_version)
    return DecisionFacts(
        evaluation_id=46,
        rows=(
            bundle_row("intel-resource-drivers/gaudi-kubelet-plugin"),
            bundle_row("kubernetes-dra/resource-api"),
            kueue,
        ),
        profile=Profile.from_dict(
            {
                "workload_types": ["training"],
                "kubernetes_version": "1.34",
                "node_groups": [
                    {"name": "gaudi", "gpu_model": "Gaudi 3", "nodes": 4, "gpus_per_node": 8}
                ],
                "tenants": [
                    {"name": "llm", "workloads": ["training"]},
                    {"name": "speech", "workloads": ["training"]},
                ],
            }
        ),
        tenants=("llm", "speech"),
    )


def test_kueue_counts_dra_devices_through_device_class_mappings():
    # Kueue v0.19.2 setup_dra.md, "Set up the ResourceClaimTemplate path": map each DeviceClass
    # to a logical resource in resources.deviceClassMappings and cover that resource in the
    # ClusterQueue. Before, such a decision was refused ("no decided data-plane row advertises
    # a resource for Kueue to cover").
    facts = _gaudi_with_kueue()
    files = generate(facts)

    config = yaml.safe_load(
        _file(files, "kueue/values.yaml")
        .documents[0]
        .data["managerConfig"]["controllerManagerConfigYaml"]
    )
    assert config["resources"]["deviceClassMappings"] == [
        {"name": "dra.ecomap.io/gaudi-intel-com", "deviceClassNames": ["gaudi.intel.com"]}
    ]
    quotas = {
        doc["metadata"]["name"]: doc["spec"]["resourceGroups"][0]
        for doc in _docs(files, "kueue/cluster-queues.yaml")
    }
    for group in quotas.values():
        assert group["coveredResources"] == ["dra.ecomap.io/gaudi-intel-com"]
    total = sum(g["flavors"][0]["resources"][0]["nominalQuota"] for g in quotas.values())
    assert total == 32  # 4 nodes x 8 Gaudi 3, one device each
    assert admission_problems(facts, files) == []


def test_a_kueue_before_0_18_with_dra_devices_is_refused_with_the_release_that_counts_them():
    from evaluations.configgen.model import ConfigRefused

    with pytest.raises(ConfigRefused, match="deviceClassMappings from 0.18"):
        generate(_gaudi_with_kueue("0.10.1"))


def test_the_operators_device_plugin_stays_off_the_gpus_a_dra_driver_hands_out():
    # dra-driver-nvidia-gpu v0.4.1 docs/prerequisites.md#L41: the GPU Operator "with the NVIDIA
    # Kubernetes Device Plugin disabled". Before, its device plugin ran on the DRA pool too.
    from tests.evaluations.configgen.test_generate import bundle_row as row

    def facts(pools):
        plugin = [row("nvidia-device-plugin", "whole-gpu")] if len(pools) > 1 else []
        return DecisionFacts(
            evaluation_id=47,
            rows=(
                row("nvidia-gpu-operator", "clusterpolicy"),
                *plugin,
                bundle_row("nvidia-dra-driver-gpu/gpu-kubelet-plugin"),
                row("kueue", "controller"),
            ),
            profile=Profile.from_dict(
                {"workload_types": ["training", "online_inference"], "tenant_count": 2,
                 "gpu_model": "H100 80GB", "node_count": 4, "gpus_per_node": 8,
                 "kubernetes_version": "1.34"}
            ),
            pools=pools,
        )  # fmt: skip

    files = generate(
        facts(
            {
                "training": ["nvidia-device-plugin/whole-gpu"],
                "inference": ["nvidia-dra-driver-gpu/gpu-kubelet-plugin"],
            }
        )
    )
    nodes = {
        f.documents[0].data["pool"]: f.documents[0].data["labels"]
        for f in files
        if f.kind == "node-pool"
    }
    assert nodes["inference"]["nvidia.com/gpu.deploy.device-plugin"] == "false"
    assert "nvidia.com/gpu.deploy.device-plugin" not in nodes["training"]

    only_dra = generate(facts({"inference": ["nvidia-dra-driver-gpu/gpu-kubelet-plugin"]}))
    values = _docs(only_dra, "gpu-operator/values.yaml")[0]
    assert values["devicePlugin"]["enabled"] is False


def test_hamis_device_plugin_for_volcano_gets_volcanos_deviceshare_with_vgpus_on():
    # volcano-vgpu-device-plugin v1.12.0 README.md#L107-L110: deviceshare with
    # deviceshare.VGPUEnable: true in volcano-scheduler-configmap, or no vGPU pod is placed.
    from evaluations.configgen.volcano_config import schedules_vgpus
    from tests.evaluations.configgen.test_generate import bundle_row as row

    facts = DecisionFacts(
        evaluation_id=48,
        rows=(
            row("nvidia-gpu-operator", "clusterpolicy"),
            row("volcano-vgpu-device-plugin", "device-plugin"),
            row("volcano", "scheduler"),
        ),
        profile=Profile.from_dict(
            {"workload_types": ["online_inference", "interactive"], "tenant_count": 2,
             "gpu_model": "A100 80GB", "node_count": 4, "gpus_per_node": 8}
        ),
    )  # fmt: skip
    files = generate(facts)
    config = yaml.safe_load(
        _file(files, "volcano/values.yaml").documents[0].data["custom"]["scheduler_config_override"]
    )
    plugins = {p["name"]: p for tier in config["tiers"] for p in tier["plugins"]}

    assert plugins["deviceshare"]["arguments"]["deviceshare.VGPUEnable"] is True
    assert admission_problems(facts, files) == []
    example = _docs(files, "examples/tenant-1.yaml")[0]
    limits = example["spec"]["template"]["spec"]["containers"][0]["resources"]["limits"]
    assert limits == {"volcano.sh/vgpu-number": 1}

    doc = _file(files, "volcano/values.yaml").documents[0]
    doc.data["custom"]["scheduler_config_override"] = yaml.safe_dump(
        {**config, "tiers": [{"plugins": [{"name": "capacity"}]}]}
    )
    assert schedules_vgpus(facts, files)


def test_a_volcano_vgpu_pool_is_shared_by_vgpus_not_cut_into_mig_instances():
    # HAMi's device plugin for Volcano v1.12.0 runs HAMi-core by default (its MIG mode is its own
    # per-node `operatingmode`, doc/config.md); each GPU shows deviceSplitCount 10 vGPUs as
    # volcano.sh/vgpu-number and its memory in MiB as volcano.sh/vgpu-memory
    # (volcano-vgpu-device-plugin.yml#L33-L35, README.md#L152-L185). Before: the pool was sized
    # as 7g.80gb MIG instances, mig-parted cut every GPU, and the queues covered
    # nvidia.com/mig-7g.80gb with vGPU quotas at 0.
    from tests.evaluations.configgen.test_generate import bundle_row as row

    facts = DecisionFacts(
        evaluation_id=49,
        rows=(
            row("nvidia-gpu-operator", "clusterpolicy"),
            row("volcano-vgpu-device-plugin", "device-plugin"),
            row("volcano", "scheduler"),
        ),
        profile=Profile.from_dict(
            {"workload_types": ["online_inference", "training"], "tenant_count": 2,
             "gpu_model": "A100 80GB", "node_count": 4, "gpus_per_node": 8}
        ),
    )  # fmt: skip
    files = generate(facts)

    from evaluations.configgen.schemas import check_files

    assert check_files(files) == []
    assert admission_problems(facts, files) == []
    assert not any(f.path.startswith("mig-parted/") for f in files)
    node = _docs(files, "nodes/shared.yaml")[0]
    assert "mig_configs" not in node
    assert "nvidia.com/device-plugin.config" not in node["labels"]  # no NVIDIA plugin runs
    operator = _file(files, "gpu-operator/values.yaml").documents[0]
    assert operator.data["devicePlugin"]["enabled"] is False
    assert "volcano-vgpu-device-plugin presents the GPUs" in str(operator.why)
    queues = _docs(files, "volcano/queues.yaml")
    assert not [r for q in queues for r in q["spec"]["deserved"] if r.startswith("nvidia.com/")]
    number = sum(q["spec"]["deserved"]["volcano.sh/vgpu-number"] for q in queues)
    memory = sum(q["spec"]["deserved"]["volcano.sh/vgpu-memory"] for q in queues)
    assert number == 32 * 10  # 4 nodes x 8 GPUs, 10 vGPUs each
    assert memory == 32 * 80 * 1024  # MiB of 32 A100 80GB
