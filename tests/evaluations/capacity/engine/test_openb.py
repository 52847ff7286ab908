"""The openb CSV readers refuse bad input with the line at fault (evaluations.capacity)."""

from __future__ import annotations

import io

import pytest

from evaluations.capacity import CapacityError
from evaluations.capacity.engine import openb
from evaluations.capacity.engine.openb import read_nodes, read_tasks

NODES = "sn,cpu_milli,memory_mib,gpu,model\nn1,64000,262144,2,P100\nn2,32000,131072,0,nan\n"
PODS = (
    "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,"
    "deletion_time,scheduled_time\n"
    "p1,12000,16384,1,460,,LS,Running,10,50,10\n"
    "p2,88000,327680,8,1000,nan,Burstable,Succeeded,20,,20\n"
    "p3,4000,8192,0,0,,BE,Running,30,40,30\n"
)


def tasks_from(text, **options):
    return read_tasks(io.StringIO(text), label="pods.csv", **options)


def test_the_trace_formats_read_as_nodes_and_tasks():
    nodes = read_nodes(io.StringIO(NODES), label="nodes.csv")
    assert [(n.name, n.gpus, n.gpu_model) for n in nodes] == [("n1", 2, "P100"), ("n2", 0, "")]
    tasks = tasks_from(PODS)
    assert [(t.name, t.gpus, t.gpu_milli, t.gpu_type) for t in tasks] == [
        ("p1", 1, 460, None),
        ("p2", 8, 1000, None),
        ("p3", 0, 0, None),
    ]
    assert (tasks[0].arrival, tasks[0].duration) == (10.0, 40.0)


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("p9,-4000,8192,1,500,,LS", "column 'cpu_milli' must be >= 0"),
        ("p9,4000,8192,1,-500,,LS", "column 'gpu_milli' must be >= 0"),
        ("p9,4000,8192,1,0,,LS", "gpu_milli must be 1 … 1000"),
        ("p9,4000,8192,2,500,,LS", "must ask gpu_milli 1000"),
        ("p9,four,8192,1,500,,LS", "'four' is not a number"),
        ("p9,4000,8192,1,500,A100,LS", "names no GPU model of the nodes"),
        ("p1,4000,8192,1,500,,LS", "name 'p1' appears twice"),
        ("p9,4000,8192,99,1000,,LS", "at most 64"),
        ("p9,4000,8192,1,500,,LS,Running,1,2,3,extra,fields", "fields, the header has 11"),
    ],
)
def test_a_bad_task_line_is_refused_naming_the_line(line, message):
    with pytest.raises(CapacityError, match=message) as caught:
        tasks_from(PODS + line + "\n", known_models={"P100"})
    assert "pods.csv, line 5" in str(caught.value)


def test_a_file_without_the_columns_is_refused():
    with pytest.raises(CapacityError, match="line 1: missing column"):
        tasks_from("a,b,c\n1,2,3\n")


def test_an_empty_file_is_refused():
    with pytest.raises(CapacityError, match="empty"):
        tasks_from("")


def test_a_node_with_gpus_needs_a_model():
    with pytest.raises(CapacityError, match="line 2: a node with GPUs needs a GPU model"):
        read_nodes(io.StringIO("sn,cpu_milli,memory_mib,gpu,model\nn1,1,1,2,\n"))


def test_a_nul_byte_is_refused():
    with pytest.raises(CapacityError, match="line 3: contains a NUL byte"):
        tasks_from(PODS.replace("p2,", "p\x002,"))


def test_a_file_that_is_not_utf8_is_refused(tmp_path):
    path = tmp_path / "pods.csv"
    path.write_bytes(PODS.encode() + b"p4,1,1,1,\xff\xfe,,LS\n")
    with pytest.raises(CapacityError, match="line 5: not UTF-8"):
        read_tasks(path)


def test_ten_million_lines_stop_at_the_cap_without_reading_them_all(monkeypatch):
    # A generator of ten million lines: the reader must give up at the cap, not load them.
    monkeypatch.setattr(openb, "MAX_LINES", 1_000)
    header = "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec\n"
    read = 0

    def lines():
        nonlocal read
        yield header
        for i in range(10_000_000):
            read += 1
            yield f"p{i},1000,1024,1,500,\n"

    with pytest.raises(CapacityError, match="line 1002: more than 1,000 lines"):
        read_tasks(lines(), label="pods.csv")
    assert read < 1_100


def test_the_documented_cap_is_two_hundred_thousand_lines():
    # docs/import-formats.md states this figure.
    assert openb.MAX_LINES == 200_000


def test_one_endless_line_stops_at_the_line_limit(tmp_path):
    path = tmp_path / "pods.csv"
    path.write_text("name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec\n" + "x" * 100_000)
    with pytest.raises(CapacityError, match="line 2: line too long"):
        read_tasks(path)


def test_a_node_may_carry_its_mig_geometry():
    text = "sn,cpu_milli,memory_mib,gpu,model,mig_geometry\nn1,1,1,8,H100,3g.40gb;3g.40gb\n"
    (node,) = read_nodes(io.StringIO(text))
    assert node.mig_geometry == ("3g.40gb", "3g.40gb")
