"""`manage.py simulate` on a synthetic openb-shaped trace: its JSON, and clear errors."""

from __future__ import annotations

import json
from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from tests.evaluations.capacity.engine.synthetic import write_trace


def run(*args):
    out = StringIO()
    call_command("simulate", *args, stdout=out)
    return out.getvalue()


@pytest.fixture
def trace(tmp_path):
    return write_trace(tmp_path)


def test_the_json_has_the_documented_keys(trace):
    nodes, pods = trace
    data = json.loads(
        run("--nodes", nodes, "--pods", pods, "--policy", "fgd", "--inflation", "1.3", "--json")
    )
    # DESIGN.md, "capacity simulation": total_gpus, alloc_curve (131 values), frag_curve,
    # unscheduled, seconds.
    assert {"total_gpus", "alloc_curve", "frag_curve", "unscheduled", "seconds"} <= set(data)
    assert len(data["alloc_curve"]) == len(data["frag_curve"]) == 131
    assert data["tasks"] > 400  # inflation to 130 % of capacity cloned tasks


def test_the_allocation_curve_never_passes_the_arrived_demand(trace):
    nodes, pods = trace
    data = json.loads(run("--nodes", nodes, "--pods", pods, "--policy", "bestfit", "--json"))
    for percent, value in enumerate(data["alloc_curve"]):
        if value is not None:
            assert value <= percent + 1.5  # a curve point averages demand within ±0.5 %


def test_without_json_it_prints_one_summary_line(trace):
    nodes, pods = trace
    line = run("--nodes", nodes, "--pods", pods, "--policy", "random", "--seed", "3")
    assert line.startswith("policy=random unit=memory_compute_quota seed=3 gpus=")


def test_a_missing_file_is_a_command_error(trace, tmp_path):
    nodes, _ = trace
    with pytest.raises(CommandError, match="cannot open"):
        run("--nodes", nodes, "--pods", tmp_path / "absent.csv", "--policy", "fgd")


def test_an_unknown_gpu_type_is_a_command_error_naming_the_line(trace):
    nodes, pods = trace
    lines = pods.read_text().splitlines()
    lines[3] = lines[3].replace(",,LS,", ",H200,LS,")
    pods.write_text("\n".join(lines) + "\n")
    with pytest.raises(CommandError, match=r"pods.csv, line 4: gpu_spec 'H200' names no GPU"):
        run("--nodes", nodes, "--pods", pods, "--policy", "fgd")


def test_a_malformed_node_list_is_a_command_error(trace):
    nodes, pods = trace
    nodes.write_text("sn,cpu_milli,memory_mib,gpu,model\nn1,64000,262144,two,T4\n")
    with pytest.raises(CommandError, match="line 2: column 'gpu': 'two' is not a number"):
        run("--nodes", nodes, "--pods", pods, "--policy", "fgd")


def test_fgd_allocates_more_than_random_on_the_synthetic_trace(tmp_path):
    # The paper's headline on a trace of the same shape (Fig. 9a: FGD 95.2 %, random 86.3 %).
    nodes, pods = write_trace(tmp_path, nodes=80, pods=600)
    at_100 = {}
    for policy in ("fgd", "random"):
        values = []
        for seed in (1, 2, 3):
            out = run(
                "--nodes",
                nodes,
                "--pods",
                pods,
                "--policy",
                policy,
                "--inflation",
                "1.3",
                "--seed",
                str(seed),
                "--json",
            )
            values.append(json.loads(out)["alloc_at_100"])
        at_100[policy] = sum(values) / len(values)
    assert at_100["fgd"] > at_100["random"] + 2


def test_mig_nodes_replay_with_their_geometry_from_the_node_list(tmp_path):
    nodes = tmp_path / "nodes.csv"
    nodes.write_text(
        "sn,cpu_milli,memory_mib,gpu,model,mig_geometry\nn1,64000,262144,1,A100,3g.20gb;3g.20gb\n"
    )
    pods = tmp_path / "pods.csv"
    pods.write_text(
        "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec\n"
        + "".join(f"p{i},1000,1024,1,140,\n" for i in range(3))
    )
    args = ("--nodes", nodes, "--pods", pods, "--policy", "bestfit", "--unit", "mig_slice")
    data = json.loads(run(*args, "--json"))
    # Two 3g instances take two one-slice tasks; the third waits (see test_units).
    assert data["unscheduled"] == 1


def test_mig_nodes_without_a_geometry_are_a_command_error(trace):
    nodes, pods = trace
    with pytest.raises(CommandError, match="has no MIG|needs a mig_geometry"):
        run("--nodes", nodes, "--pods", pods, "--policy", "fgd", "--unit", "mig_slice")


def test_departures_replay_the_trace_in_time_and_free_gpus(tmp_path):
    nodes = tmp_path / "nodes.csv"
    nodes.write_text("sn,cpu_milli,memory_mib,gpu,model\nn1,64000,262144,1,T4\n")
    pods = tmp_path / "pods.csv"
    pods.write_text(
        "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,creation_time,deletion_time\n"
        "late,1000,1024,1,1000,,20,30\n"
        "early,1000,1024,1,1000,,0,10\n"
    )
    args = ("--nodes", nodes, "--pods", pods, "--policy", "fgd", "--json")
    assert json.loads(run(*args))["unscheduled"] == 1
    assert json.loads(run(*args, "--departures"))["unscheduled"] == 0
