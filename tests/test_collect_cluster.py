"""scripts/collect-cluster against recorded kubectl and helm outputs (no cluster needed).

The recorded cluster (tests/data/collector/outputs/) runs HAMi v2.10.0 and Kueue v0.19.2 on
Kubernetes v1.33 with two GPU nodes; it has no DRA API and no Volcano. The fake kubectl and helm
in tests/data/collector/bin/ log every call and refuse anything but read-only verbs.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from catalog.engine.cluster import parse_snapshot
from evaluations.clusters.selectors import cluster_check

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "scripts" / "collect-cluster"
FAKES = ROOT / "tests" / "data" / "collector" / "bin"
SCHEMA = ROOT / "catalog" / "schemas" / "cluster-v1.schema.json"
# what the script itself runs besides kubectl and helm
SYSTEM_TOOLS = ("bash", "cat", "date", "grep", "head", "mktemp", "mv", "rm", "wc")
SECRET_ENV_VALUE = "Pr0xy-S3cret-42"  # in the HAMi device plugin's HTTPS_PROXY (extraEnvs)


def make_path(directory: Path, *, helm: bool = True, json_tools=("jq", "python3")) -> str:
    """A PATH holding only the fakes and the few system tools the script needs."""
    directory.mkdir()
    (directory / "kubectl").symlink_to(FAKES / "kubectl")
    if helm:
        (directory / "helm").symlink_to(FAKES / "helm")
    for tool in SYSTEM_TOOLS:
        (directory / tool).symlink_to(shutil.which(tool))
    for tool in json_tools:
        # the real interpreter, not a pyenv shim or the venv's, so it runs on a bare PATH
        found = os.path.realpath(sys.executable) if tool == "python3" else shutil.which(tool)
        if found:
            (directory / tool).symlink_to(found)
    return str(directory)


class Run:
    def __init__(self, tmp_path: Path, result: subprocess.CompletedProcess, output: Path):
        self.returncode = result.returncode
        self.stderr = result.stderr
        self.output = output
        log = tmp_path / "calls.log"
        self.calls = (
            [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []
        )

    @property
    def text(self) -> str:
        return self.output.read_text()

    @property
    def snapshot(self) -> dict:
        return json.loads(self.text)

    def argv(self, tool: str) -> list[list[str]]:
        return [call["argv"] for call in self.calls if call["tool"] == tool]


@pytest.fixture
def collect(tmp_path):
    runs = iter(range(100))

    def run(*args: str, helm: bool = True, json_tools=("jq", "python3"), **env: str) -> Run:
        n = next(runs)
        output = tmp_path / f"snapshot-{n}.json"
        log = tmp_path / "calls.log"
        log.unlink(missing_ok=True)
        environment = {
            "PATH": make_path(tmp_path / f"bin-{n}", helm=helm, json_tools=json_tools),
            "HOME": str(tmp_path),
            "FAKE_CLUSTER_LOG": str(log),
            **env,
        }
        result = subprocess.run(  # noqa: S603 - our own script with fixed arguments
            [str(SCRIPT), "-o", str(output), *args],
            env=environment,
            cwd=tmp_path,
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
        return Run(tmp_path, result, output)

    return run


def items(snapshot: dict, key: str) -> dict[str, dict]:
    return {item["metadata"]["name"]: item for item in snapshot[key]["items"]}


def test_it_writes_the_recorded_cluster_as_a_snapshot(collect):
    run = collect()

    assert run.returncode == 0, run.stderr
    snapshot = run.snapshot
    assert snapshot["format"] == "ecomap.cluster/v1"
    assert snapshot["cluster"] == "gpu-lab"  # the current context
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", snapshot["collected_at"])
    assert snapshot["kubernetes_version"] == "v1.33.5"
    assert set(items(snapshot, "nodes")) == {"cp-1", "gpu-1", "gpu-2"}
    assert items(snapshot, "nodes")["gpu-1"]["status"]["allocatable"]["nvidia.com/gpu"] == "40"
    assert set(items(snapshot, "daemonsets")) == {"hami-device-plugin", "kube-proxy"}
    assert {"hami-scheduler", "kueue-controller-manager"} <= set(items(snapshot, "deployments"))
    assert "clusterqueues.kueue.x-k8s.io" in items(snapshot, "crds")
    assert set(items(snapshot, "clusterqueues")) == {"hami-queue"}
    assert set(items(snapshot, "mutatingwebhookconfigurations")) == {
        "hami-webhook",
        "kueue-mutating-webhook-configuration",
    }
    assert [(r["name"], r["chart"]) for r in snapshot["helm_releases"]] == [
        ("hami", "hami-2.10.0"),
        ("kueue", "kueue-0.19.2"),
    ]
    assert snapshot["daemonsets"]["kind"] == "List"


def test_the_snapshot_validates_against_the_cluster_schema(collect):
    if not SCHEMA.exists():
        pytest.skip("catalog/schemas/cluster-v1.schema.json is not there yet")
    jsonschema = pytest.importorskip("jsonschema")

    run = collect()

    jsonschema.validate(run.snapshot, json.loads(SCHEMA.read_text()))


def test_the_engine_reads_the_snapshot(collect):
    run = collect()

    parse_snapshot(run.snapshot)  # raises SnapshotError when refused


@pytest.mark.django_db
def test_the_checker_finds_hami_and_kueue_in_what_the_collector_wrote(collect, builtin_catalog):
    report = cluster_check(parse_snapshot(collect().snapshot))

    detected = {found.row: found for found in report.detected}
    assert detected["hami/device-plugin"].version == "2.10.0"
    assert detected["hami/device-plugin"].nodes == ("gpu-1", "gpu-2")
    assert "hami/scheduler-extender" in detected
    assert detected["kueue/controller"].version == "v0.19.2"


@pytest.mark.django_db
def test_kueues_documented_hami_queue_is_not_an_error(collect, builtin_catalog):
    report = cluster_check(parse_snapshot(collect().snapshot))

    # Kueue's own HAMi guide covers the transformed names (total-gpumem, total-gpucores); the
    # manager config that defines the transformation is not in a snapshot, so: verify, not error.
    assert [f.code for f in report.findings if f.severity == "error"] == []
    warnings = [f.code for f in report.findings if f.severity == "warning"]
    assert "queue-resource-transformed" in warnings, report.findings


def test_only_read_only_verbs_are_called(collect):
    run = collect()

    assert run.returncode == 0, run.stderr
    kubectl_verbs = {
        tuple(a for a in argv if not a.startswith("-"))[:1] for argv in run.argv("kubectl")
    }
    assert kubectl_verbs == {("config",), ("version",), ("get",)}
    assert ["config", "current-context"] in run.argv("kubectl")
    assert all(argv[0] == "list" for argv in run.argv("helm"))
    no_secrets = [argv for argv in run.argv("kubectl") if any("secret" in a for a in argv)]
    assert no_secrets == []


def test_env_values_in_workloads_never_reach_the_snapshot(collect):
    run = collect()

    assert SECRET_ENV_VALUE not in run.text
    assert "hami-registry-token" not in run.text  # the Secret a valueFrom named
    plugin = items(run.snapshot, "daemonsets")["hami-device-plugin"]
    env = {e["name"]: e for e in plugin["spec"]["template"]["spec"]["containers"][0]["env"]}
    assert env["HTTPS_PROXY"] == {"name": "HTTPS_PROXY", "value": "<redacted>"}
    assert env["REGISTRY_TOKEN"] == {"name": "REGISTRY_TOKEN", "valueFrom": {"secretKeyRef": {}}}
    assert env["NODE_NAME"]["valueFrom"] == {"fieldRef": {}}
    extender = items(run.snapshot, "deployments")["hami-scheduler"]["spec"]["template"]["spec"]
    values = [e.get("value") for c in extender["containers"] for e in c.get("env", [])]
    assert set(values) <= {"<redacted>", None}


def test_last_applied_configuration_and_managed_fields_are_removed(collect):
    run = collect()

    assert "last-applied-configuration" not in run.text
    assert "managedFields" not in run.text
    queue = items(run.snapshot, "clusterqueues")["hami-queue"]
    assert queue["spec"]["resourceGroups"][0]["coveredResources"] == [
        "nvidia.com/gpu",
        "nvidia.com/total-gpucores",
        "nvidia.com/total-gpumem",
    ]


def test_crd_schemas_and_node_image_lists_are_left_out_for_size(collect):
    run = collect()

    crd = items(run.snapshot, "crds")["clusterqueues.kueue.x-k8s.io"]
    assert [v["name"] for v in crd["spec"]["versions"]] == ["v1beta1", "v1beta2"]
    assert all("schema" not in v for v in crd["spec"]["versions"])
    assert all("images" not in n["status"] for n in run.snapshot["nodes"]["items"])
    node = items(run.snapshot, "nodes")["gpu-1"]
    assert "hami.io/node-nvidia-register" in node["metadata"]["annotations"]


def test_kinds_the_cluster_does_not_have_are_left_out_with_a_note(collect):
    run = collect()

    assert run.returncode == 0
    for key in ("resourceslices", "deviceclasses", "queues", "kaiqueues"):
        assert key not in run.snapshot
        assert f"{key}: the cluster has no" in run.stderr


def test_kai_scheduler_queues_are_collected_apart_from_volcanos(collect, tmp_path):
    """KAI's Queue and Volcano's Queue share the plural `queues`: the collector asks for
    queues.scheduling.run.ai by its group and files it under `kaiqueues`."""
    outputs = tmp_path / "outputs"
    shutil.copytree(FAKES.parent / "outputs", outputs)
    kai = {
        "apiVersion": "v1",
        "kind": "List",
        "items": [
            {
                "apiVersion": "scheduling.run.ai/v2",
                "kind": "Queue",
                "metadata": {"name": "team-a"},
                "spec": {"parentQueue": "research", "resources": {"gpu": {"quota": 8}}},
            }
        ],
    }
    (outputs / "kaiqueues.json").write_text(json.dumps(kai))

    run = collect(FAKE_CLUSTER_OUTPUTS=str(outputs))

    assert run.returncode == 0, run.stderr
    assert any("queues.scheduling.run.ai" in argv for argv in run.argv("kubectl"))
    assert items(run.snapshot, "kaiqueues")["team-a"]["spec"]["parentQueue"] == "research"
    assert "queues" not in run.snapshot  # Volcano is not installed in the recorded cluster
    assert parse_snapshot(run.snapshot).items("kaiqueues")


def test_it_works_without_helm(collect):
    run = collect(helm=False)

    assert run.returncode == 0, run.stderr
    assert "helm_releases" not in run.snapshot
    assert "helm is not on PATH" in run.stderr


def test_no_helm_never_calls_helm(collect):
    run = collect("--no-helm")

    assert run.returncode == 0, run.stderr
    assert run.argv("helm") == []
    assert "helm_releases" not in run.snapshot


def test_helm_refused_its_secrets_leaves_releases_out_without_failing(collect):
    run = collect(FAKE_HELM_FORBIDDEN="1")

    assert run.returncode == 0, run.stderr
    assert "helm_releases" not in run.snapshot
    assert "helm list failed" in run.stderr


def test_nodes_refused_fails_with_a_clear_message_and_writes_nothing(collect):
    run = collect(FAKE_KUBECTL_FORBIDDEN="nodes")

    assert run.returncode == 1
    assert "cannot list nodes" in run.stderr
    assert "RBAC: list on nodes" in run.stderr
    assert not run.output.exists()


def test_an_optional_kind_refused_fails_unless_it_is_skipped(collect):
    refused = collect(FAKE_KUBECTL_FORBIDDEN="mutatingwebhookconfigurations")
    skipped = collect(
        "--skip",
        "mutatingwebhookconfigurations",
        FAKE_KUBECTL_FORBIDDEN="mutatingwebhookconfigurations",
    )

    assert refused.returncode == 1
    assert "--skip mutatingwebhookconfigurations" in refused.stderr
    assert not refused.output.exists()
    assert skipped.returncode == 0, skipped.stderr
    assert "mutatingwebhookconfigurations" not in skipped.snapshot
    assert not any("mutatingwebhookconfigurations" in " ".join(a) for a in skipped.argv("kubectl"))


def test_nodes_cannot_be_skipped(collect):
    run = collect("--skip", "nodes")

    assert run.returncode == 1
    assert "nodes cannot be skipped" in run.stderr


def test_an_unreachable_cluster_fails_and_writes_nothing(collect):
    run = collect(FAKE_KUBECTL_UNREACHABLE="1")

    assert run.returncode == 1
    assert "the cluster does not answer" in run.stderr
    assert "connection to the server" in run.stderr
    assert not run.output.exists()


def test_context_kubeconfig_and_name_reach_kubectl_and_helm(collect):
    by_context = collect("--context", "prod-east", "--kubeconfig", "/etc/ecomap/kubeconfig")
    named = collect("--context", "prod-east", "--name", "inference-prod")

    assert by_context.snapshot["cluster"] == "prod-east"
    assert named.snapshot["cluster"] == "inference-prod"
    assert ["config", "current-context"] not in by_context.argv("kubectl")
    for argv in by_context.argv("kubectl"):
        assert argv[:2] == ["--context=prod-east", "--kubeconfig=/etc/ecomap/kubeconfig"]
    for argv in by_context.argv("helm"):
        assert argv[:2] == ["--kube-context=prod-east", "--kubeconfig=/etc/ecomap/kubeconfig"]


@pytest.mark.skipif(shutil.which("jq") is None, reason="jq is not installed")
def test_jq_and_python3_write_the_same_snapshot(collect):
    with_jq = collect(COLLECT_CLUSTER_JSON_TOOL="jq").snapshot
    with_python = collect(COLLECT_CLUSTER_JSON_TOOL="python3").snapshot

    with_jq.pop("collected_at")
    with_python.pop("collected_at")
    assert with_jq == with_python
    assert list(with_jq) == list(with_python)


def test_python3_is_used_when_jq_is_missing(collect):
    run = collect(json_tools=("python3",))

    assert run.returncode == 0, run.stderr
    assert SECRET_ENV_VALUE not in run.text


def test_without_jq_or_python3_it_says_what_to_install(collect):
    run = collect(json_tools=())

    assert run.returncode == 1
    assert "needs jq or python3" in run.stderr
    assert run.calls == []


def test_the_default_output_file_is_cluster_snapshot_json(tmp_path):
    env = {"PATH": make_path(tmp_path / "bin"), "HOME": str(tmp_path)}

    result = subprocess.run(  # noqa: S603 - our own script
        [str(SCRIPT), "--no-helm"],
        env=env,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=False,
    )

    assert result.returncode == 0, result.stderr
    assert json.loads((tmp_path / "cluster-snapshot.json").read_text())["cluster"] == "gpu-lab"


def test_dash_writes_the_snapshot_to_standard_output_and_notes_to_stderr(tmp_path):
    env = {"PATH": make_path(tmp_path / "bin"), "HOME": str(tmp_path)}

    result = subprocess.run(  # noqa: S603 - our own script
        [str(SCRIPT), "-o", "-"], env=env, cwd=tmp_path, capture_output=True, text=True, check=False
    )

    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["format"] == "ecomap.cluster/v1"
    assert "wrote standard output" in result.stderr
    assert list(tmp_path.glob("*.json")) == []


def test_the_script_is_shellcheck_clean():
    # scripts/system-deps installs shellcheck, as `make test` runs it
    result = subprocess.run(  # noqa: S603 - a linter on our own file
        ["/usr/bin/shellcheck", str(SCRIPT)], capture_output=True, text=True, check=False
    )

    assert result.returncode == 0, result.stdout


def documented(heading: str, language: str) -> str:
    """The first code block of `language` after `heading` in docs/cluster-snapshot.md."""
    text = (ROOT / "docs" / "cluster-snapshot.md").read_text()
    after = text[text.index(heading) :]
    return re.search(rf"```{language}\n(.*?)```", after, re.S).group(1)


def test_the_documented_example_is_a_valid_snapshot():
    if not SCHEMA.exists():
        pytest.skip("catalog/schemas/cluster-v1.schema.json is not there yet")
    jsonschema = pytest.importorskip("jsonschema")

    example = json.loads(documented("## The format", "json"))

    jsonschema.validate(example, json.loads(SCHEMA.read_text()))


@pytest.mark.skipif(shutil.which("jq") is None, reason="jq is not installed")
def test_the_documented_by_hand_commands_write_a_valid_snapshot(tmp_path):
    env = {
        "PATH": make_path(tmp_path / "bin"),
        "HOME": str(tmp_path),
        "FAKE_CLUSTER_LOG": str(tmp_path / "calls.log"),
    }

    result = subprocess.run(  # noqa: S603 - the documented commands, against the fakes
        [shutil.which("bash"), "-euo", "pipefail", "-c", documented("### By hand", "sh")],
        env=env,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=False,
    )

    assert result.returncode == 0, result.stderr
    snapshot = json.loads((tmp_path / "cluster-snapshot.json").read_text())
    assert snapshot["kubernetes_version"] == "v1.33.5"
    assert snapshot["helm_releases"][0]["chart"] == "hami-2.10.0"
    if SCHEMA.exists():
        jsonschema = pytest.importorskip("jsonschema")
        jsonschema.validate(snapshot, json.loads(SCHEMA.read_text()))
