"""Step 1's workload mix (catalog.engine.workload_mix): typed, sent as JSON or read from an openb
trace, within caps, with errors that name the line and the field; the documented default."""

from __future__ import annotations

import itertools
import time

import pytest

from catalog.engine.profile import Profile, profile_valid_fields
from catalog.engine.workload_mix import (
    TRACE_MAX_LINES,
    MixEntry,
    MixError,
    default_mix,
    mix_as_text,
    mix_from_text,
    mix_from_trace,
    workload_mix_from_data,
)

HEADER = (
    "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,"
    "deletion_time,scheduled_time\n"
)


def test_typed_lines_read_as_entries_and_write_back_the_same():
    text = "1, training, 40, 8, 1000\n# notebooks\n*, interactive, 12, 1, 250, 20\n"

    mix = mix_from_text(text)

    assert mix == (
        MixEntry(tenant=1, workload="training", tasks=40, gpus=8, gpu_milli=1000),
        MixEntry(workload="interactive", tasks=12, gpus=1, gpu_milli=250, memory_gb=20.0),
    )
    assert mix_from_text(mix_as_text([entry.to_dict() for entry in mix])) == mix
    # 40 tasks of 8 GPUs and 12 quarters of a GPU: 323 GPUs asked.
    assert sum(entry.gpu_demand for entry in mix) == 40 * 8 + 12 * 0.25


@pytest.mark.parametrize(
    ("line", "says"),
    [
        ("1, training, -4, 8, 1000", "line 1: tasks must be a whole number from 1 to 1000000"),
        ("1, training, 4, 0, 1000", "line 1: gpus must be a whole number from 1 to 64"),
        ("1, training, 4, 2, 500", "a task of several GPUs takes them whole"),
        ("1, cooking, 4, 1, 500", "line 1: workload 'cooking' is not one of training"),
        ("1, training, 4", "line 1: write tenant, workload, tasks"),
        ("1, training, 4, 1, 1000, 20, Voodoo5", "unknown GPU type 'Voodoo5'"),
    ],
)
def test_a_bad_line_is_refused_naming_the_line_and_the_field(line, says):
    with pytest.raises(MixError) as refused:
        mix_from_text(line)

    assert str(refused.value).startswith("workload_mix: ")
    assert says in str(refused.value)


def test_a_tenant_beyond_the_tenant_count_costs_only_the_mix_in_a_profile_save():
    data = {
        "tenant_count": 6,
        "node_count": 24,
        "workload_mix": [{"tenant": 7, "workload": "training", "tasks": 1}],
    }

    valid, errors = profile_valid_fields(data)

    assert valid == {"tenant_count": 6, "node_count": 24}
    assert "entry 1: tenant must be a whole number from 1 to 6, not 7" in errors["workload_mix"]


def test_gpu_types_are_stored_as_the_models_keys():
    mix = workload_mix_from_data(
        [{"workload": "batch", "tasks": 3, "gpu_types": ["nvidia h100", "A100-SXM4-80GB"]}]
    )

    assert mix[0].gpu_types == ("h100-80gb", "a100-80gb")


def test_a_trace_is_counted_by_task_size_and_read_as_the_readme_describes():
    trace = HEADER + (
        "p0,4000,8192,1,460,,LS,Running,0,1,0\n"  # latency-sensitive share: online inference
        "p1,4000,8192,1,460,,LS,Running,1,1,1\n"
        "p2,4000,8192,1,300,,BE,Running,2,1,2\n"  # best-effort share: batch
        "p3,88000,327680,8,1000,,Burstable,Succeeded,3,4,3\n"  # 8 whole GPUs: training
        "p4,2000,4096,0,0,,BE,Running,4,5,4\n"  # CPU only: counted, left out
    )

    mix, counts = mix_from_trace([trace.encode()])

    assert counts == {"tasks": 5, "gpu_tasks": 4, "cpu_only": 1}
    assert set(mix) == {
        MixEntry(workload="online_inference", tasks=2, gpus=1, gpu_milli=460),
        MixEntry(workload="batch", tasks=1, gpus=1, gpu_milli=300),
        MixEntry(workload="training", tasks=1, gpus=8, gpu_milli=1000),
    }


def test_tenant_and_workload_columns_say_whose_and_what_a_task_is():
    trace = "num_gpu,gpu_milli,tenant,workload\n1,250,2,interactive\n1,250,2,interactive\n"

    mix, _counts = mix_from_trace([trace], tenant_count=3)

    assert mix == (MixEntry(tenant=2, workload="interactive", tasks=2, gpu_milli=250),)


@pytest.mark.parametrize(
    ("trace", "says"),
    [
        (HEADER + "p0,1,1,1,-5,,LS,Running,0,1,0\n", "line 2: gpu_milli must be a whole number"),
        (HEADER + "p0,1,1,-1,1000,,LS,Running,0,1,0\n", "line 2: num_gpu must be a whole number"),
        (HEADER + "p0,1,1,1,1000,V100M16,LS,Running,0,1,0\n", "line 2: unknown GPU type"),
        ("name,cpu_milli\np0,1\n", "the trace has no num_gpu, gpu_milli column"),
        (HEADER + "p0,1,1,0,0,,BE,Running,0,1,0\n", "no task that asks for a GPU"),
        (HEADER + "p0,1,1,1,\x00,,BE\n", "holds NUL bytes"),
    ],
)
def test_a_bad_trace_is_refused_with_the_line_named(trace, says):
    with pytest.raises(MixError) as refused:
        mix_from_trace([trace.encode()], tenant_count=6)

    assert says in str(refused.value)


def test_a_trace_that_is_not_utf8_is_refused():
    with pytest.raises(MixError, match="not UTF-8 text"):
        mix_from_trace([HEADER.encode() + b"\xff\xfe,1\n"])


def test_ten_million_lines_are_refused_after_reading_only_the_first_ones():
    """The issue's bad input: a trace of 10 million lines. It is refused once the line cap is
    passed, without reading (or holding) the rest."""
    read = 0

    def lines():
        nonlocal read
        yield HEADER.encode()
        for number in range(10_000_000):
            read += 1
            yield f"p{number},1000,1024,1,500,,BE,Running,0,1,0\n".encode()

    started = time.perf_counter()
    with pytest.raises(MixError, match=f"more than {TRACE_MAX_LINES:,} tasks"):
        mix_from_trace(lines())

    assert read <= TRACE_MAX_LINES + 1
    assert time.perf_counter() - started < 10


def test_a_trace_over_the_byte_cap_is_refused_before_it_is_parsed():
    chunk = b"x" * (1024 * 1024)

    with pytest.raises(MixError, match="larger than 4 MB"):
        mix_from_trace(itertools.repeat(chunk, 50))


def test_the_default_mix_is_the_openb_default_trace_counted_per_workload_type():
    """docs/capacity-sizing.md: the openb default pod list has 3,986 whole-GPU tasks, 2,948
    best-effort GPU tasks and 759 latency-sensitive GPU-sharing tasks (counted in the trace)."""
    mix = default_mix(["training", "batch", "online_inference"])

    tasks = {kind: sum(e.tasks for e in mix if e.workload == kind) for kind in ("training",
             "batch", "online_inference")}  # fmt: skip
    assert tasks == {"training": 3986, "batch": 2948, "online_inference": 759}
    assert all(entry.tenant is None for entry in mix)
    assert {e.workload for e in default_mix([])} == {
        "training",
        "batch",
        "online_inference",
        "interactive",
    }


def test_a_profile_keeps_its_mix_and_says_it_back():
    profile = Profile.from_dict(
        {"tenant_count": 2, "workload_mix": [{"tenant": 2, "workload": "batch", "tasks": 5}]}
    )

    assert profile.to_dict()["workload_mix"] == [
        {"tenant": 2, "workload": "batch", "tasks": 5, "gpus": 1, "gpu_milli": 1000,
         "memory_gb": None, "gpu_types": []}
    ]  # fmt: skip
