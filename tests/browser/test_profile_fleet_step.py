"""Step 1's node groups and named tenants in a real browser: a two-group, three-tenant cluster
filled with the keyboard and the mouse (rows added by their buttons) and saved; the page at
1366 and 390 px, in English and Chinese, screenshot to be looked at."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from catalog.models import Project
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
    Project.objects.get_or_create(slug="kueue", defaults={"name": "Kueue"})
    team = team_create(name="Hospital platform", slug="hospital-platform", admin=bob)
    membership_set(team=team, user=bob, role=Role.EDITOR)
    return services.evaluation_create(actor=bob, team=team, title="Hospital GPUs")


def add_row(page, value: str) -> None:
    page.click(f"button[name=fleet][value='{value}']")
    page.wait_for_load_state("load")


def type_into(page, selector: str, text: str) -> None:
    page.click(selector)
    page.keyboard.type(text)


def fill_hospital_tenants(page) -> None:
    """The hospital's three tenants with their demand, and the installed Kueue, by their rows'
    buttons (issue 38)."""
    for _tenant in range(3):
        add_row(page, "add:tenants")
    type_into(page, "#id_tenants-0-name", "clinical")
    page.check("#id_tenants-0-workloads input[value=online_inference]")
    page.select_option("#id_tenants-0-cross_tenant_sharing", "never")
    page.select_option("#id_tenants-0-demand-0-workload", "online_inference")
    type_into(page, "#id_tenants-0-demand-0-replicas", "12")
    type_into(page, "#id_tenants-1-name", "research")
    page.check("#id_tenants-1-workloads input[value=training]")
    page.select_option("#id_tenants-1-demand-0-workload", "training")
    type_into(page, "#id_tenants-1-demand-0-gpus", "16")
    page.select_option("#id_tenants-1-demand-0-when", "window")
    type_into(page, "#id_tenants-2-name", "students")
    page.check("#id_tenants-2-workloads input[value=interactive]")
    page.select_option("#id_tenants-2-demand-0-workload", "interactive")
    type_into(page, "#id_tenants-2-demand-0-replicas", "30")
    type_into(page, "#id_tenants-2-demand-0-mig_profile", "1g.10gb")
    add_row(page, "add:installed")
    page.select_option("#id_installed-0-project", "kueue")
    type_into(page, "#id_installed-0-version", "0.10.1")


def test_a_two_group_three_tenant_cluster_is_filled_and_saved(
    signed_in_page, live_server, evaluation, console_errors, screenshot
):
    page = signed_in_page
    page.goto(f"{live_server.url}/evaluations/{evaluation.pk}/steps/1/")
    for kind in ("training", "online_inference", "interactive"):
        page.check(f"input[name=workload_types][value={kind}]")
    page.select_option("#id_isolation", "hard")
    page.select_option("#id_tenancy", "multi")

    add_row(page, "add:node_groups")
    add_row(page, "add:node_groups")
    type_into(page, "#id_node_groups-0-name", "a100")
    page.keyboard.press("Tab")
    page.keyboard.type("A100 40GB")
    page.keyboard.press("Tab")
    page.keyboard.type("6")
    page.keyboard.press("Tab")
    page.keyboard.type("4")
    type_into(page, "#id_node_groups-1-name", "l4")
    type_into(page, "#id_node_groups-1-gpu_model", "L4")
    type_into(page, "#id_node_groups-1-nodes", "4")
    type_into(page, "#id_node_groups-1-gpus_per_node", "2")

    fill_hospital_tenants(page)
    page.keyboard.press("Enter")  # Enter saves (the page's default button), never a row button
    page.wait_for_load_state("load")

    expect(page.locator("#id_tenants-2-demand-0-mig_profile")).to_have_value("1g.10gb")
    expect(page.locator("#id_node_groups-0-gpu_model")).to_have_value("A100 40GB")
    expect(page.locator(".fleet-row .field-errors li")).to_have_count(0)
    profile = Evaluation.objects.get(pk=evaluation.pk).profile
    assert profile["node_groups"] == [
        {"name": "a100", "gpu_model": "A100 40GB", "nodes": 6, "gpus_per_node": 4},
        {"name": "l4", "gpu_model": "L4", "nodes": 4, "gpus_per_node": 2},
    ]
    assert [t["name"] for t in profile["tenants"]] == ["clinical", "research", "students"]
    assert profile["tenants"][1]["demand"] == [{"workload": "training", "gpus": 16,
                                                "when": "window"}]  # fmt: skip
    assert profile["tenants"][0]["cross_tenant_sharing"] == "never"
    assert profile["installed"] == [{"project": "kueue", "version": "0.10.1"}]
    assert console_errors == []
    screenshot(page, "profile-fleet-en-1366", full_page=True)


def test_a_bad_name_typed_in_a_row_is_marked_there_by_the_autosave(
    signed_in_page, live_server, evaluation, console_errors
):
    page = signed_in_page
    page.goto(f"{live_server.url}/evaluations/{evaluation.pk}/steps/1/")
    add_row(page, "add:tenants")

    type_into(page, "#id_tenants-0-name", "Research Team")
    page.check("#id_tenants-0-workloads input[value=training]")

    errors = page.locator("[data-errors-for='tenants-0-name']")
    expect(errors).to_contain_text("not a valid name", timeout=10_000)
    expect(page.locator("#id_tenants-0-name")).to_have_attribute("aria-invalid", "true")


@pytest.mark.parametrize("language", ["en", "zh-hans"])
@pytest.mark.parametrize("width", [1366, 390])
def test_step_one_with_the_hospital_fits_the_screen(
    signed_in_page, live_server, evaluation, bob, screenshot, language, width
):
    hospital = {
        "isolation": "hard",
        "node_groups": [
            {"name": "a100", "gpu_model": "A100 40GB", "nodes": 6, "gpus_per_node": 4},
            {"name": "l4", "gpu_model": "L4", "nodes": 4, "gpus_per_node": 2},
        ],
        "tenants": [
            {"name": "clinical", "workloads": ["online_inference"], "cross_tenant_sharing":
             "never", "demand": [{"workload": "online_inference", "replicas": 12}]},
            {"name": "research", "workloads": ["training"],
             "demand": [{"workload": "training", "gpus": 16, "when": "window"}]},
            {"name": "students", "workloads": ["interactive"],
             "demand": [{"workload": "interactive", "replicas": 30, "mig_profile": "1g.10gb"}]},
        ],
        "installed": [{"project": "kueue", "version": "0.10.1"}],
    }  # fmt: skip
    services.evaluation_step_save(evaluation=evaluation, actor=bob, step="profile", data=hospital)
    page = signed_in_page
    page.set_viewport_size({"width": width, "height": 900})
    page.context.add_cookies(
        [{"name": "django_language", "value": language, "url": live_server.url}]
    )
    page.goto(f"{live_server.url}/evaluations/{evaluation.pk}/steps/1/")

    assert page.evaluate("document.documentElement.scrollWidth") <= width
    screenshot(page, f"profile-fleet-{language}-{width}", full_page=True)
