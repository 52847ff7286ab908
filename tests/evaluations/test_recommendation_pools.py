"""The recommendations page shows each stack's pools at a glance: label, units, isolation per
aspect and tenant sharing as badges, the work each serves and its checks; the trade-off under
the stack's title and what the GPU facts left out above the list, in English and Chinese."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from tests.evaluations.factories import make_cast, make_evaluation

pytestmark = pytest.mark.django_db

# A realistic step 1: mixed work on H100s for six tenants.
H100_PROFILE = {
    "workload_types": ["online_inference", "training", "interactive"],
    "primary_objective": "p99_latency",
    "p99_target_ms": 300,
    "jitter_tolerance": "medium",
    "isolation": "hard",
    "failure_semantics": "incident",
    "tenancy": "multi",
    "tenant_count": 6,
    "gpu_model": "H100 80GB",
    "node_count": 24,
    "kubernetes_version": "1.33",
    "time_windows": {"training": "night"},
    "priorities": ["isolation", "observability", "cost", "compatibility"],
}


@pytest.fixture
def cast(builtin_catalog):
    return make_cast()


@pytest.fixture
def evaluation(cast):
    return make_evaluation(cast, profile=H100_PROFILE)


def page(client, cast, evaluation, language: str = "en") -> str:
    client.force_login(cast.bob)
    client.cookies.load({"django_language": language})
    response = client.get(reverse("evaluations:recommendations", args=[evaluation.pk]))
    assert response.status_code == 200
    return response.content.decode()


def first_stack(content: str) -> str:
    return content.split('data-rank="1"', 1)[1].split('data-rank="2"', 1)[0]


def test_each_pool_shows_its_isolation_per_aspect_and_its_tenant_sharing(client, cast, evaluation):
    stack = first_stack(page(client, cast, evaluation))

    assert stack.count('class="pool-card"') == 3
    assert re.search(r'class="iso iso-hard" data-aspect="memory">memory: hard<', stack)
    assert re.search(r'class="iso iso-hard" data-aspect="fault">fault: hard<', stack)
    assert 'data-tenant-sharing="none">whole devices<' in stack
    assert 'data-tenant-sharing="across_tenants">shared between tenants<' in stack


def test_pools_are_named_by_their_labels_and_units_and_work_in_words(client, cast, evaluation):
    stack = first_stack(page(client, cast, evaluation))

    assert '<h4 class="pool-card-title">training and batch</h4>' in stack
    assert '<h4 class="pool-card-title">interactive notebooks</h4>' in stack
    assert "Whole GPU" in stack and "MIG slice" in stack
    assert "Interactive development" in stack
    assert "whole_gpu" not in stack and "mig_slice" not in stack
    # Each pool's checks are on its card, without the pool's key in front.
    assert "P99 latency against the 300 ms target under co-located load" in stack
    assert "pool inference:" not in stack


def test_the_trade_off_is_under_the_stack_title(client, cast, evaluation):
    stack = first_stack(page(client, cast, evaluation))

    head, body = stack.split("</header>", 1)
    assert body.lstrip().startswith('<p class="rec-tradeoff">')
    assert "Split pools, each on the unit its work wants" in body.split("</p>", 1)[0]


def test_rows_the_gpu_facts_left_out_are_said_above_the_list(client, cast, evaluation):
    content = page(client, cast, evaluation)

    notes = content.split('class="left-out"', 1)[1].split('data-rank="1"', 1)[0]
    assert "is made by NVIDIA (GPU facts)" in notes
    assert "amd-gpu-device-plugin" in notes


def test_the_pool_badges_are_in_chinese_for_a_chinese_reader(client, cast, evaluation):
    stack = first_stack(page(client, cast, evaluation, "zh-hans"))

    assert re.search(r'data-aspect="memory">显存：硬<', stack) or re.search(
        r'data-aspect="memory">显存: 硬<', stack
    )
    assert 'data-tenant-sharing="none">整卡独占<' in stack
    assert 'data-tenant-sharing="across_tenants">租户间共享<' in stack
    assert "whole devices" not in stack
    assert "training and batch" not in stack
