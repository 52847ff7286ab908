"""Step 1's optional workload mix: what each tenant runs, as counts of tasks of one size each.

A mix is a list of entries `{"tenant", "workload", "tasks", "gpus", "gpu_milli", "memory_gb",
"gpu_types"}`: `tasks` tasks of workload type `workload`, each asking `gpus` whole GPUs, or, with
`gpus` 1 and `gpu_milli` under 1000, that fraction of one GPU (the Alibaba openb trace's
`num_gpu` and `gpu_milli`); `memory_gb` is the GPU memory a task needs (None: its share of the
GPU's memory); `gpu_types` the GPU models it may run on (empty: any); `tenant` the tenant's
number from 1, None for work spread evenly over every tenant.

The counts are proportions of the work that arrives: capacity sizing replays the mix until the
arrived demand reaches 130 % of the pool's GPUs (docs/capacity-sizing.md). Three ways in, all
bounded: the profile's JSON (`workload_mix_from_data`), step 1's text box (`mix_from_text`) and an
uploaded trace in the openb pod-list CSV format (`mix_from_trace`). Without a mix, sizing uses
`default_mix`, derived per workload type from the openb default trace.
"""

from __future__ import annotations

import csv
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from catalog.engine.gpus import gpu_model_find
from catalog.engine.text import Text, _

WORKLOADS: tuple[str, ...] = ("training", "batch", "online_inference", "interactive")

# Bounds: a mix is a handful of task shapes per tenant, never a trace kept line by line.
MIX_MAX_ENTRIES = 200
TASKS_MAX = 1_000_000  # per entry
GPUS_PER_TASK_MAX = 64
MEMORY_MAX_GB = 4096
TENANT_MAX = 100_000
GPU_TYPES_MAX = 8
# An uploaded trace: the openb default pod list is 8,152 lines and 575 KB; ten times that still
# reads in well under a second, and anything beyond is refused before it is read further.
TRACE_MAX_BYTES = 4 * 1024 * 1024
TRACE_MAX_LINES = 80_000
TRACE_MAX_LINE_CHARS = 2_000

FIELD = "workload_mix"


@dataclass(frozen=True, slots=True)
class MixEntry:
    """`tasks` tasks of one size, of one tenant (None: spread over all) and workload type."""

    workload: str
    tasks: int
    gpus: int = 1
    gpu_milli: int = 1000
    memory_gb: float | None = None
    gpu_types: tuple[str, ...] = ()
    tenant: int | None = None

    @property
    def gpu_demand(self) -> float:
        """GPUs the entry's tasks ask for together (a 250-milli task asks a quarter)."""
        return self.tasks * self.gpus * self.gpu_milli / 1000

    def to_dict(self) -> dict[str, Any]:
        return {
            "tenant": self.tenant,
            "workload": self.workload,
            "tasks": self.tasks,
            "gpus": self.gpus,
            "gpu_milli": self.gpu_milli,
            "memory_gb": self.memory_gb,
            "gpu_types": list(self.gpu_types),
        }


class MixError(ValueError):
    """A mix that is not valid; the message starts with `workload_mix:` (the profile's field)."""


def _fail(problem: Text) -> MixError:
    return MixError(_("workload_mix: %(problem)s", problem=problem))


def _whole(value: Any, name: str, low: int, high: int, where: Text | str) -> int:
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if isinstance(value, str) and value.strip().lstrip("-").isdigit():
        value = int(value.strip())
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise _fail(_(
            "%(where)s: %(name)s must be a whole number from %(low)s to %(high)s, not %(value)s",
            where=where, name=name, low=low, high=high, value=repr(value)[:40],
        ))  # fmt: skip
    return value


def _gpu_types(value: Any, where: Text | str) -> tuple[str, ...]:
    if value in (None, "", "nan"):
        return ()
    names = value.split("|") if isinstance(value, str) else value
    if not isinstance(names, list | tuple) or len(names) > GPU_TYPES_MAX:
        raise _fail(_(
            "%(where)s: gpu_types must be at most %(count)s GPU models", where=where,
            count=GPU_TYPES_MAX,
        ))  # fmt: skip
    keys = []
    for name in names:
        model = gpu_model_find(name) if isinstance(name, str) and len(name) <= 80 else None
        if model is None:
            raise _fail(_(
                "%(where)s: unknown GPU type %(name)s (not in EcoMap's GPU facts)",
                where=where, name=repr(name)[:60],
            ))  # fmt: skip
        if model.key not in keys:
            keys.append(model.key)
    return tuple(keys)


def mix_entry(data: Any, where: Text | str, *, tenant_count: int | None = None) -> MixEntry:
    """One entry from its dict; `where` names it in the error ("line 3", "entry 2")."""
    if not isinstance(data, Mapping):
        raise _fail(_("%(where)s: expected an object", where=where))
    unknown = sorted(set(data) - {"tenant", "workload", "tasks", "gpus", "gpu_milli",
                                  "memory_gb", "gpu_types"})  # fmt: skip
    if unknown:
        raise _fail(_("%(where)s: unknown key %(keys)s", where=where, keys=", ".join(unknown)[:80]))
    workload = data.get("workload")
    if workload not in WORKLOADS:
        raise _fail(_(
            "%(where)s: workload %(value)s is not one of %(allowed)s",
            where=where, value=repr(workload)[:40], allowed=", ".join(WORKLOADS),
        ))  # fmt: skip
    tenant = data.get("tenant")
    if tenant not in (None, ""):
        tenant = _whole(tenant, "tenant", 1, tenant_count or TENANT_MAX, where)
    else:
        tenant = None
    gpus = _whole(data.get("gpus", 1), "gpus", 1, GPUS_PER_TASK_MAX, where)
    milli = _whole(data.get("gpu_milli", 1000), "gpu_milli", 1, 1000, where)
    if gpus > 1 and milli != 1000:
        raise _fail(
            _("%(where)s: a task of several GPUs takes them whole (gpu_milli 1000)", where=where)
        )
    memory = data.get("memory_gb")
    if memory in (None, ""):
        memory = None
    else:
        try:
            memory = float(memory)
        except (TypeError, ValueError):
            memory = -1.0
        if not 0 < memory <= MEMORY_MAX_GB:
            raise _fail(_(
                "%(where)s: memory_gb must be a number above 0 and at most %(high)s",
                where=where, high=MEMORY_MAX_GB,
            ))  # fmt: skip
    return MixEntry(
        workload=workload,
        tasks=_whole(data.get("tasks"), "tasks", 1, TASKS_MAX, where),
        gpus=gpus,
        gpu_milli=milli,
        memory_gb=memory,
        gpu_types=_gpu_types(data.get("gpu_types"), where),
        tenant=tenant,
    )


def workload_mix_from_data(value: Any, *, tenant_count: int | None = None) -> tuple[MixEntry, ...]:
    """The profile's `workload_mix` validated; MixError names the entry and what is wrong."""
    if value in (None, [], ()):
        return ()
    if isinstance(value, str | bytes) or not isinstance(value, Sequence):
        raise _fail(_("expected a list of entries"))
    if len(value) > MIX_MAX_ENTRIES:
        raise _fail(_("at most %(count)s entries", count=MIX_MAX_ENTRIES))
    return tuple(
        mix_entry(item, _("entry %(number)s", number=number), tenant_count=tenant_count)
        for number, item in enumerate(value, start=1)
    )


# ---- step 1's text box: one entry per line ------------------------------------------------------

TEXT_COLUMNS = ("tenant", "workload", "tasks", "gpus", "gpu_milli", "memory_gb", "gpu_types")


def mix_from_text(text: str, *, tenant_count: int | None = None) -> tuple[MixEntry, ...]:
    """Lines `tenant, workload, tasks, gpus, gpu_milli[, memory_gb[, gpu_types]]`; `*` or an
    empty tenant spreads the line over every tenant; `#` starts a comment."""
    lines = [line.split("#", 1)[0].strip() for line in str(text).splitlines()]
    numbered = [(number, line) for number, line in enumerate(lines, start=1) if line]
    if len(numbered) > MIX_MAX_ENTRIES:
        raise _fail(_("at most %(count)s lines", count=MIX_MAX_ENTRIES))
    entries = []
    for number, line in numbered:
        cells = [cell.strip() for cell in line.split(",")]
        if not 5 <= len(cells) <= len(TEXT_COLUMNS):
            raise _fail(
                _(
                    "line %(number)s: write tenant, workload, tasks, GPUs per task, milli-GPU "
                    "(and optionally GPU memory in GB and GPU types), separated by commas",
                    number=number,
                )
            )
        data = dict(zip(TEXT_COLUMNS, cells, strict=False))
        if data["tenant"] == "*":
            data["tenant"] = None
        entries.append(
            mix_entry(data, _("line %(number)s", number=number), tenant_count=tenant_count)
        )
    return tuple(entries)


def mix_as_text(entries: Iterable[Mapping[str, Any]]) -> str:
    """The stored mix as the text box shows it (mix_from_text reads it back the same)."""
    lines = []
    for item in entries:
        cells = [
            "*" if item.get("tenant") is None else str(item["tenant"]),
            str(item["workload"]),
            str(item["tasks"]),
            str(item.get("gpus", 1)),
            str(item.get("gpu_milli", 1000)),
        ]
        memory, types = item.get("memory_gb"), item.get("gpu_types") or []
        if memory is not None or types:
            cells.append("" if memory is None else f"{memory:g}")
        if types:
            cells.append("|".join(types))
        lines.append(", ".join(cells))
    return "\n".join(lines)


# ---- an uploaded trace (openb pod list) -------------------------------------------------------

TRACE_REQUIRED = ("num_gpu", "gpu_milli")


def _trace_workload(row: Mapping[str, str], gpus: int, milli: int) -> str:
    """EcoMap's reading of an openb task (the trace names no workload type): a `workload`
    column wins; latency-sensitive (LS) work is online inference; other whole-GPU work is
    training; other fractional work is batch."""
    named = (row.get("workload") or "").strip()
    if named:
        return named
    if (row.get("qos") or "").strip() == "LS":
        return "online_inference"
    return "training" if milli == 1000 else "batch"


def _lines_bounded(chunks: Iterable[bytes | str]) -> Iterator[str]:
    """Decoded lines of an upload, refusing it past TRACE_MAX_BYTES or TRACE_MAX_LINES (counted
    as it is read, so a trace of ten million lines costs what its first megabytes cost)."""
    size = 0
    count = 0
    pending = ""
    for chunk in chunks:
        size += len(chunk)
        if size > TRACE_MAX_BYTES:
            raise _fail(_(
                "the trace is larger than %(limit)s MB; upload at most %(lines)s tasks",
                limit=TRACE_MAX_BYTES // (1024 * 1024), lines=f"{TRACE_MAX_LINES:,}",
            ))  # fmt: skip
        if isinstance(chunk, bytes):
            try:
                chunk = chunk.decode("utf-8")
            except UnicodeDecodeError:
                raise _fail(_("the trace is not UTF-8 text (a CSV file is expected)")) from None
        if "\x00" in chunk:
            raise _fail(_("the trace is not text (it holds NUL bytes)"))
        pending += chunk
        *lines, pending = pending.split("\n")
        for line in lines:
            count += 1
            if count > TRACE_MAX_LINES + 1:  # the header line is not a task
                raise _fail(
                    _("the trace has more than %(lines)s tasks", lines=f"{TRACE_MAX_LINES:,}")
                )
            if len(line) > TRACE_MAX_LINE_CHARS:
                raise _fail(_("line %(number)s is longer than any trace line", number=count))
            yield line.rstrip("\r")
    if pending.strip():
        yield pending.rstrip("\r")


def mix_from_trace(
    chunks: Iterable[bytes | str], *, tenant_count: int | None = None
) -> tuple[tuple[MixEntry, ...], dict[str, int]]:
    """A trace in the openb pod-list CSV format as a mix: tasks of the same tenant, workload,
    size and GPU types are counted together. Extra columns `tenant` and `workload` say whose
    and what a task is; without them a task is spread over every tenant and its workload read
    from its QoS and size. CPU-only tasks (num_gpu 0) are counted and left out.

    Returns the mix and counts (`tasks`, `gpu_tasks`, `cpu_only`)."""
    reader = csv.DictReader(_lines_bounded(chunks))
    columns = reader.fieldnames or []
    missing = [name for name in TRACE_REQUIRED if name not in columns]
    if missing:
        raise _fail(
            _(
                "the trace has no %(columns)s column (the openb pod list's header is name, "
                "cpu_milli, memory_mib, num_gpu, gpu_milli, gpu_spec, qos, …)",
                columns=", ".join(missing),
            )
        )
    shapes: Counter[tuple[Any, ...]] = Counter()
    counts = {"tasks": 0, "gpu_tasks": 0, "cpu_only": 0}
    try:
        for number, row in enumerate(reader, start=2):
            where = _("line %(number)s", number=number)
            counts["tasks"] += 1
            gpus = _whole(row.get("num_gpu"), "num_gpu", 0, GPUS_PER_TASK_MAX, where)
            if gpus == 0:
                counts["cpu_only"] += 1
                continue
            milli = _whole(row.get("gpu_milli") or 1000, "gpu_milli", 1, 1000, where)
            if gpus > 1:
                milli = 1000  # openb: gpu_milli says a fraction only for one-GPU tasks
            data = {
                "tenant": row.get("tenant") or None,
                "workload": _trace_workload(row, gpus, milli),
                "tasks": 1,
                "gpus": gpus,
                "gpu_milli": milli,
                "gpu_types": row.get("gpu_spec") or None,
            }
            entry = mix_entry(data, where, tenant_count=tenant_count)
            counts["gpu_tasks"] += 1
            shapes[(entry.tenant or 0, entry.workload, gpus, milli, entry.gpu_types)] += 1
            if len(shapes) > MIX_MAX_ENTRIES:
                raise _fail(
                    _(
                        "the trace has more than %(count)s different task sizes; group similar "
                        "tasks before uploading it",
                        count=MIX_MAX_ENTRIES,
                    )
                )
    except csv.Error as exc:
        raise _fail(_("the trace is not valid CSV (%(reason)s)", reason=str(exc)[:120])) from None
    if not counts["gpu_tasks"]:
        raise _fail(_("the trace has no task that asks for a GPU"))
    mix = tuple(
        MixEntry(
            tenant=tenant or None,
            workload=workload,
            tasks=n,
            gpus=gpus,
            gpu_milli=milli,
            gpu_types=types,
        )  # fmt: skip
        for (tenant, workload, gpus, milli, types), n in sorted(
            shapes.items(), key=lambda item: (item[0][0], WORKLOADS.index(item[0][1]), item[0][2:])
        )
    )
    return mix, counts


# ---- defaults -----------------------------------------------------------------------------------

# (GPUs per task, milli-GPU, tasks) per workload type, used when step 1 gives no mix. Counted in
# Alibaba's openb default pod list (cluster-trace-gpu-v2023, 8,152 tasks; see
# docs/capacity-sizing.md): training = its whole-GPU tasks (3,986); batch = its best-effort (BE)
# GPU tasks (2,948); online inference = its latency-sensitive (LS) GPU-sharing tasks (759).
# Interactive development is not in the trace: EcoMap assumes notebooks asking a quarter or half
# of a GPU, two to one.
DEFAULT_SHAPES: dict[str, tuple[tuple[int, int, int], ...]] = {
    "training": ((1, 1000, 3911), (2, 1000, 16), (4, 1000, 15), (8, 1000, 44)),
    "batch": (
        (1, 810, 1078), (1, 1000, 629), (1, 470, 360), (1, 320, 328), (1, 230, 140),
        (1, 590, 75), (1, 160, 74), (1, 550, 72), (1, 220, 62), (1, 370, 45), (1, 110, 23),
        (1, 480, 19), (1, 650, 16), (1, 50, 7), (1, 330, 7), (1, 350, 6), (1, 270, 4),
        (1, 440, 1), (1, 140, 1), (1, 290, 1),
    ),
    "online_inference": (
        (1, 470, 390), (1, 650, 237), (1, 460, 128), (1, 370, 2), (1, 440, 1), (1, 110, 1),
    ),
    "interactive": ((1, 250, 2), (1, 500, 1)),
}  # fmt: skip


def default_mix(workload_types: Iterable[str]) -> tuple[MixEntry, ...]:
    """The documented default mix of the profile's workload types (all four when none is
    said), each type's tasks spread over every tenant."""
    kinds = [kind for kind in WORKLOADS if kind in set(workload_types)] or list(WORKLOADS)
    return tuple(
        MixEntry(workload=kind, tasks=tasks, gpus=gpus, gpu_milli=milli)
        for kind in kinds
        for gpus, milli, tasks in DEFAULT_SHAPES[kind]
    )
