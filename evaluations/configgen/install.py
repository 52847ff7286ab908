"""install.sh at the root of the generated files: the steps that apply them, kept as data (the
round trip installs the same Helm releases) and rendered with every argument shell-quoted.

Order: node labels and taints, the ConfigMaps the device plugin and the MIG manager read, one
`helm upgrade --install` per decided project whose catalog row states its chart (`config.helm`,
catalog data: operators and device plugins first, then schedulers and queues, then the rest),
then `kubectl apply -f` of every generated Kubernetes object (its CRDs are in by then). A
decided project whose row states no chart gets a comment: install it as its documentation says."""

from __future__ import annotations

import re
import shlex
from collections.abc import Sequence
from dataclasses import dataclass, field

from evaluations.configgen.kueue_config import manual_step
from evaluations.configgen.model import POOL_LABEL, Chart, DecisionFacts, GeneratedFile
from evaluations.configgen.owned import stale_removals
from evaluations.configgen.volcano_config import manual_step as volcano_manual_step

INSTALL_SCRIPT = "install-script"
INSTALL_PATH = "install.sh"
DEVICE_PLUGIN_CONFIGMAP = "ecomap-device-plugin-config"
MIG_PARTED_CONFIGMAP = "ecomap-mig-parted-config"


# How EcoMap's generated files reach a chart: the values file of that kind with -f, and
# --set-string settings (the NVIDIA device plugin reads the generated ConfigMap by name, README
# v0.20.0 "Multiple Config File Example"). The charts themselves are catalog data (rows' `config`).
VALUES_KIND = {
    "nvidia-gpu-operator": "gpu-operator-values",
    "hami": "hami-values",
    "amd-gpu-operator": "amd-gpu-operator-values",
    "nvidia-device-plugin": "nvidia-device-plugin-values",
    "kueue": "kueue-values",
    "volcano": "volcano-values",
    "nvidia-dra-driver-gpu": "dra-driver-nvidia-gpu-values",
}
SETTINGS = {"nvidia-device-plugin": (("config.name", DEVICE_PLUGIN_CONFIGMAP),)}
# Where the NVIDIA ConfigMaps go when the decided row states no chart (the charts' namespaces).
CONFIGMAP_NAMESPACE = {
    "nvidia-gpu-operator": "gpu-operator",
    "nvidia-device-plugin": "nvidia-device-plugin",
}
# Helm installs in a working order: operators and device plugins, then schedulers and queues;
# a charted project not named here (a vendor's, imported) comes after these, by name.
ORDER = (
    "nvidia-gpu-operator",
    "amd-gpu-operator",
    "nvidia-device-plugin",
    "nvidia-dra-driver-gpu",
    "hami",
    "volcano",
    "kai-scheduler",
    "kueue",
)
# Files of objects whose CRDs (DeviceConfig) and reader (the Device Config Manager) come with the
# AMD GPU Operator: applied only when the decision has it (generate_amd.py).
NEEDS_PROJECT = {"amd-gpu-operator": "amd-gpu-operator"}
# Files that show how to use what install.sh sets up, never applied by it (examples.py).
NOT_APPLIED = frozenset({"workload-example"})
# What a chart needs in the cluster first that no decided row installs: said, not installed.
# Each is checked in order (the command fails, and `set -e` stops the script, when it is missing).
PREREQUISITES: dict[str, tuple[tuple[str, ...], str]] = {
    "amd-gpu-operator": (
        ("kubectl", "get", "crd", "certificates.cert-manager.io"),
        "the AMD GPU Operator needs cert-manager: this stops here when its CRDs are missing. "
        "Install it first as https://github.com/ROCm/gpu-operator/blob/v1.5.1/README.md#L40-L56 "
        "says (helm install cert-manager jetstack/cert-manager --namespace cert-manager "
        "--create-namespace --version v1.15.1 --set crds.enabled=true), then run this again",
    ),
}


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
    # A removal that finds nothing to remove (a node without the taint) is not a failure.
    may_find_nothing: bool = False

    def render(self) -> str:
        words = [shlex.quote(a) for a in self.argv]
        if self.nodes:
            words.insert(self.nodes_at, f"${self.nodes}")
        line = " ".join(words)
        if self.apply:
            line += f" --dry-run=client -o yaml | kubectl apply -f - {KUBECTL_DRY}"
        elif self.argv[:1] == ("kubectl",) and self.argv[1] in MUTATING:
            line += f" {KUBECTL_DRY}"
        elif self.argv[:3] == ("helm", "upgrade", "--install"):
            line += f" {HELM_DRY}"
        if self.may_find_nothing:
            line += " || true"
        return line


def nodes_variable(pool: str, group: int | None = None) -> str:
    """NODES_<POOL> (or NODES_<POOL>_MIG_<n>): where the script reads a pool's node names."""
    name = "NODES_" + pool.upper().replace("-", "_")
    return name if group is None else f"{name}_MIG_{group}"


def _stale_node_steps(files: Sequence[GeneratedFile]) -> list[Step]:
    """Undo what an earlier run placed that this decision no longer wants: the pool taint and
    label of nodes in a pool the decision no longer has, and, with one pool (no taint), an
    earlier decision's pool taint on this pool's nodes."""
    pools = [f.documents[0].data for f in files if f.kind == "node-pool"]
    if not pools:
        return []
    # Set-based `notin (a,b)` needs spaces; `!=` per pool, AND-ed by commas, says the same.
    stale = ",".join([POOL_LABEL, *(f"{POOL_LABEL}!={doc['pool']}" for doc in pools)])
    steps = [
        Step(
            ("kubectl", "taint", "node", "-l", stale, f"{POOL_LABEL}:NoSchedule-"),
            f"nodes an earlier run put in a pool this decision does not have ({stale}): their "
            "pool taint goes (nothing to do when none has it)",
            may_find_nothing=True,
        ),
        Step(
            ("kubectl", "label", "node", "-l", stale, f"{POOL_LABEL}-"),
            "and their pool label",
            may_find_nothing=True,
        ),
    ]
    if len(pools) == 1 and not pools[0].get("taints"):
        steps.append(
            Step(
                ("kubectl", "taint", "node", f"{POOL_LABEL}:NoSchedule-"),
                f"one pool, so no pool taint: an earlier decision's is removed from pool "
                f"{pools[0]['pool']}'s nodes (nothing to do when they have none)",
                nodes_variable(pools[0]["pool"]),
                3,
                may_find_nothing=True,
            )
        )
    return steps


def _node_steps(files: Sequence[GeneratedFile]) -> list[Step]:
    steps = _stale_node_steps(files)
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


def charts_of(facts: DecisionFacts) -> dict[str, Chart]:
    """Each decided project's chart, as the first of its decided rows that states one names it."""
    charts: dict[str, Chart] = {}
    for row in facts.rows:
        if row.chart is not None:
            charts.setdefault(row.project, row.chart)
    return charts


def install_steps(facts: DecisionFacts, files: Sequence[GeneratedFile]) -> list[Step]:
    """Every step of install.sh, in order, and a comment step for each decided project whose
    chart EcoMap did not verify."""
    projects = facts.projects()
    charts = charts_of(facts)
    operator = "nvidia-gpu-operator" in projects
    plugin = "nvidia-gpu-operator" if operator else "nvidia-device-plugin"
    plugin_namespace = charts[plugin].namespace if plugin in charts else CONFIGMAP_NAMESPACE[plugin]
    steps = _node_steps(files)
    namespaces = (
        {plugin_namespace}
        if any(f.kind in ("device-plugin-config", "mig-parted-config") for f in files)
        else set()
    )
    for namespace in sorted(namespaces):
        steps.append(
            Step(("kubectl", "create", "namespace", namespace), "for the ConfigMaps", apply=True)
        )
    steps += _configmap_steps(files, plugin_namespace)
    values = {f.kind: f.path for f in files}
    rank = {project: index for index, project in enumerate(ORDER)}
    installed = sorted(charts, key=lambda p: (rank.get(p, len(ORDER)), p))
    if operator and "nvidia-device-plugin" in installed:
        installed.remove("nvidia-device-plugin")  # the operator runs it (its values say how)
    for project in installed:
        chart = charts[project]
        row = next(r for r in facts.rows if r.project == project and r.chart == chart)
        version = chart.version(row.version)
        if project in PREREQUISITES:
            check, why = PREREQUISITES[project]
            steps.append(Step(check, why))
        if row.catalog_version and row.catalog_version != row.version:
            steps.append(
                Step(
                    (),
                    f"{project} {row.version} is installed (step 1) and kept at that release; the "
                    f"catalog's row is verified at {row.catalog_version}. Upgrading is a step of "
                    f"its own: read the project's upgrade notes, then set {project}'s installed "
                    f"version in step 1 to {row.catalog_version.removeprefix('v')} and generate "
                    "again, so every file (API versions, chart values) targets that release; "
                    "changing the version below alone would not",
                )
            )
        if chart.repository:
            steps.append(
                Step(
                    (
                        "helm",
                        "repo",
                        "add",
                        "--force-update",
                        chart.repository_name,
                        chart.repository,
                    ),
                    f"{chart.source}",
                )
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
        if VALUES_KIND.get(project) in values:
            argv += ["-f", values[VALUES_KIND[project]]]
        elif project == "kueue":
            steps.append(Step((), manual_step(row.version)))
        elif project == "volcano":
            steps.append(Step((), volcano_manual_step(row.version)))
        for key, value in SETTINGS.get(project, ()):
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
    for project in sorted(projects - set(charts)):
        row = next(r for r in facts.rows if r.project == project)
        docs = row.docs or f"the {project} project's documentation"
        steps.append(Step((), f"{row.cites()}: install as {docs} says"))
    applied = [
        f
        for f in files
        if f.kind not in NOT_APPLIED
        and (f.kind not in NEEDS_PROJECT or NEEDS_PROJECT[f.kind] in projects)
    ]
    for file in files:
        if file not in applied and file.kind not in NOT_APPLIED:
            steps.append(
                Step(
                    (),
                    f"{file.path}: not applied: it needs {NEEDS_PROJECT[file.kind]}, which the "
                    "decision does not name (the file says why)",
                )
            )
    made = {charts[p].namespace for p in installed}  # helm --create-namespace made these
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
    # Last, once the decision's queues are in place: EcoMap's queues it no longer has.
    steps += [Step(argv, why) for argv, why in stale_removals(applied)]
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
        *DRY_RUN_LINES,
    ]
    lines += [f': "${{{v}:?set {v} to the names of its nodes}}"' for v in variables]
    for step in steps:
        lines.append(f"# {_comment(step.why)}")
        if step.argv:
            lines.append(step.render())
    return GeneratedFile(INSTALL_PATH, INSTALL_SCRIPT, [], [], text="\n".join(lines) + "\n")


def _comment(text: str) -> str:
    return re.sub(r"[\x00-\x1f\x7f\u2028\u2029\x85]+", " ", text).strip()


# DRY_RUN=1 sh install.sh: every kubectl change is sent with --dry-run=server and every helm
# install with --dry-run, so the cluster checks each one and nothing changes.
KUBECTL_DRY, HELM_DRY = "$KUBECTL_DRY", "$HELM_DRY"
DRY_RUN_LINES = (
    "# DRY_RUN=1 sh install.sh: the cluster checks every change, and nothing is changed.",
    'KUBECTL_DRY="${DRY_RUN:+--dry-run=server}"',
    'HELM_DRY="${DRY_RUN:+--dry-run}"',
)
MUTATING = frozenset({"label", "taint", "apply", "delete", "create"})
# Each NODES_* variable is split into one argument per node on purpose (shellcheck SC2086),
# with filename expansion off (`set -f`), so the split never globs.
SPLIT_ON_PURPOSE = "# shellcheck disable=SC2086 # NODES_* give one argument per node, on purpose"
SET_OPTIONS = "set -euf"
GUARD = re.compile(r'^: "\$\{(NODES_[A-Z0-9_]+):\?set \1 to the names of its nodes\}"$')
# A chart reference and a chart repository as the bundle schema lets a catalog row state them
# (catalog/schemas/bundle-v1.schema.json, placement `config.helm`): the check holds install.sh to
# the same shapes, whatever wrote it.
CHART_REFERENCE = re.compile(
    r"oci://[a-z0-9.-]+(:[0-9]+)?(/[a-z0-9._-]+)+|[a-z0-9]([a-z0-9-]*[a-z0-9])?/[a-z0-9]([a-z0-9._-]*[a-z0-9])?"
)
CHART_REPOSITORY = re.compile(r"https://[A-Za-z0-9.-]+(:[0-9]+)?(/[A-Za-z0-9._~%/-]*)?")


def node_variables(files: Sequence[GeneratedFile]) -> list[str]:
    """The NODES_* variables install.sh asks for, in its order (none without an install.sh)."""
    script = next((f for f in files if f.kind == "install-script"), None)
    lines = (script.text or "").splitlines() if script is not None else []
    return [match[1] for line in lines if (match := GUARD.match(line))]


def check_install_script(file: GeneratedFile) -> list[str]:
    """install.sh holds only comments, its header, node-variable guards and helm/kubectl
    commands whose words are quoted as `shlex` quotes them, installing only chart references and
    repositories of the shapes a catalog row may state."""
    problems = []
    for number, line in enumerate((file.text or "").splitlines(), start=1):
        where = f"{file.path} line {number}"
        if line.startswith("#") or line in (SET_OPTIONS, *DRY_RUN_LINES) or GUARD.match(line):
            continue
        if line.endswith(" || true"):  # only a removal may find nothing to remove
            line = line.removesuffix(" || true")
            removal = line.split(" ")[:2] in (["kubectl", "taint"], ["kubectl", "label"])
            if not removal or not any(w.endswith("-") for w in shlex.split(line)[3:]):
                problems.append(f"{where}: only a taint or label removal may fail quietly")
        command, _pipe, rest = line.partition(" --dry-run=client -o yaml | ")
        if rest and rest not in ("kubectl apply -f -", f"kubectl apply -f - {KUBECTL_DRY}"):
            problems.append(f"{where}: unexpected pipe")
        words = command.split(" ")
        if words[0] not in ("helm", "kubectl"):
            problems.append(f"{where}: only helm and kubectl are run")
            continue
        for word in words:
            if re.fullmatch(r"\$NODES_[A-Z0-9_]+", word) or word in (KUBECTL_DRY, HELM_DRY):
                continue
            if shlex.quote(shlex.split(word)[0] if word else "") != word:
                problems.append(f"{where}: {word!r} is not quoted")
        if words[:3] == ["helm", "upgrade", "--install"] and (
            len(words) < 5 or not CHART_REFERENCE.fullmatch(shlex.split(words[4])[0])
        ):
            problems.append(f"{where}: not a chart reference")
        if words[:3] == ["helm", "repo", "add"] and not CHART_REPOSITORY.fullmatch(
            shlex.split(words[-1])[0]
        ):
            problems.append(f"{where}: not a chart repository URL")
    return problems
