"""The engine's vectorised FGD places every task as the plain pure-Python FGD of bench/simulate
does (written from the paper's definitions with lists and dicts), on a synthetic trace."""

from __future__ import annotations

import importlib.machinery
import importlib.util
from pathlib import Path

import pytest

from evaluations.capacity import simulate
from evaluations.capacity.engine.openb import read_nodes, read_tasks
from tests.evaluations.capacity.engine.synthetic import write_trace

BENCH = Path(__file__).resolve().parents[4] / "bench" / "simulate"


def bench_module():
    loader = importlib.machinery.SourceFileLoader("bench_simulate", str(BENCH))
    spec = importlib.util.spec_from_loader(loader.name, loader)
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return module


@pytest.mark.parametrize("seed", [1, 2])
def test_fgd_agrees_with_the_plain_reference_on_every_placement(tmp_path, seed):
    node_path, pod_path = write_trace(tmp_path, nodes=40, pods=300)
    nodes = read_nodes(node_path)
    tasks = read_tasks(pod_path)
    result = simulate(nodes, tasks, "fgd", seed=seed, inflation=1.3)
    reference = bench_module().reference_fgd(
        nodes, tasks, seed=seed, inflation=1.3, limit=len(tasks) * 2
    )
    assert result.unscheduled > 0  # the cluster filled up: the hard part was exercised
    assert reference == result.placements
