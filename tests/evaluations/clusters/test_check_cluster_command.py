"""`manage.py check_cluster`: findings a person or a CI job can act on, and its exit status."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from tests.evaluations.factories import fill_steps, make_cast, make_evaluation

CLUSTERS = Path(__file__).resolve().parents[3] / "tests" / "data" / "clusters"
pytestmark = pytest.mark.django_db


def run(*args) -> tuple[int, str]:
    """The command's exit status and what it printed."""
    out = io.StringIO()
    try:
        call_command("check_cluster", *map(str, args), stdout=out)
    except SystemExit as exit_:
        return exit_.code, out.getvalue()
    return 0, out.getvalue()


def test_a_correct_cluster_exits_zero_and_lists_what_it_runs(builtin_catalog):
    status, out = run(CLUSTERS / "hami-kueue-ok.json")
    assert status == 0
    assert "Cluster inference-prod (Kubernetes v1.33.2)" in out
    assert "hami/device-plugin 2.10.0: 3 node(s) in inference" in out
    assert "kueue/controller v0.19.2: cluster-wide" in out
    assert "0 error(s), 0 warning(s)" in out


def test_two_device_plugins_on_the_same_nodes_exit_one_naming_the_nodes(builtin_catalog):
    status, out = run(CLUSTERS / "plugin-and-hami.json")
    assert status == 1
    assert "Errors (1):" in out
    assert "[exclusive-token-shared]" in out
    assert "nodes: gpu-a-1, gpu-a-2\n" in out
    assert "evidence: https://github.com/Project-HAMi/HAMi/blob/v2.10.0/" in out


def test_json_prints_the_report_and_keeps_the_exit_status(builtin_catalog):
    status, out = run(CLUSTERS / "queue-misses-hami.json", "--json")
    assert status == 1
    report = json.loads(out)
    assert report["ok"] is False
    [error] = [f for f in report["findings"] if f["severity"] == "error"]
    assert error["code"] == "queue-resource-not-covered"
    assert error["nodes"] == ["gpu-inf-1", "gpu-inf-2", "gpu-inf-3"]
    assert {d["row"] for d in report["detected"]} == {
        "hami/device-plugin",
        "hami-core/libvgpu",  # installed by the device plugin's DaemonSet
        "hami/scheduler-extender",
        "kueue/controller",
    }


def test_a_dra_feature_ahead_of_the_release_is_a_warning_with_the_conflict(builtin_catalog):
    status, out = run(CLUSTERS / "dra-mixed.json", "--json")
    codes = {f["code"]: f for f in json.loads(out)["findings"]}
    assert status == 1
    assert codes["exclusive-token-shared"]["nodes"] == ["gpu-dra-3"]
    assert codes["dra-feature-off-by-default"]["severity"] == "warning"


def test_against_an_evaluation_it_reports_drift_from_the_decision(builtin_catalog):
    cast = make_cast()
    evaluation = fill_steps(make_evaluation(cast), cast.bob)  # decides HAMi + Volcano
    status, out = run(CLUSTERS / "hami-kueue-ok.json", "--evaluation", evaluation.pk, "--json")
    findings = json.loads(out)["findings"]
    assert status == 1
    assert [f["rows"] for f in findings if f["code"] == "decided-row-absent"] == [
        ["volcano/scheduler"]
    ]
    # The decision names HAMi's device plugin but not the HAMi-core library it mounts.
    assert sorted(f["rows"][0] for f in findings if f["code"] == "row-not-decided") == [
        "hami-core/libvgpu",
        "hami/scheduler-extender",
        "kueue/controller",
    ]


def test_an_evaluation_without_a_decision_is_refused_with_status_two(builtin_catalog):
    evaluation = make_evaluation(make_cast())
    with pytest.raises(CommandError, match="has no decision to compare with yet") as caught:
        run(CLUSTERS / "hami-kueue-ok.json", "--evaluation", evaluation.pk)
    assert caught.value.returncode == 2
    with pytest.raises(CommandError, match="no evaluation 999999"):
        run(CLUSTERS / "hami-kueue-ok.json", "--evaluation", 999999)


def test_an_invalid_snapshot_says_where_and_exits_two(tmp_path):
    path = tmp_path / "snapshot.json"
    path.write_text(json.dumps({"format": "ecomap.cluster/v1", "cluster": "lab", "nodes": {}}))
    with pytest.raises(CommandError) as caught:
        run(path)
    assert caught.value.returncode == 2
    assert "nodes: 'items' is a required property" in str(caught.value)


def test_a_missing_file_exits_two(tmp_path):
    with pytest.raises(CommandError, match="cannot read") as caught:
        run(tmp_path / "absent.json")
    assert caught.value.returncode == 2


def test_the_shell_prints_refusals_and_exits_two(tmp_path):
    """Through manage.py (not call_command): the message on stderr, exit status 2."""
    path = tmp_path / "snapshot.json"
    path.write_bytes(b'{"format": "ecomap.cluster/v1", "cluster": "a\x00"}')
    done = subprocess.run(  # noqa: S603 - our own manage.py with a file we wrote
        [sys.executable, "manage.py", "check_cluster", str(path)],
        capture_output=True,
        text=True,
        cwd=Path(__file__).resolve().parents[3],
        check=False,
    )
    assert done.returncode == 2
    assert "NUL characters are not accepted" in done.stderr
