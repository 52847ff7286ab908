"""Readers for the CSV formats of Alibaba's GPU trace (`cluster-trace-gpu-v2023`, "openb").

Nodes: `sn,cpu_milli,memory_mib,gpu,model` (one line per node; `model` empty or "nan" when it
has no GPU) plus our optional `pool` and `mig_geometry` (one GPU's profiles, ";"-separated).
Tasks: `name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec` plus optional
`qos,pod_phase,creation_time,deletion_time,scheduled_time` (and our own optional `tenant` and
`workload`). Columns may come in any order; unknown columns are ignored. Every problem raises
CapacityError naming the file, the line and the column, and nothing past the line cap is read.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable, Iterator
from pathlib import Path

from evaluations.capacity.engine.shapes import MILLI, CapacityError, Node, Task

MAX_LINES = 200_000  # data lines per file; the openb trace has 1,213 nodes and 8,152 tasks
MAX_FIELD = 1_000  # characters per field
MAX_LINE = 20 * MAX_FIELD  # characters per line
MAX_NAME = 200  # characters of a node or task name
NODE_COLUMNS = ("sn", "cpu_milli", "memory_mib", "gpu", "model")
TASK_COLUMNS = ("name", "cpu_milli", "memory_mib", "num_gpu", "gpu_milli", "gpu_spec")
LIMITS = {  # the largest value a column may hold: beyond any real machine, within int64 math
    "cpu_milli": 100_000_000,
    "memory_mib": 1_000_000_000,
    "gpu": 64,
    "num_gpu": 64,
    "gpu_milli": 1_000_000,
    "creation_time": 10**12,
    "deletion_time": 10**12,
}
NO_VALUE = ("", "nan", "none", "null")


class _Lines:
    """A CSV file's rows as dicts, refusing what is not a small, well-formed UTF-8 CSV."""

    def __init__(self, source: str | Path | Iterable[str], label: str):
        self.label = label
        self.source = source

    def _text(self) -> Iterator[str]:
        if isinstance(self.source, str | Path):
            try:
                handle = open(self.source, "rb")  # noqa: SIM115
            except OSError as error:
                raise CapacityError(f"{self.label}: cannot open: {error.strerror}") from error
            with handle:
                # Bounded reads (a file that is one endless line stops at the limit), decoded
                # line by line so an encoding error names its line.
                number = 0
                while raw := handle.readline(MAX_LINE + 1):
                    number += 1
                    try:
                        yield raw.decode("utf-8")
                    except UnicodeDecodeError as error:
                        raise CapacityError(
                            f"{self.label}, line {number}: not UTF-8 text"
                        ) from error
        else:
            yield from self.source

    def rows(self, required: tuple[str, ...]) -> Iterator[tuple[int, dict[str, str]]]:
        reader = csv.reader(self._guarded(self._text()))
        try:
            header = next(reader, None)
            if header is None:
                raise CapacityError(f"{self.label}: the file is empty")
            columns = [name.strip().lower() for name in header]
            missing = [name for name in required if name not in columns]
            if missing:
                raise CapacityError(
                    f"{self.label}, line 1: missing column(s) {', '.join(missing)}; "
                    f"expected {','.join(required)}"
                )
            for values in reader:
                line = reader.line_num
                if not values or not any(v.strip() for v in values):
                    continue
                if len(values) > len(columns):
                    raise CapacityError(
                        f"{self.label}, line {line}: {len(values)} fields, "
                        f"the header has {len(columns)}"
                    )
                if line - 1 > MAX_LINES:
                    raise CapacityError(
                        f"{self.label}, line {line}: more than {MAX_LINES:,} lines; "
                        "split the trace or sample it"
                    )
                values = values + [""] * (len(columns) - len(values))
                yield line, {c: v.strip() for c, v in zip(columns, values, strict=True)}
        except csv.Error as error:
            raise CapacityError(f"{self.label}, line {reader.line_num}: {error}") from error

    def _guarded(self, lines: Iterator[str]) -> Iterator[str]:
        for number, text in enumerate(lines, start=1):
            if len(text) > MAX_LINE:
                raise CapacityError(f"{self.label}, line {number}: line too long")
            if "\x00" in text:
                raise CapacityError(f"{self.label}, line {number}: contains a NUL byte")
            yield text


def _integer(row: dict[str, str], column: str, where: str, *, minimum: int = 0) -> int:
    text = row.get(column, "")
    if text.lower() in NO_VALUE:
        raise CapacityError(f"{where}: column {column!r} is empty")
    try:
        value = int(text)
    except ValueError as error:
        raise CapacityError(f"{where}: column {column!r}: {text[:40]!r} is not a number") from error
    if value < minimum:
        raise CapacityError(f"{where}: column {column!r} must be >= {minimum}, got {value}")
    limit = LIMITS.get(column)
    if limit is not None and value > limit:
        raise CapacityError(f"{where}: column {column!r} is {value}; at most {limit:,}")
    return value


def _name(row: dict[str, str], column: str, where: str, seen: set[str]) -> str:
    name = row.get(column, "")
    if not name:
        raise CapacityError(f"{where}: column {column!r} is empty")
    if len(name) > MAX_NAME:
        raise CapacityError(f"{where}: column {column!r} is longer than {MAX_NAME} characters")
    if name in seen:
        raise CapacityError(f"{where}: {column} {name!r} appears twice")
    seen.add(name)
    return name


def read_nodes(source: str | Path | Iterable[str], label: str | None = None) -> list[Node]:
    """Nodes of an openb node list (`sn,cpu_milli,memory_mib,gpu,model`)."""
    label = label or str(source if isinstance(source, str | Path) else "nodes")
    lines = _Lines(source if not isinstance(source, str) else Path(source), label)
    nodes: list[Node] = []
    seen: set[str] = set()
    for line, row in lines.rows(NODE_COLUMNS):
        where = f"{label}, line {line}"
        name = _name(row, "sn", where, seen)
        gpus = _integer(row, "gpu", where)
        model = row.get("model", "")
        model = "" if model.lower() in NO_VALUE else model
        if gpus and not model:
            raise CapacityError(f"{where}: a node with GPUs needs a GPU model")
        nodes.append(
            Node(
                name=name,
                gpu_model=model,
                gpus=gpus,
                cpu_milli=_integer(row, "cpu_milli", where),
                memory_mib=_integer(row, "memory_mib", where),
                pool=row.get("pool") or None,
                mig_geometry=_geometry(row.get("mig_geometry", ""), where),
            )
        )
    if not nodes:
        raise CapacityError(f"{label}: no nodes")
    return nodes


def read_tasks(
    source: str | Path | Iterable[str],
    label: str | None = None,
    *,
    known_models: Iterable[str] | None = None,
) -> list[Task]:
    """Tasks of an openb pod list; with `known_models`, a GPU type outside them is an error."""
    label = label or str(source if isinstance(source, str | Path) else "tasks")
    lines = _Lines(source if not isinstance(source, str) else Path(source), label)
    models = set(known_models) if known_models is not None else None
    tasks: list[Task] = []
    seen: set[str] = set()
    for line, row in lines.rows(TASK_COLUMNS):
        where = f"{label}, line {line}"
        name = _name(row, "name", where, seen)
        gpus = _integer(row, "num_gpu", where)
        milli = _integer(row, "gpu_milli", where) if gpus else 0
        if gpus and not 1 <= milli <= MILLI:
            raise CapacityError(f"{where}: gpu_milli must be 1 … 1000 for a GPU task, got {milli}")
        if gpus > 1 and milli != MILLI:
            raise CapacityError(f"{where}: a task of {gpus} GPUs must ask gpu_milli 1000")
        spec = row.get("gpu_spec", "")
        spec = "" if spec.lower() in NO_VALUE else spec
        wanted = [kind for kind in spec.split("|") if kind]
        if models is not None and wanted and not set(wanted) & models:
            raise CapacityError(
                f"{where}: gpu_spec {spec[:60]!r} names no GPU model of the nodes "
                f"({', '.join(sorted(models)) or 'none'})"
            )
        created = _optional(row, "creation_time", where)
        deleted = _optional(row, "deletion_time", where)
        tasks.append(
            Task(
                name=name,
                gpus=gpus,
                gpu_milli=milli,
                cpu_milli=_integer(row, "cpu_milli", where),
                memory_mib=_integer(row, "memory_mib", where),
                gpu_type="|".join(wanted) or None,
                tenant=row.get("tenant") or None,
                workload=row.get("workload") or None,
                arrival=float(created) if created is not None else None,
                duration=float(deleted - created)
                if created is not None and deleted is not None and deleted >= created
                else None,
            )
        )
    if not tasks:
        raise CapacityError(f"{label}: no tasks")
    return tasks


def _geometry(text: str, where: str) -> tuple[str, ...] | None:
    """Our optional `mig_geometry` column: one GPU's MIG profiles separated by ";"."""
    if text.lower() in NO_VALUE:
        return None
    names = tuple(name.strip() for name in text.split(";") if name.strip())
    if len(names) > 16:
        raise CapacityError(f"{where}: column 'mig_geometry' lists more than 16 instances")
    return names


def _optional(row: dict[str, str], column: str, where: str) -> int | None:
    if row.get(column, "").lower() in NO_VALUE:
        return None
    return _integer(row, column, where)


def read_text(text: str, kind: str, **options) -> list:
    """Read nodes or tasks from CSV text already in memory (an upload), same checks."""
    reader = read_nodes if kind == "nodes" else read_tasks
    return reader(io.StringIO(text, newline=""), label=options.pop("label", kind), **options)
