"""A multi-tenant profile needs quota on every pool: the recommender never proposes a stack whose
quota layer cannot express a resource one of its pools presents, and says why it left it out.

The rule is the cluster check's `queue-cannot-express` (catalog/engine/cluster/resources.py):
HAMi's resources are assigned by HAMi's own scheduler (HAMi v2.10.0 README,
https://github.com/Project-HAMi/HAMi/blob/v2.10.0/README.md), so a scheduler that places pods
itself, KAI Scheduler, can neither place nor put quota on them (KAI v0.17.0 brings in HAMi-core
only, not HAMi's device plugin:
https://github.com/kai-scheduler/KAI-Scheduler/blob/v0.17.0/docs/gpu-sharing/hami/README.md);
Kueue admits them and counts them in its ClusterQueues (Kueue v0.19.2, using HAMi:
https://github.com/kubernetes-sigs/kueue/blob/v0.19.2/site/content/en/docs/tasks/run/using_hami.md).
METHOD.md: quotas between tenants are the platform's to govern, on every pool.
"""

from __future__ import annotations

import pytest

from catalog.engine.profile import Profile
from catalog.engine.stack import check_stack
from evaluations.engine.recommend import recommend
from tests.factories import builtin_rows

# A small catalog: whole GPUs for training, HAMi for notebooks, two governors.
SMALL = (
    "nvidia-gpu-operator/clusterpolicy",
    "nvidia-device-plugin/whole-gpu",
    "dcgm-exporter/exporter",
    "hami/device-plugin",
    "hami-core/libvgpu",
    "hami/scheduler-extender",
    "kai-scheduler/scheduler",
    "kueue/controller",
)
# Five labs: training kept hard apart, notebooks may share GPUs softly within a lab.
LABS = {
    "workload_types": ["training", "interactive"],
    "isolation": "hard",
    "workload_isolation": {"interactive": "soft"},
    "tenancy": "multi",
    "tenant_count": 5,
    "gpu_model": "A100 40GB",
    "kubernetes_version": "1.32",
    "priorities": ["cost", "isolation"],
}
HAMI_RESOURCES = ("nvidia.com/gpucores", "nvidia.com/gpumem")


@pytest.fixture(scope="module")
def small():
    rows = builtin_rows(maintained_only=True)
    return [rows[ref] for ref in SMALL]


def _hami_pools(rec) -> list[str]:
    return [name for name, ids in rec.pools.items() if "hami/device-plugin" in ids]


def test_a_multi_tenant_profile_gets_hami_under_kueue_never_under_kai(small):
    ranking = recommend(Profile.from_dict(LABS), small, limit=10)

    assert ranking, "the small catalog has stacks for the profile"
    paired = [
        rec.rows for rec in ranking if _hami_pools(rec) and "kai-scheduler/scheduler" in rec.rows
    ]
    assert paired == []
    # Completed: the HAMi pool is still proposed, under a quota layer that can express it.
    under_kueue = [rec for rec in ranking if _hami_pools(rec) and "kueue/controller" in rec.rows]
    assert under_kueue, [rec.rows for rec in ranking]


def test_the_ranking_says_why_kai_over_hami_was_left_out(small):
    ranking = recommend(Profile.from_dict(LABS), small, limit=10)

    said = [line for line in map(str, ranking.left_out) if "KAI" in line]
    assert said, ranking.left_out
    assert all(resource in said[0] for resource in HAMI_RESOURCES), said
    assert "HAMi" in said[0]


def test_a_single_tenant_profile_keeps_the_stack_and_names_the_problem(small):
    """Without tenants no quota is needed; the stack stays, its missing says what KAI cannot do."""
    single = {**LABS, "tenancy": "single"}
    single.pop("tenant_count")
    rows = {r.id: r for r in small}
    stack = [rows[ref] for ref in SMALL if ref != "kueue/controller"]
    pools = {
        "training": ["nvidia-device-plugin/whole-gpu", "dcgm-exporter/exporter"],
        "interactive": ["hami/device-plugin", "hami-core/libvgpu"],
    }

    alone = check_stack(stack, pools, Profile.from_dict(single))
    shared = check_stack(stack, pools, Profile.from_dict(LABS))

    assert alone.ok
    quota = [f for f in alone.fit if f.aspect == "quota"]
    assert [f.status for f in quota] == ["warning"]
    assert "interactive" in str(quota[0].message)
    assert all(resource in str(quota[0].message) for resource in HAMI_RESOURCES)
    assert not shared.ok
    assert [(f.status, f.blocking) for f in shared.fit if f.aspect == "quota"] == [("gap", True)]
