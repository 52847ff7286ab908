"""install.sh at the root of the generated files: the steps that apply them, kept as data (the
round trip installs the same Helm releases) and rendered with every argument shell-quoted.

Order: node labels and taints, the ConfigMaps the device plugin and the MIG manager read, one
`helm upgrade --install` per decided project with a verified chart (operators and device
plugins first, then schedulers and queues, then the rest), then `kubectl apply -f` of every
generated Kubernetes object (its CRDs are in by then). A decided project whose chart was not
verified gets a comment: install it as its documentation says."""

from __future__ import annotations

import re
import shlex
from collections.abc import Sequence
from dataclasses import dataclass, field

from evaluations.configgen.model import DecisionFacts, GeneratedFile

INSTALL_SCRIPT = "install-script"
INSTALL_PATH = "install.sh"


@dataclass(frozen=True, slots=True)
class Chart:
    """A project's Helm chart as its documentation installs it, at the decided release."""

    project: str
    release: str
    chart: str  # repo/chart or an oci:// reference
    namespace: str
    source: str  # where the documentation says so, at the release
    repository: tuple[str, str] | None = None  # (name, URL) for `helm repo add`
    v_prefix: bool = False  # chart versions spelled with a leading v (the GPU Operator's)
    values_kind: str = ""  # the generated values file's kind, passed with -f
    settings: tuple[tuple[str, str], ...] = ()  # --set KEY=VALUE (string values)

    def version(self, row_version: str) -> str:
        bare = row_version.removeprefix("v")
        return f"v{bare}" if self.v_prefix else bare


# Chart repositories and charts as each project's documentation gives them (cited per entry).
CHARTS: dict[str, Chart] = {
    chart.project: chart
    for chart in (
        Chart(
            "nvidia-gpu-operator",
            "gpu-operator",
            "nvidia/gpu-operator",
            "gpu-operator",
            "https://docs.nvidia.com/datacenter/cloud-native/gpu-operator/latest/getting-started.html",
            ("nvidia", "https://helm.ngc.nvidia.com/nvidia"),
            v_prefix=True,
            values_kind="gpu-operator-values",
        ),
        Chart(
            "nvidia-device-plugin",
            "nvdp",
            "nvdp/nvidia-device-plugin",
            "nvidia-device-plugin",
            # README "Deployment via helm" and "Multiple Config File Example" (config.name).
            "https://github.com/NVIDIA/k8s-device-plugin/blob/v0.20.0/README.md",
            ("nvdp", "https://nvidia.github.io/k8s-device-plugin"),
            settings=(("config.name", "ecomap-device-plugin-config"),),
        ),
        Chart(
            "hami",
            "hami",
            "hami-charts/hami",
            "kube-system",
            "https://github.com/Project-HAMi/HAMi/blob/v2.10.0/README.md",
            ("hami-charts", "https://project-hami.github.io/HAMi/"),
            values_kind="hami-values",
        ),
        Chart(
            "kueue",
            "kueue",
            "oci://registry.k8s.io/kueue/charts/kueue",
            "kueue-system",
            "https://github.com/kubernetes-sigs/kueue/blob/v0.19.2/"
            "site/content/en/docs/installation/_index.md",
        ),
        Chart(
            # README v1.5.1 "Quick Start" (helm repo add rocm ..., rocm/gpu-operator-charts in
            # kube-amd-gpu, --version v1.x; it needs cert-manager, which its README installs).
            "amd-gpu-operator",
            "amd-gpu-operator",
            "rocm/gpu-operator-charts",
            "kube-amd-gpu",
            "https://github.com/ROCm/gpu-operator/blob/v1.5.1/README.md",
            ("rocm", "https://rocm.github.io/gpu-operator"),
            v_prefix=True,
            values_kind="amd-gpu-operator-values",
        ),
        Chart(
            "volcano",
            "volcano",
            "volcano-sh/volcano",
            "volcano-system",
            "https://github.com/volcano-sh/volcano/blob/v1.15.1/README.md",
            ("volcano-sh", "https://volcano-sh.github.io/helm-charts"),
        ),
        Chart(
            # README v0.17.0 "Install from Production": release kai-scheduler in namespace
            # kai-scheduler from the OCI chart, --version v<release> (its migration guides
            # spell versions with the v, e.g. --version v0.14.0).
            "kai-scheduler",
            "kai-scheduler",
            "oci://ghcr.io/kai-scheduler/kai-scheduler/kai-scheduler",
            "kai-scheduler",
            "https://github.com/kai-scheduler/KAI-Scheduler/blob/v0.17.0/README.md#L67-L88",
            v_prefix=True,
        ),
    )
}
# Helm installs in a working order: operators and device plugins, then schedulers and queues.
ORDER = (
    "nvidia-gpu-operator",
    "amd-gpu-operator",
    "nvidia-device-plugin",
    "hami",
    "volcano",
    "kai-scheduler",
    "kueue",
)
# Files of objects whose CRDs (DeviceConfig) and reader (the Device Config Manager) come with the
# AMD GPU Operator: applied only when the decision has it (generate_amd.py).
NEEDS_PROJECT = {"amd-gpu-operator": "amd-gpu-operator"}
# What a chart needs in the cluster first that no decided row installs: said, not installed.
PREREQUISITES = {
    "amd-gpu-operator": "the AMD GPU Operator needs cert-manager: install it first as "
    "https://github.com/ROCm/gpu-operator/blob/v1.5.1/README.md#L40-L56 says",
}
DEVICE_PLUGIN_CONFIGMAP = "ecomap-device-plugin-config"
MIG_PARTED_CONFIGMAP = "ecomap-mig-parted-config"


@dataclass(frozen=True, slots=True)
class Step:
    """One command of install.sh: its arguments (quoted when rendered), why, and where it puts
    the names of a pool's nodes (an environment variable, split into one argument per node)."""

    argv: tuple[str, ...]
    why: str
    nodes: str = ""  # NODES_<POOL> inserted after argv[:nodes_at]
    nodes_at: int = 0
    apply: bool = False  # `argv --dry-run=client -o yaml | kubectl apply -f -`: rerunnable
    release: dict[str, str] = field(default_factory=dict)  # name, namespace, chart, version

    def render(self) -> str:
        words = [shlex.quote(a) for a in self.argv]
        if self.nodes:
            words.insert(self.nodes_at, f"${self.nodes}")
        line = " ".join(words)
        if self.apply:
            line += " --dry-run=client -o yaml | kubectl apply -f -"
        return line


def nodes_variable(pool: str, group: int | None = None) -> str:
    """NODES_<POOL> (or NODES_<POOL>_MIG_<n>): where the script reads a pool's node names."""
    name = "NODES_" + pool.upper().replace("-", "_")
    return name if group is None else f"{name}_MIG_{group}"


def _node_steps(files: Sequence[GeneratedFile]) -> list[Step]:
    steps = []
    for file in files:
        if file.kind != "node-pool":
            continue
        doc = file.documents[0].data
        pool, var = doc["pool"], nodes_variable(doc["pool"])
        labels = tuple(f"{k}={v}" for k, v in doc["labels"].items())
        steps.append(
            Step(
                ("kubectl", "label", "node", "--overwrite", *labels),
                f"{file.path}: the labels of pool {pool}'s {doc['nodes']} nodes",
                var,
                4,
            )
        )
        for taint in doc.get("taints", []):
            spec = f"{taint['key']}={taint.get('value', '')}:{taint['effect']}"
            steps.append(
                Step(
                    ("kubectl", "taint", "node", "--overwrite", spec),
                    f"{file.path}: pool {pool}'s taint",
                    var,
                    4,
                )
            )
        for index, group in enumerate(doc.get("mig_configs", [])):
            labels = tuple(f"{k}={v}" for k, v in group["labels"].items())
            steps.append(
                Step(
                    ("kubectl", "label", "node", "--overwrite", *labels),
                    f"{file.path}: the MIG layout of {group['nodes']} of pool {pool}'s nodes",
                    nodes_variable(pool, index),
                    4,
                )
            )
    return steps


def _configmap_steps(files: Sequence[GeneratedFile], namespace: str) -> list[Step]:
    steps = []
    plugin = [f for f in files if f.kind == "device-plugin-config"]
    if plugin:
        sources = tuple(
            f"--from-file={f.path.rpartition('/')[2].removesuffix('.yaml')}={f.path}"
            for f in plugin
        )
        steps.append(
            Step(
                ("kubectl", "create", "configmap", DEVICE_PLUGIN_CONFIGMAP, "-n", namespace)
                + sources,
                "one key per pool: the device plugin picks its node's by the "
                "nvidia.com/device-plugin.config label",
                apply=True,
            )
        )
    for file in files:
        if file.kind == "mig-parted-config":
            steps.append(
                Step(
                    (
                        "kubectl",
                        "create",
                        "configmap",
                        MIG_PARTED_CONFIGMAP,
                        "-n",
                        namespace,
                        f"--from-file=config.yaml={file.path}",
                    ),
                    "the MIG layouts the MIG manager applies by the nvidia.com/mig.config label",
                    apply=True,
                )
            )
    return steps


def install_steps(facts: DecisionFacts, files: Sequence[GeneratedFile]) -> list[Step]:
    """Every step of install.sh, in order, and a comment step for each decided project whose
    chart EcoMap did not verify."""
    projects = facts.projects()
    operator = "nvidia-gpu-operator" in projects
    plugin_namespace = CHARTS["nvidia-gpu-operator" if operator else "nvidia-device-plugin"]
    steps = _node_steps(files)
    namespaces = (
        {plugin_namespace.namespace}
        if any(f.kind in ("device-plugin-config", "mig-parted-config") for f in files)
        else set()
    )
    for namespace in sorted(namespaces):
        steps.append(
            Step(("kubectl", "create", "namespace", namespace), "for the ConfigMaps", apply=True)
        )
    steps += _configmap_steps(files, plugin_namespace.namespace)
    values = {f.kind: f.path for f in files}
    installed = [p for p in ORDER if p in projects]
    if operator and "nvidia-device-plugin" in installed:
        installed.remove("nvidia-device-plugin")  # the operator runs it (its values say how)
    for project in installed:
        chart = CHARTS[project]
        row = next(r for r in facts.rows if r.project == project)
        version = chart.version(row.version)
        if project in PREREQUISITES:
            steps.append(Step((), PREREQUISITES[project]))
        if chart.repository:
            name, url = chart.repository
            steps.append(
                Step(("helm", "repo", "add", "--force-update", name, url), f"{chart.source}")
            )
        argv = [
            "helm",
            "upgrade",
            "--install",
            chart.release,
            chart.chart,
            "--version",
            version,
            "-n",
            chart.namespace,
            "--create-namespace",
            "--wait",
        ]
        if chart.values_kind in values:
            argv += ["-f", values[chart.values_kind]]
        for key, value in chart.settings:
            argv += ["--set-string", f"{key}={value}"]
        steps.append(
            Step(
                tuple(argv),
                f"{row.cites()}; chart as {chart.source} installs it",
                release={
                    "name": chart.release,
                    "namespace": chart.namespace,
                    "chart": f"{chart.chart.rpartition('/')[2]}-{version}",
                    "app_version": row.version,
                    "project": project,
                },
            )
        )
    for project in sorted(projects - set(CHARTS)):
        row = next(r for r in facts.rows if r.project == project)
        docs = row.docs or f"the {project} project's documentation"
        steps.append(Step((), f"{row.cites()}: install as {docs} says"))
    applied = [f for f in files if f.kind not in NEEDS_PROJECT or NEEDS_PROJECT[f.kind] in projects]
    for file in files:
        if file not in applied:
            steps.append(
                Step(
                    (),
                    f"{file.path}: not applied: it needs {NEEDS_PROJECT[file.kind]}, which the "
                    "decision does not name (the file says why)",
                )
            )
    made = {CHARTS[p].namespace for p in installed}  # helm --create-namespace made these
    namespaces = [  # in the files' order: tenant-1, tenant-2, ... tenant-10, as step 1 counts
        namespace
        for namespace in dict.fromkeys(
            doc.data["metadata"]["namespace"]
            for f in applied
            for doc in f.documents
            if isinstance(doc.data.get("metadata"), dict) and doc.data["metadata"].get("namespace")
        )
        if namespace not in made
    ]
    for namespace in namespaces:
        steps.append(
            Step(("kubectl", "create", "namespace", namespace), "a tenant's namespace", apply=True)
        )
    for file in applied:
        if file.documents and all(
            "apiVersion" in d.data and "kind" in d.data for d in file.documents
        ):
            steps.append(Step(("kubectl", "apply", "-f", file.path), f"{file.path}: {file.kind}"))
    return steps


def install_file(facts: DecisionFacts, files: Sequence[GeneratedFile]) -> GeneratedFile:
    steps = install_steps(facts, files)
    variables = sorted({s.nodes for s in steps if s.nodes})
    lines = [
        "#!/bin/sh",
        SPLIT_ON_PURPOSE,
        f"# Generated by EcoMap from {facts.source}: regenerate rather than edit.",
        "# Run from the directory of the generated files, with kubectl and helm pointed at the",
        "# cluster; set each NODES_* variable to the names of its nodes (space-separated).",
        "# set -f: a node name is never expanded as a file pattern.",
        SET_OPTIONS,
    ]
    lines += [f': "${{{v}:?set {v} to the names of its nodes}}"' for v in variables]
    for step in steps:
        lines.append(f"# {_comment(step.why)}")
        if step.argv:
            lines.append(step.render())
    return GeneratedFile(INSTALL_PATH, INSTALL_SCRIPT, [], [], text="\n".join(lines) + "\n")


def _comment(text: str) -> str:
    return re.sub(r"[\x00-\x1f\x7f\u2028\u2029\x85]+", " ", text).strip()


# Each NODES_* variable is split into one argument per node on purpose (shellcheck SC2086),
# with filename expansion off (`set -f`), so the split never globs.
SPLIT_ON_PURPOSE = "# shellcheck disable=SC2086 # NODES_* give one argument per node, on purpose"
SET_OPTIONS = "set -euf"
GUARD = re.compile(r'^: "\$\{(NODES_[A-Z0-9_]+):\?set \1 to the names of its nodes\}"$')
KNOWN_REFERENCES = {c.chart for c in CHARTS.values()} | {
    url for c in CHARTS.values() if c.repository for _name, url in [c.repository]
}


def node_variables(files: Sequence[GeneratedFile]) -> list[str]:
    """The NODES_* variables install.sh asks for, in its order (none without an install.sh)."""
    script = next((f for f in files if f.kind == "install-script"), None)
    lines = (script.text or "").splitlines() if script is not None else []
    return [match[1] for line in lines if (match := GUARD.match(line))]


def check_install_script(file: GeneratedFile) -> list[str]:
    """install.sh holds only comments, its header, node-variable guards and helm/kubectl
    commands whose words are quoted as `shlex` quotes them, installing only known charts."""
    problems = []
    for number, line in enumerate((file.text or "").splitlines(), start=1):
        where = f"{file.path} line {number}"
        if line.startswith("#") or line == SET_OPTIONS or GUARD.match(line):
            continue
        command, _pipe, rest = line.partition(" --dry-run=client -o yaml | ")
        if rest and rest != "kubectl apply -f -":
            problems.append(f"{where}: unexpected pipe")
        words = command.split(" ")
        if words[0] not in ("helm", "kubectl"):
            problems.append(f"{where}: only helm and kubectl are run")
            continue
        for word in words:
            if re.fullmatch(r"\$NODES_[A-Z0-9_]+", word):
                continue
            if shlex.quote(shlex.split(word)[0] if word else "") != word:
                problems.append(f"{where}: {word!r} is not quoted")
        if words[:3] == ["helm", "upgrade", "--install"] and (
            len(words) < 5 or shlex.split(words[4])[0] not in KNOWN_REFERENCES
        ):
            problems.append(f"{where}: not a chart EcoMap knows")
        if words[:3] == ["helm", "repo", "add"] and shlex.split(words[-1])[0] not in (
            KNOWN_REFERENCES
        ):
            problems.append(f"{where}: not a chart repository EcoMap knows")
    return problems
