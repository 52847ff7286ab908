"""Step 1 with a GPU model from the facts, then the recommendations page, in a real browser: the
model typed in any case is matched and its memory suggested, an unknown one is warned about, and
each recommended stack shows its pools with isolation and tenant-sharing badges, at 1366 px and
at 390 px without sideways scroll."""

from __future__ import annotations

import re

import pytest
from django.core.management import call_command
from playwright.sync_api import expect

from evaluations import services
from evaluations.models import Evaluation
from evaluations.teams.choices import Role
from evaluations.teams.services import membership_set, team_create

pytestmark = [
    pytest.mark.browser,
    pytest.mark.django_db(transaction=True, serialized_rollback=True),
]


@pytest.fixture
def evaluation(bob):
    call_command("load_catalog", verbosity=0)
    team = team_create(name="Platform team", slug="platform-team", admin=bob)
    membership_set(team=team, user=bob, role=Role.EDITOR)
    return services.evaluation_create(actor=bob, team=team, title="Shared H100 cluster")


def saved(page) -> None:
    expect(page.locator("[data-autosave-status]")).to_have_attribute(
        "data-state", "saved", timeout=10_000
    )


def fill_step_1(page, gpu_model: str) -> None:
    """The realistic profile: mixed work for six tenants on 24 H100 nodes."""
    for kind in ("online_inference", "training", "interactive"):
        page.check(f"input[name=workload_types][value={kind}]")
    page.select_option("#id_window_training", "night")
    page.select_option("#id_primary_objective", "p99_latency")
    page.fill("#id_p99_target_ms", "300")
    page.select_option("#id_jitter_tolerance", "medium")
    page.select_option("#id_isolation", "hard")
    page.select_option("#id_failure_semantics", "incident")
    page.select_option("#id_tenancy", "multi")
    page.fill("#id_tenant_count", "6")
    page.fill("#id_gpu_model", gpu_model)
    page.fill("#id_node_count", "24")
    page.fill("#id_kubernetes_version", "1.33")
    for rank, priority in enumerate(("isolation", "observability", "cost", "compatibility"), 1):
        page.select_option(f"#id_priority_{rank}", priority)
    page.locator("#id_priority_4").blur()
    saved(page)


def shoot(screenshot, page, name: str) -> None:
    """A full-page screenshot from the top (a sticky header would otherwise cover the middle)."""
    page.evaluate("window.scrollTo(0, 0)")
    screenshot(page, name, full_page=True)


def scrolls_sideways(page) -> bool:
    return page.evaluate("document.documentElement.scrollWidth > window.innerWidth + 1")


def test_an_h100_profile_gets_pools_with_isolation_and_tenant_badges(
    signed_in_page, live_server, evaluation, console_errors, screenshot
):
    page = signed_in_page
    page.set_viewport_size({"width": 1366, "height": 900})
    page.goto(f"{live_server.url}/evaluations/{evaluation.pk}/steps/1/")

    fill_step_1(page, "h100")

    expect(page.locator("[data-note-for=gpu_model]")).to_contain_text("NVIDIA H100 80GB")
    expect(page.locator("[data-note-for=gpu_memory_gb]")).to_contain_text("80 GB")
    expect(page.locator("#id_gpu_memory_gb")).to_have_attribute("placeholder", "80")
    expect(page.locator("[data-note-for=cross_tenant_sharing]")).to_contain_text(
        "only through hard partitions"
    )
    assert Evaluation.objects.get(pk=evaluation.pk).profile["gpu_model"] == "h100"

    page.goto(f"{live_server.url}/evaluations/{evaluation.pk}/recommendations/")

    first = page.locator("article.recommendation").first
    expect(first.locator(".pool-card")).to_have_count(3)
    expect(first.locator(".pool-card .iso[data-aspect=memory]").first).to_have_text(
        re.compile(r"memory: (hard|soft|none)")
    )
    expect(first.locator("[data-tenant-sharing=none]")).to_have_text("whole devices")
    expect(first.locator("[data-tenant-sharing=across_tenants]").first).to_have_text(
        "shared between tenants"
    )
    expect(first.locator(".rec-tradeoff")).to_be_visible()
    expect(page.locator(".left-out")).to_contain_text("made by NVIDIA")
    shoot(screenshot, page, "recommendations-pools")

    page.set_viewport_size({"width": 390, "height": 844})
    page.reload()
    expect(page.locator("article.recommendation").first.locator(".pool-card")).to_have_count(3)
    assert not scrolls_sideways(page)
    shoot(screenshot, page, "recommendations-pools-390")

    page.context.add_cookies(
        [{"name": "django_language", "value": "zh-hans", "url": live_server.url}]
    )
    page.set_viewport_size({"width": 1366, "height": 900})
    page.reload()
    expect(
        page.locator("article.recommendation").first.locator("[data-tenant-sharing=none]")
    ).to_have_text("整卡独占")
    shoot(screenshot, page, "recommendations-pools.zh-hans")
    assert console_errors == []


def test_an_unknown_gpu_model_is_kept_and_warned_about_beside_the_field(
    signed_in_page, live_server, evaluation, console_errors, screenshot
):
    page = signed_in_page
    page.set_viewport_size({"width": 1366, "height": 900})
    page.goto(f"{live_server.url}/evaluations/{evaluation.pk}/steps/1/")

    page.fill("#id_gpu_model", "Quadro 9000X")
    page.locator("#id_gpu_model").blur()
    saved(page)

    warning = page.locator("[data-note-for=gpu_model]")
    expect(warning).to_be_visible()
    expect(warning).to_contain_text("Not in EcoMap's GPU facts: MIG and vendor are not checked")
    assert Evaluation.objects.get(pk=evaluation.pk).profile["gpu_model"] == "Quadro 9000X"

    page.fill("#id_gpu_model", "H100 80GB")
    page.locator("#id_gpu_model").blur()
    saved(page)
    expect(warning).not_to_contain_text("Not in EcoMap's GPU facts")
    expect(page.locator("#id_gpu_memory_gb")).to_have_attribute("placeholder", "80")
    assert console_errors == []


def test_step_1_with_the_realistic_profile_at_1366_and_390_px(
    signed_in_page, live_server, evaluation, screenshot
):
    page = signed_in_page
    page.set_viewport_size({"width": 1366, "height": 900})
    page.goto(f"{live_server.url}/evaluations/{evaluation.pk}/steps/1/")
    fill_step_1(page, "H100 80GB")
    page.reload()

    expect(page.locator("#id_isolation_interactive")).to_be_visible()
    expect(page.locator("#id_isolation_batch")).to_be_hidden()
    shoot(screenshot, page, "step1-gpu-model")

    page.set_viewport_size({"width": 390, "height": 844})
    page.reload()
    assert not scrolls_sideways(page)
    shoot(screenshot, page, "step1-gpu-model-390")

    page.goto(f"{live_server.url}/evaluations/{evaluation.pk}/steps/2/")
    mig_card = page.locator("article.unit-card", has=page.locator("input[value=mig_slice]"))
    expect(mig_card.locator(".gpu-facts")).to_contain_text("NVIDIA H100 80GB MIG profiles")
    amd_card = page.locator("article.unit-card", has=page.locator("input[value=amd_partition]"))
    expect(amd_card.locator(".gpu-facts")).to_contain_text("not an AMD GPU")
    assert not scrolls_sideways(page)
    shoot(screenshot, page, "step2-gpu-facts-390")
