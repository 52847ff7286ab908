"""Search over the built-in catalog finds what an expert would name for the words people type.

Expectations come from catalog/data: the rows whose `functions` list `gang` (volcano.yaml,
kueue.yaml, kai-scheduler.yaml…), the rows that share one GPU below a whole device (hami.yaml's
vGPU and memory/compute quota, runai.yaml's GPU fractions, nvidia-device-plugin.yaml's time
slicing and MPS) and the rows hard on memory, compute and fault isolation (nvidia-mig.yaml)."""

from __future__ import annotations

import pytest

from catalog.search.selectors import catalog_search

pytestmark = pytest.mark.django_db

TOP = 10


def projects(text: str) -> list[str]:
    return [hit.project.slug for hit in catalog_search(text=text, limit=TOP).projects]


def rows(text: str) -> list[str]:
    return [hit.row.ref for hit in catalog_search(text=text, limit=TOP).rows]


def test_gang_finds_the_batch_schedulers(builtin_catalog):
    found = projects("gang")
    assert {"volcano", "kueue", "kai-scheduler", "yunikorn"} <= set(found)
    assert "hami" not in found  # its description says it is *not* a gang scheduler


def test_gang_in_chinese_finds_the_same_schedulers(builtin_catalog):
    assert {"volcano", "kueue", "kai-scheduler"} <= set(projects("成组调度"))


def test_fractional_gpu_notebooks_finds_the_gpu_sharing_projects(builtin_catalog):
    found = projects("fractional GPU notebooks")
    assert {"hami", "runai"} <= set(found)
    assert "runai/gpu-fractions" in rows("fractional GPU notebooks")[:3]


def test_tenant_isolation_puts_hard_partitions_first(builtin_catalog):
    assert projects("tenant isolation")[0] == "nvidia-mig"
    assert "nvidia-mig/mig-manager" in rows("tenant isolation")


def test_tenant_isolation_in_chinese_finds_the_same(builtin_catalog):
    assert projects("租户隔离")[:3] == projects("tenant isolation")[:3]


def test_a_misspelt_name_still_finds_the_project(builtin_catalog):
    assert projects("volcno")[0] == "volcano"


def test_the_start_of_a_name_finds_it(builtin_catalog):
    assert projects("gpust") == ["gpustack"]


def test_matches_are_highlighted(builtin_catalog):
    hit = catalog_search(text="gang").rows[0]
    assert "<mark>" in hit.excerpt or "<mark>" in hit.component


def test_the_catalog_list_searches_the_same_way(builtin_catalog, bob_client):
    listed = bob_client.get("/catalog/", {"q": "gang"}).context["page"].object_list
    assert {"volcano", "kueue"} <= {p.slug for p in listed[:TOP]}
