"""The generated configuration checked against the upstream releases it targets, not against
EcoMap's own schemas (issue 39): every custom resource validates against its CRD's
openAPIV3Schema at the decided release, and every Helm value EcoMap sets is a key of that
chart's values.yaml. The upstream files are test data (tests/data/upstream/SOURCES.md names
the repository, tag, path and licence of each; scripts/refresh-upstream-schemas refreshes them).

The decisions: the expert profiles' top three stacks (whole GPUs, MIG single and mixed,
time-slicing, HAMi with Kueue and Volcano, KAI, DRA, AMD partitions, Intel Gaudi, multi-group
fleets), and the demo's approved decision with Kueue 0.10.1 installed.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft7Validator

from evaluations.configgen.generate_amd import OPERATOR_VERSION
from evaluations.configgen.selectors import evaluation_config
from evaluations.models import Evaluation
from tests.evaluations.configgen.test_admission import _decisions

UPSTREAM = Path(__file__).resolve().parents[2] / "data" / "upstream"
# The upstream repository of each decided project whose files EcoMap generates.
REPOSITORIES = {
    "kueue": "kubernetes-sigs+kueue",
    "volcano": "volcano-sh+volcano",
    "kai-scheduler": "kai-scheduler+KAI-Scheduler",
    "nvidia-gpu-operator": "NVIDIA+gpu-operator",
    "nvidia-device-plugin": "NVIDIA+k8s-device-plugin",
    "hami": "Project-HAMi+HAMi",
    "amd-gpu-operator": "ROCm+gpu-operator",
    "nvidia-dra-driver-gpu": "kubernetes-sigs+dra-driver-nvidia-gpu",
}
# The project whose custom resources or chart a generated file's kind configures.
CUSTOM_RESOURCES = {"kueue": "kueue", "volcano": "volcano", "kai-scheduler": "kai-scheduler"}
CUSTOM_RESOURCES["amd-gpu-operator"] = "amd-gpu-operator"
# The examples hold core objects and, for NVLink training, the DRA driver's ComputeDomain.
CUSTOM_RESOURCES["workload-example"] = "nvidia-dra-driver-gpu"
CORE = {"batch/v1", "apps/v1", "v1"}
VALUES = {
    "kueue-values": "kueue",
    "volcano-values": "volcano",
    "gpu-operator-values": "nvidia-gpu-operator",
    "nvidia-device-plugin-values": "nvidia-device-plugin",
    "hami-values": "hami",
    "dra-driver-nvidia-gpu-values": "nvidia-dra-driver-gpu",
    "amd-gpu-operator-values": "amd-gpu-operator",
}


def _tag(version: str) -> str:
    return "v" + version.removeprefix("v")


def _pruning(schema: Any) -> Any:
    """The schema as the API server applies it: a field a structural schema does not declare is
    pruned (dropped without an error), so here it is refused, as `additionalProperties: false`
    wherever properties are declared and unknown fields are not preserved."""
    if isinstance(schema, list):
        return [_pruning(item) for item in schema]
    if not isinstance(schema, dict):
        return schema
    out = {key: _pruning(value) for key, value in schema.items()}
    if (
        "properties" in out
        and "additionalProperties" not in out
        and not out.get("x-kubernetes-preserve-unknown-fields")
    ):
        out["additionalProperties"] = False
    return out


def _crds() -> dict[tuple[str, str, str, str], dict[str, Any]]:
    """(repository, tag, apiVersion, kind) -> the schema that version of the CRD serves."""
    found = {}
    for path in UPSTREAM.glob("*/*/*.crd.json"):
        crd = json.loads(path.read_text(encoding="utf-8"))
        for version, schema in crd["versions"].items():
            api = f"{crd['group']}/{version}"
            found[(path.parts[-3], path.parts[-2], api, crd["kind"])] = _pruning(schema)
    return found


CRDS = _crds()


def _values(repository: str, tag: str) -> dict[str, Any] | None:
    path = UPSTREAM / repository / tag / "values.json"
    return json.loads(path.read_text(encoding="utf-8")) if path.exists() else None


def _unknown_keys(set_: Any, chart: Any, path: str = "") -> list[str]:
    """Every key EcoMap sets that the chart's values.yaml does not have (lists and free-form
    maps of the chart — an empty {} default — take anything)."""
    if not isinstance(set_, dict) or not isinstance(chart, dict) or chart == {}:
        return []
    missing = []
    for key, value in set_.items():
        where = f"{path}.{key}" if path else key
        if key not in chart:
            missing.append(where)
        else:
            missing += _unknown_keys(value, chart[key], where)
    return missing


def _problems(facts_rows, files, checked: Counter) -> list[str]:
    # DeviceConfigs are written for the AMD GPU Operator's pin even when the decision has no
    # operator row (generate_amd.OPERATOR_VERSION; install.sh then does not apply them).
    versions = {"amd-gpu-operator": OPERATOR_VERSION}
    versions |= {row.project: row.version for row in facts_rows}
    problems = []
    for file in files:
        project = CUSTOM_RESOURCES.get(file.kind)
        if project is not None and project in versions:
            repository, tag = REPOSITORIES[project], _tag(versions[project])
            for doc in file.documents:
                data = doc.data
                if data.get("kind") == "ConfigMap" or data.get("apiVersion") in CORE:
                    continue  # a core object, not a custom resource
                key = (repository, tag, data.get("apiVersion"), data.get("kind"))
                schema = CRDS.get(key)
                if schema is None:
                    if any(k[:2] == (repository, tag) for k in CRDS):
                        problems.append(f"{file.path}: {key[2]} {key[3]} is not served at {tag}")
                    continue
                checked[key] += 1
                for error in Draft7Validator(schema).iter_errors(data):
                    where = "/".join(map(str, error.absolute_path)) or "$"
                    problems.append(f"{file.path} ({tag} CRD): {where}: {error.message}")
        project = VALUES.get(file.kind)
        if project is not None and project in versions:
            repository, tag = REPOSITORIES[project], _tag(versions[project])
            chart = _values(repository, tag)
            if chart is None:
                continue
            checked[(repository, tag, "values")] += 1
            problems += [
                f"{file.path}: {key} is not a key of {repository} {tag} values.yaml"
                for key in _unknown_keys(file.documents[0].data, chart)
            ]
    return problems


@pytest.fixture(scope="module")
def expert_files():
    from evaluations.configgen.generate import generate
    from tests.evaluations.configgen.known_gaps import known_gap

    out = []
    for where, facts in _decisions():
        try:
            out.append((where, facts, generate(facts)))
        except ValueError as exc:
            assert known_gap(where.split(" #")[0], str(exc)), f"{where}: {exc}"
    return out


def test_every_expert_decision_validates_against_the_upstream_release_it_targets(expert_files):
    checked: Counter = Counter()
    problems = [
        f"{where}: {problem}"
        for where, facts, files in expert_files
        for problem in _problems(facts.rows, files, checked)
    ]

    assert problems == []
    # Every vendored CRD kind at the catalog's pins and every chart was really checked.
    kinds = {(k[0], k[3]) for k in checked if len(k) == 4}
    assert {
        ("kubernetes-sigs+kueue", "ClusterQueue"),
        ("kubernetes-sigs+kueue", "LocalQueue"),
        ("kubernetes-sigs+kueue", "ResourceFlavor"),
        ("volcano-sh+volcano", "Queue"),
        ("kai-scheduler+KAI-Scheduler", "Queue"),
        ("ROCm+gpu-operator", "DeviceConfig"),
        ("kubernetes-sigs+dra-driver-nvidia-gpu", "ComputeDomain"),
    } <= kinds
    charts = {k[0] for k in checked if len(k) == 3}
    assert {
        "kubernetes-sigs+kueue",
        "NVIDIA+gpu-operator",
        "Project-HAMi+HAMi",
        "volcano-sh+volcano",
        "kubernetes-sigs+dra-driver-nvidia-gpu",
    } <= charts


def test_the_device_plugins_own_chart_gets_only_keys_it_has():
    # Two pools on the NVIDIA device plugin's own chart (no GPU Operator): its values file
    # carries the pools' toleration.
    from catalog.engine.profile import Profile
    from evaluations.configgen.generate import generate
    from evaluations.configgen.model import DecisionFacts
    from tests.evaluations.configgen.test_generate import bundle_row

    facts = DecisionFacts(
        evaluation_id=44,
        rows=(
            bundle_row("nvidia-device-plugin", "whole-gpu"),
            bundle_row("nvidia-device-plugin", "time-slicing"),
            bundle_row("kueue", "controller"),
        ),
        profile=Profile.from_dict(
            {"workload_types": ["training", "interactive"], "tenant_count": 2,
             "gpu_model": "L40S", "node_count": 4, "gpus_per_node": 4}
        ),
        pools={
            "training": ["nvidia-device-plugin/whole-gpu"],
            "interactive": ["nvidia-device-plugin/time-slicing"],
        },
    )  # fmt: skip
    checked: Counter = Counter()

    assert _problems(facts.rows, generate(facts), checked) == []
    assert ("NVIDIA+k8s-device-plugin", "v0.20.0", "values") in checked


def test_a_field_the_release_would_prune_or_an_api_it_does_not_serve_is_found():
    from evaluations.configgen.model import Document, GeneratedFile, RowFacts

    queue = {
        "apiVersion": "kueue.x-k8s.io/v1beta1",
        "kind": "ClusterQueue",
        "metadata": {"name": "clinical"},
        "spec": {"cohortName": "evaluation-1", "resourceGroups": []},  # v1beta2's name
    }
    rows = (RowFacts(ref="kueue/controller", version="0.10.1"),)
    files = [GeneratedFile("kueue/cluster-queues.yaml", "kueue", [Document(queue)])]

    problems = _problems(rows, files, Counter())
    assert any("spec: Additional properties are not allowed ('cohortName'" in p for p in problems)
    queue["apiVersion"] = "kueue.x-k8s.io/v1beta2"
    assert _problems(rows, files, Counter()) == [
        "kueue/cluster-queues.yaml: kueue.x-k8s.io/v1beta2 ClusterQueue is not served at v0.10.1"
    ]


def test_a_key_the_chart_does_not_have_is_found():
    chart = _values("Project-HAMi+HAMi", "v2.10.0")

    assert _unknown_keys({"devicePlugin": {"tolerations": []}}, chart) == []
    assert _unknown_keys({"devicePlugin": {"tolerationz": []}}, chart) == [
        "devicePlugin.tolerationz"
    ]


@pytest.mark.django_db
def test_an_installed_kueue_0_10_gets_objects_its_own_crds_accept(approved):
    from evaluations.configgen.selectors import decision_facts

    approved.profile = {
        **approved.profile,
        "installed": [{"project": "kueue", "version": "0.10.1"}],
    }
    approved.save(update_fields=["profile"])
    evaluation = Evaluation.objects.get(pk=approved.pk)
    checked: Counter = Counter()

    problems = _problems(decision_facts(evaluation).rows, evaluation_config(evaluation), checked)

    assert problems == []
    assert ("kubernetes-sigs+kueue", "v0.10.1", "kueue.x-k8s.io/v1beta1", "ClusterQueue") in checked
    assert ("kubernetes-sigs+kueue", "v0.10.1", "values") in checked


def test_kueue_over_dra_devices_validates_upstream():
    from evaluations.configgen.generate import generate
    from tests.evaluations.configgen.test_admission import _gaudi_with_kueue

    facts = _gaudi_with_kueue()
    checked: Counter = Counter()

    assert _problems(facts.rows, generate(facts), checked) == []
    assert ("kubernetes-sigs+kueue", "v0.19.2", "kueue.x-k8s.io/v1beta2", "ClusterQueue") in checked
