"""The hospital of issue 38 filed, decided and approved entirely in a real browser: step 1 with
two node groups (A100 40GB, L4), three named tenants and Kueue installed; steps 2 to 4; the
recommendations place a pool on each group; the first is adopted, so each pool keeps its node
group; the configuration targets the installed Kueue; a reviewer approves."""

from __future__ import annotations

import re

import pytest
import yaml
from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.test import Client
from playwright.sync_api import expect

from evaluations.configgen.selectors import evaluation_config
from evaluations.models import Evaluation, State
from evaluations.services import evaluation_create
from evaluations.teams.choices import Role
from evaluations.teams.services import membership_set, team_create
from tests.browser.conftest import SCREENS
from tests.browser.test_profile_fleet_step import add_row, fill_hospital_tenants, type_into
from tests.factories import make_user

pytestmark = [
    pytest.mark.browser,
    pytest.mark.django_db(transaction=True, serialized_rollback=True),
]


@pytest.fixture
def evaluation(db):
    call_command("load_catalog", verbosity=0)
    erin = make_user("erin")
    team = team_create(name="Hospital platform", slug="hospital-platform", admin=make_user("ada"))
    membership_set(team=team, user=erin, role=Role.EDITOR)
    membership_set(team=team, user=make_user("rita"), role=Role.REVIEWER)
    return evaluation_create(actor=erin, team=team, title="Hospital GPUs")


def open_as(browser, live_server, username: str, language: str = "en"):
    client = Client()
    client.force_login(get_user_model().objects.get(username=username))
    context = browser.new_context(viewport={"width": 1366, "height": 900})
    context.add_cookies(
        [
            {"name": settings.LANGUAGE_COOKIE_NAME, "value": language, "url": live_server.url},
            {
                "name": settings.SESSION_COOKIE_NAME,
                "value": client.cookies[settings.SESSION_COOKIE_NAME].value,
                "url": live_server.url,
            },
        ]
    )
    page = context.new_page()
    errors: list[str] = []
    page.on("console", lambda m: m.type == "error" and errors.append(f"{page.url}: {m.text}"))
    page.on("pageerror", lambda error: errors.append(f"{page.url}: {error}"))
    return page, errors


def fill_step_one(page) -> None:
    for kind in ("training", "online_inference", "interactive"):
        page.check(f"input[name=workload_types][value={kind}]")
    page.select_option("#id_primary_objective", "p99_latency")
    page.fill("#id_p99_target_ms", "200")
    page.select_option("#id_jitter_tolerance", "low")
    page.select_option("#id_isolation", "hard")
    page.select_option("#id_failure_semantics", "incident")
    page.select_option("#id_tenancy", "multi")
    for rank, priority in enumerate(("isolation", "compatibility", "observability", "cost"), 1):
        page.select_option(f"#id_priority_{rank}", priority)
    page.fill("#id_kubernetes_version", "1.31")
    add_row(page, "add:node_groups")
    add_row(page, "add:node_groups")
    for index, (name, model, nodes, per_node) in enumerate(
        (("a100", "A100 40GB", "6", "4"), ("l4", "L4", "4", "2"))
    ):
        type_into(page, f"#id_node_groups-{index}-name", name)
        type_into(page, f"#id_node_groups-{index}-gpu_model", model)
        type_into(page, f"#id_node_groups-{index}-nodes", nodes)
        type_into(page, f"#id_node_groups-{index}-gpus_per_node", per_node)
    fill_hospital_tenants(page)
    page.keyboard.press("Enter")
    page.wait_for_load_state("load")


def save(page) -> None:
    """Save the step with its visible button and wait for the page it answers with."""
    with page.expect_navigation():
        page.click(".step-buttons button[name=go][value=stay]")


def test_the_hospital_is_filed_decided_on_both_node_groups_and_approved_in_the_browser(
    browser, live_server, evaluation, screenshot
):
    erin, errors = open_as(browser, live_server, "erin")
    base = f"{live_server.url}/evaluations/{evaluation.pk}"
    erin.goto(f"{base}/steps/1/")
    fill_step_one(erin)
    expect(erin.locator(".fleet-row .field-errors li")).to_have_count(0)
    expect(erin.locator("[data-missing]")).to_contain_text("Step 1 is complete")
    saved = Evaluation.objects.get(pk=evaluation.pk).profile
    assert [g["name"] for g in saved["node_groups"]] == ["a100", "l4"]
    assert [t["name"] for t in saved["tenants"]] == ["clinical", "research", "students"]

    # Steps 2-4: units, the candidates the team weighs, the boundaries pre-filled.
    erin.goto(f"{base}/steps/2/")
    erin.check("input[name=units][value=whole_gpu]")
    erin.check("input[name=units][value=mig_slice]")
    save(erin)
    erin.goto(f"{base}/steps/3/")
    for query, ref in (
        ("kueue", "kueue/controller"),
        ("device plugin", "nvidia-device-plugin/whole-gpu"),
    ):
        erin.fill("#candidate-q", query)
        erin.press("#candidate-q", "Enter")
        erin.click(f"button[name=add][value='{ref}']")
        erin.wait_for_selector(f"tr[data-candidate='{ref}']")
        erin.locator(f"tr[data-candidate='{ref}'] input[name^=confirmed_]").check()
    save(erin)
    erin.goto(f"{base}/steps/4/")
    save(erin)

    # The recommendations: a pool on each node group, the tenants by name, Kueue kept.
    erin.goto(f"{base}/recommendations/")
    first = erin.locator(".recommendation[data-rank='1']")
    expect(first.locator(".pool-group")).to_have_count(3)
    expect(first).to_contain_text("l4 (NVIDIA L4)")
    expect(first).to_contain_text("a100 (NVIDIA A100 40GB)")
    expect(first.locator(".pool-card[data-pool='inference'] .pool-tenants")).to_contain_text(
        "clinical"
    )
    expect(first).to_contain_text("keeps the installed kueue 0.10.1")
    expect(first).to_contain_text("node group l4 has 8 GPUs")
    screenshot(erin, "fleet-walk-recommendations", full_page=True)
    first.locator(".pool-cards").screenshot(path=str(SCREENS / "fleet-walk-first-pools.png"))
    erin.click(".recommendation[data-rank='1'] button[name=adopt]")
    erin.wait_for_url(re.compile(r"/decision/$"))

    # Adopted: each pool keeps the node group the ranking placed it on, shown in the form.
    decision = Evaluation.objects.get(pk=evaluation.pk).decision
    assert decision.pool_node_groups == {
        "training": "a100",
        "inference": "l4",
        "interactive": "a100",
    }
    pools = list(decision.pools)
    index = pools.index("inference")
    expect(erin.locator(f"#id_pool-{index}-node_group")).to_have_value("l4")
    screenshot(erin, "fleet-walk-decision", full_page=True)
    erin.locator("form.step-form fieldset").first.screenshot(
        path=str(SCREENS / "fleet-walk-decision-pools.png")
    )
    # The same ranking in Chinese: node groups, tenants and demand said in the reader's words.
    chinese, chinese_errors = open_as(browser, live_server, "erin", language="zh-hans")
    chinese.goto(f"{base}/recommendations/")
    card = chinese.locator(".recommendation[data-rank='1']")
    expect(card).to_contain_text("节点组")
    expect(card).to_contain_text("保留已安装的 kueue 0.10.1")
    card.locator(".pool-cards").screenshot(path=str(SCREENS / "fleet-walk-first-pools-zh.png"))
    assert chinese_errors == []

    # The configuration targets the installed Kueue and sizes each pool on its group.
    files = {f.path: f for f in evaluation_config(Evaluation.objects.get(pk=evaluation.pk))}
    queues = [d for d in yaml.safe_load_all(files["kueue/cluster-queues.yaml"].content) if d]
    assert {d["apiVersion"] for d in queues} == {"kueue.x-k8s.io/v1beta1"}
    # The named tenants are the queues (not tenant-1..3).
    assert {d["metadata"]["name"] for d in queues if d["kind"] == "ClusterQueue"} == {
        "clinical",
        "research",
        "students",
    }
    assert "pool inference lives on node group l4" in files["nodes/inference.yaml"].content
    assert "--version 0.10.1" in files["install.sh"].content

    # Submitted; a reviewer approves.
    erin.goto(f"{base}/")
    erin.click(f"form[action='/evaluations/{evaluation.pk}/submit/'] button")
    expect(erin.locator(".eval-head .state")).to_have_attribute("data-state", "in_review")
    rita, rita_errors = open_as(browser, live_server, "rita")
    rita.goto(f"{base}/")
    rita.check("input[name=verdict][value=approve]")
    rita.click(".review-form button[type=submit]")
    expect(rita.locator(".eval-head .state")).to_have_attribute("data-state", "approved")
    assert Evaluation.objects.get(pk=evaluation.pk).state == State.APPROVED
    # Step 1's autosave may answer 400 for a row caught half typed (a demand line before its
    # workload is chosen); the saved profile above is what counts. Nothing else may go wrong.
    typing = [e for e in errors if "/steps/1/" in e and "status of 400" in e]
    assert [e for e in errors if e not in typing] == [] and rita_errors == []
