"""Capacity in numbers (issue 29): replay a workload on GPU nodes under one data-plane unit and
one scheduling policy, and measure GPU allocation and fragmentation.

Pure Python + NumPy, no Django: callable from a view, a Celery task, a command or the API.
The API below is stable; everything under `evaluations.capacity.engine` is its implementation.

    from evaluations.capacity import Node, Task, simulate, CapacityError

    nodes = [Node(name=f"h100-{i}", gpu_model="H100", gpus=8, cpu_milli=192_000,
                  memory_mib=2_097_152, pool="shared") for i in range(24)]
    tasks = [Task(name="t1", gpus=1, gpu_milli=250, cpu_milli=8_000, memory_mib=32_768,
                  tenant="team-a", workload="online_inference"), ...]
    result = simulate(nodes, tasks, "fgd", seed=0, unit="memory_compute_quota")
    result.alloc_pct, result.frag_pct, result.unscheduled, result.per_tenant, result.per_pool
    result.as_dict()  # JSON-ready, the shape `manage.py simulate --json` prints

Node(name, gpu_model, gpus, cpu_milli, memory_mib, pool=None, mig_geometry=None)
    `gpu_model` is matched against task GPU-type constraints by exact name, and for mig_slice
    looked up in the GPU facts (catalog/data/facts/gpus.yaml, any alias: "H100", "A100 40GB").
    `mig_geometry`: the MIG profiles of ONE GPU, applied to every GPU of the node, e.g.
    ("3g.40gb", "3g.40gb") or ("1g.10gb",) * 7; it must be valid for the model
    (catalog.engine.gpus.mig_layout_valid). Needed only with unit="mig_slice".
Task(name, gpus, gpu_milli, cpu_milli, memory_mib, gpu_type=None, tenant=None, workload=None,
     arrival=None, duration=None)
    `gpu_milli` is the share of ONE GPU per requested GPU (1000 = whole). gpus == 1 with
    gpu_milli < 1000 shares a GPU; gpus > 1 needs gpu_milli == 1000; gpus == 0 is a CPU task.
    For a HAMi-style quota give the larger of the memory and compute fractions.
    `gpu_type`: None, or models separated by "|". `arrival` orders tasks with order="arrival";
    `duration` is replayed only with departures=True.

simulate(nodes, tasks, policy, *, seed=0, inflation=None, unit="share", replicas=1,
         order="shuffle", departures=False) -> Result
    policy: "fgd", "bestfit", "packing", "clustering", "dotprod", "random", "firstfit".
    unit: "memory_compute_quota" (alias "share", the paper's model), "whole_gpu", "mig_slice",
          "time_slice" / "mps_share" (with `replicas` per GPU, a divisor of 1000),
          "amd_partition" (`replicas`: the compute partitions per GPU, 8 under CPX).
    inflation: None replays the tasks as given; a number r tunes the workload's GPU demand to
          r x the cluster's GPU capacity first (clones of random tasks, or random tasks dropped),
          as the paper does with 1.3.
    order: "shuffle" (by the seed, the paper's setting), "given", or "arrival".
    departures: False (the paper: placed tasks stay). True replays the tasks' own times: needs
          order="arrival", every task's `arrival`, no inflation; a task leaves at
          arrival + duration (none: it stays) and frees its devices for later arrivals.
    Same inputs and seed -> same result. Raises CapacityError (a ValueError) naming the node or
    task at fault for input it cannot replay. ~24 nodes x 8 GPUs and a few hundred tasks take
    well under a second with any policy.

Result: total_gpus, tasks (replayed, after inflation), alloc_curve / frag_curve (131 values:
    % of GPU capacity held by tasks / fragmented, at arrived GPU demand 0 … 130 % of capacity;
    None where the workload never got there), unscheduled (count), unscheduled_tasks (names),
    placements [(task, node, device indexes)], alloc_pct (held at the end), requested_pct (what
    the placed tasks asked for; below alloc_pct when a unit rounds demands up, e.g. whole_gpu,
    MIG), frag_pct (the paper's fragmentation measure at the end, % of capacity),
    per_tenant {tenant ("" for None): tasks, placed, unscheduled, gpu_milli, gpu_milli_placed},
    per_pool {pool ("" for None): nodes, gpus, alloc_pct, frag_pct}, seconds; value_at(percent),
    as_dict().

Sizing a pool (also importable from evaluations.capacity):
nodes_needed(template: Node, tasks, *, policy="fgd", allowed_unscheduled=0, max_nodes=256,
             **simulate_options) -> (count, Result)
    the fewest copies of `template` on which the replay leaves at most `allowed_unscheduled`
    tasks unplaced (max_nodes and its result when even that is not enough).
mig_geometries(gpu_model) -> [geometry, …]: every maximal valid MIG layout of one GPU.
best_mig_geometry(template, count, tasks, *, policy="fgd", **options) -> (geometry, Result):
    the layout under which `count` nodes place the most GPU demand.
pool_of(template, count) -> [Node, …]: numbered copies of a node.
Under mig_slice, compare requested_pct and unscheduled: alloc_pct counts whole instances held
(a small task on a large instance holds all of it).

What the numbers do not model: no departures unless asked (departures=True), no preemption or
retries,
no interference between tasks sharing a GPU, no GPU memory as a separate dimension, no NVLink or
PCIe topology, no node failures. See docs/capacity.md.
"""

from __future__ import annotations

from evaluations.capacity.engine.pool_search import (
    best_mig_geometry,
    mig_geometries,
    nodes_needed,
    pool_of,
)
from evaluations.capacity.engine.replay import simulate
from evaluations.capacity.engine.shapes import (
    POLICIES,
    UNITS,
    CapacityError,
    Node,
    Result,
    Task,
)

__all__ = [
    "POLICIES",
    "UNITS",
    "CapacityError",
    "Node",
    "Result",
    "Task",
    "best_mig_geometry",
    "mig_geometries",
    "nodes_needed",
    "pool_of",
    "simulate",
]
