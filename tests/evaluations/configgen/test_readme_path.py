"""The README's path from a signed decision to the cluster, run as a newcomer would: the archive
downloaded with an API token, unpacked, and `install.sh` run with the pool's nodes named. kubectl
and helm are stand-ins that record their arguments and check every file they are given exists,
so the script's order, quoting and paths are what is tested, not a cluster."""

from __future__ import annotations

import io
import os
import shlex
import subprocess
import tarfile
from pathlib import Path

import pytest

from ecomap.tokens import token_create_for

pytestmark = pytest.mark.django_db

# A stand-in for kubectl and helm: one line per call, and a non-zero exit for a `-f`/`--from-file`
# argument naming a file that is not there (the real tools would fail the same way; `-f -` is
# standard input). Each call is written with one `printf`: the two ends of a pipe
# (`kubectl create … | kubectl apply -f -`) run at once, and writing a call word by word let
# their words interleave in the log (a CI run read `kubectl apply` without its `-f`).
STAND_IN = """#!/bin/sh
line="$(basename "$0")"
for arg in "$@"; do line="$line $arg"; done
printf '%s\n' "$line" >> "$CALLS"
[ -z "${FAIL_TAINT:-}" ] || case "$line" in *taint*NoSchedule-*) exit 1;; esac
previous=""
for arg in "$@"; do
  case "$previous" in
    -f) [ "$arg" = - ] || [ -e "$arg" ] || { echo "no file $arg" >&2; exit 3; } ;;
  esac
  case "$arg" in
    --from-file=*) file="${arg#*=}"; file="${file#*=}"; [ -e "$file" ] || exit 4 ;;
  esac
  previous="$arg"
done
"""


def _unpacked(client, user, evaluation, tmp_path: Path) -> Path:
    key = token_create_for(user=user).key  # the account's "API token" page
    response = client.get(
        f"/api/v1/evaluations/{evaluation.pk}/config.tar.gz", HTTP_AUTHORIZATION=f"Token {key}"
    )
    assert response.status_code == 200
    with tarfile.open(fileobj=io.BytesIO(response.content), mode="r:gz") as archive:
        archive.extractall(tmp_path, filter="data")
    return tmp_path / f"evaluation-{evaluation.pk}-config"


def _run(directory: Path, tmp_path: Path, **env: str) -> tuple[subprocess.CompletedProcess, list]:
    tools = tmp_path / "bin"
    tools.mkdir(exist_ok=True)
    for name in ("kubectl", "helm"):
        (tools / name).write_text(STAND_IN)
        (tools / name).chmod(0o755)
    calls = tmp_path / "calls.log"
    result = subprocess.run(
        ["/bin/sh", "install.sh"],
        cwd=directory,
        env={"PATH": f"{tools}:{os.environ['PATH']}", "CALLS": str(calls), **env},
        capture_output=True,
        text=True,
        timeout=60,
    )
    lines = calls.read_text().splitlines() if calls.exists() else []
    return result, [shlex.split(line) for line in lines]


def test_the_readme_path_installs_the_approved_demo_decision(
    demo_member, approved, client, tmp_path
):
    directory = _unpacked(client, demo_member, approved, tmp_path)

    result, calls = _run(directory, tmp_path, NODES_SHARED="gpu-node-1 gpu-node-2")

    assert result.returncode == 0, result.stderr
    # First what an earlier run placed and this decision no longer wants goes: the pool taint
    # and label of nodes in another pool, and (one pool, no taint) an old taint on its nodes.
    stale = "ecomap.io/pool,ecomap.io/pool!=shared"
    assert calls[:3] == [
        ["kubectl", "taint", "node", "-l", stale, "ecomap.io/pool:NoSchedule-"],
        ["kubectl", "label", "node", "-l", stale, "ecomap.io/pool-"],
        ["kubectl", "taint", "node", "gpu-node-1", "gpu-node-2", "ecomap.io/pool:NoSchedule-"],
    ]
    # Then the nodes are labelled, each node a word of its own.
    label = next(call for call in calls if call[:4] == ["kubectl", "label", "node", "--overwrite"])
    assert label[4:6] == ["gpu-node-1", "gpu-node-2"]
    assert "ecomap.io/pool=shared" in label
    # Without DRY_RUN nothing is sent as a dry run but the create | apply pipe's client half.
    assert not any("--dry-run=server" in call or "--dry-run" in call for call in calls)
    helm = [call for call in calls if call[:3] == ["helm", "upgrade", "--install"]]
    charts = {call[4]: call[call.index("--version") + 1] for call in helm}
    # The versions the demo's decision pins (catalog rows: GPU Operator v26.7.0, HAMi v2.10.0,
    # Kueue v0.19.2), each with the values file generated for it.
    assert charts == {
        "nvidia/gpu-operator": "v26.7.0",
        "hami-charts/hami": "2.10.0",
        "oci://registry.k8s.io/kueue/charts/kueue": "0.19.2",
    }
    applied = [call[call.index("-f") + 1] for call in calls if call[:2] == ["kubectl", "apply"]]
    assert applied[-3:] == [
        "kueue/resource-flavors.yaml",
        "kueue/cluster-queues.yaml",
        "kueue/local-queues.yaml",
    ]
    kueue_installed = next(i for i, call in enumerate(calls) if "kueue" in " ".join(call[:5]))
    queues_applied = next(i for i, call in enumerate(calls) if "kueue/cluster-queues.yaml" in call)
    assert kueue_installed < queues_applied  # the CRDs exist before the queues are applied


def test_install_sh_stops_before_anything_when_a_pools_nodes_are_not_named(
    demo_member, approved, client, tmp_path
):
    directory = _unpacked(client, demo_member, approved, tmp_path)

    result, calls = _run(directory, tmp_path)

    assert result.returncode != 0
    assert "NODES_SHARED" in result.stderr
    assert calls == []


def test_a_node_pattern_is_passed_as_written_never_expanded_to_file_names(
    demo_member, approved, client, tmp_path
):
    """`set -f` in install.sh: `gpu-*` reaches kubectl as typed, even with files named gpu-...
    in the directory the script runs in."""
    directory = _unpacked(client, demo_member, approved, tmp_path)
    (directory / "gpu-values.yaml").write_text("")

    result, calls = _run(directory, tmp_path, NODES_SHARED="gpu-* gpu-node-2")

    assert result.returncode == 0, result.stderr
    label = next(call for call in calls if call[:4] == ["kubectl", "label", "node", "--overwrite"])
    assert label[4:6] == ["gpu-*", "gpu-node-2"]


def test_dry_run_sends_every_change_as_a_dry_run_and_a_removal_that_finds_nothing_is_no_failure(
    demo_member, approved, client, tmp_path
):
    directory = _unpacked(client, demo_member, approved, tmp_path)
    # A kubectl that fails every taint removal, as the real one does on a node without it.
    fails = 'case "$*" in taint*NoSchedule-*) exit 1;; esac\n'

    result, calls = _run(
        directory, tmp_path, NODES_SHARED="gpu-node-1", DRY_RUN="1", FAIL_TAINT=fails
    )

    assert result.returncode == 0, result.stderr
    kubectl = [c for c in calls if c[0] == "kubectl" and c[1] in ("label", "taint", "apply")]
    assert kubectl and all(c[-1] == "--dry-run=server" for c in kubectl)
    helm = [c for c in calls if c[:3] == ["helm", "upgrade", "--install"]]
    assert helm and all(c[-1] == "--dry-run" for c in helm)
