"""A synthetic GPU trace in the openb CSV formats, with the shape of Alibaba's default trace
(cluster-trace-gpu-v2023: 8-GPU and 2-GPU nodes; tasks about 13 % CPU-only, 38 % sharing one
GPU, the rest whole GPUs, a few of 2, 4 or 8). Generated here; the real trace is never committed."""

from __future__ import annotations

import random

NODE_KINDS = [  # (share of nodes, GPUs, CPU milli, memory MiB, model)
    (0.45, 8, 96_000, 393_216, "G2"),
    (0.33, 2, 104_000, 524_288, "T4"),
    (0.11, 2, 64_000, 262_144, "P100"),
    (0.07, 8, 96_000, 786_432, "V100M32"),
    (0.04, 8, 128_000, 786_432, "G3"),
]
SHARE_MILLI = [810, 470, 650, 320, 230, 460, 590, 550, 160, 370]


def node_lines(count: int, seed: int = 1) -> list[str]:
    rng = random.Random(seed)
    kinds = rng.choices(NODE_KINDS, weights=[k[0] for k in NODE_KINDS], k=count)
    lines = ["sn,cpu_milli,memory_mib,gpu,model"]
    for i, (_, gpus, cpu, memory, model) in enumerate(kinds):
        lines.append(f"syn-node-{i:04d},{cpu},{memory},{gpus},{model}")
    return lines


def pod_lines(count: int, seed: int = 2) -> list[str]:
    rng = random.Random(seed)
    lines = ["name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time"]
    for i in range(count):
        roll = rng.random()
        if roll < 0.13:
            gpus, milli, cpu = 0, 0, rng.choice([8000, 12500, 32000, 16500])
        elif roll < 0.51:
            gpus, milli, cpu = 1, rng.choice(SHARE_MILLI), rng.choice([3152, 4000, 6000, 11908])
        elif roll < 0.99:
            gpus, milli, cpu = 1, 1000, rng.choice([3152, 8000, 11300, 11400, 12000])
        else:
            gpus, milli, cpu = rng.choice([2, 4, 8]), 1000, 32_000
        memory = cpu * 2
        lines.append(f"syn-pod-{i:05d},{cpu},{memory},{gpus},{milli},,LS,Running,{i}")
    return lines


def write_trace(directory, *, nodes: int = 60, pods: int = 400):
    """Write nodes.csv and pods.csv into `directory`; returns their paths."""
    node_path, pod_path = directory / "nodes.csv", directory / "pods.csv"
    node_path.write_text("\n".join(node_lines(nodes)) + "\n")
    pod_path.write_text("\n".join(pod_lines(pods)) + "\n")
    return node_path, pod_path
