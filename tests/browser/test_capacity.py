"""Capacity in numbers in a real browser: step 1 takes a workload mix typed or read from a trace
(a bad line is marked and kept as typed), and the recommendations page, once the pools are
sized, shows each stack's sized pools and the allocation curves side by side."""

from __future__ import annotations

import pytest
from django.core.management import call_command
from playwright.sync_api import expect

from evaluations import services
from evaluations.models import Evaluation
from evaluations.steps.services import evaluation_step_save
from evaluations.teams.choices import Role
from evaluations.teams.services import membership_set, team_create
from tests.evaluations.simulations.test_capacity_pages import BOARD_PROFILE

pytestmark = [
    pytest.mark.browser,
    pytest.mark.django_db(transaction=True, serialized_rollback=True),
]

# Candidates that compete on MIG slices, beside HAMi's quota and whole GPUs.
COMPARED = (
    "nvidia-device-plugin/mig-mixed",
    "hami/dynamic-mig",
    "hami/device-plugin",
    "nvidia-device-plugin/whole-gpu",
)

# A pod list in the openb format: two tasks of a quarter GPU, one of a whole GPU, one CPU-only.
TRACE = (
    "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,"
    "deletion_time,scheduled_time\n"
    "p0,4000,8192,1,250,,LS,Running,0,10,0\n"
    "p1,4000,8192,1,250,,LS,Running,1,10,1\n"
    "p2,8000,16384,1,1000,,BE,Running,2,10,2\n"
    "p3,2000,4096,0,0,,BE,Running,3,10,3\n"
)


@pytest.fixture
def evaluation(bob):
    call_command("load_catalog", verbosity=0)
    team = team_create(name="Platform team", slug="platform-team", admin=bob)
    membership_set(team=team, user=bob, role=Role.EDITOR)
    return services.evaluation_create(
        actor=bob, team=team, title="Shared H100 cluster", profile=BOARD_PROFILE
    )


def shoot(screenshot, page, name: str) -> None:
    page.evaluate("window.scrollTo(0, 0)")
    screenshot(page, name, full_page=True)


def test_the_recommendations_page_shows_sized_pools_and_the_curves(
    signed_in_page, live_server, evaluation, console_errors, screenshot
):
    page = signed_in_page
    page.set_viewport_size({"width": 1366, "height": 900})
    page.goto(f"{live_server.url}/evaluations/{evaluation.pk}/recommendations/")
    expect(page.locator("[data-capacity-status=none]")).to_be_visible()

    page.click("[data-capacity-run]")  # the job runs eagerly in tests, then the page returns

    expect(page.locator("[data-capacity-status=succeeded]")).to_contain_text("192 GPUs")
    # Plotly drew one panel per stack: a line each for the work placed.
    figure = page.locator(".capacity-figure")
    expect(figure.locator(".main-svg").first).to_be_visible()
    stacks = page.locator("article.recommendation").count()
    expect(figure.locator(".xtick").first).to_be_visible()
    assert page.locator(".capacity-summary tbody tr").count() == stacks
    first = page.locator("article.recommendation").first
    expect(first.locator("[data-capacity-stack]")).to_be_visible()
    nodes = first.locator("[data-pool-nodes]").all_inner_texts()
    assert sum(int(n) for n in nodes) == 24
    shoot(screenshot, page, "capacity-recommendations")

    # The decision adopted from the first stack shows that stack's sized pools.
    first.locator("button[name=adopt]").click()
    expect(page.locator(".capacity-decided [data-capacity-stack]")).to_be_visible()
    expect(page.locator(".capacity-figure .main-svg").first).to_be_visible()
    shoot(screenshot, page, "capacity-decision")

    # The comparison puts each same-unit row's fragmentation beside isolation and cost.
    evaluation_step_save(
        evaluation=Evaluation.objects.get(pk=evaluation.pk),
        actor=evaluation.created_by,
        step="candidates",
        data={"candidates": [{"row": ref} for ref in COMPARED]},
    )
    page.goto(f"{live_server.url}/evaluations/{evaluation.pk}/comparison/")
    expect(page.locator("[data-fragmentation='hami/dynamic-mig']")).to_contain_text("fragmented")
    shoot(screenshot, page, "capacity-comparison")

    page.context.add_cookies(
        [{"name": "django_language", "value": "zh-hans", "url": live_server.url}]
    )
    page.goto(f"{live_server.url}/evaluations/{evaluation.pk}/recommendations/")
    expect(page.locator("#capacity-title")).to_have_text("容量数字")
    shoot(screenshot, page, "capacity-recommendations.zh-hans")
    assert console_errors == []


def test_step_1_marks_a_bad_mix_line_keeps_it_and_reads_a_trace_into_the_mix(
    signed_in_page, live_server, evaluation, console_errors, screenshot, tmp_path
):
    page = signed_in_page
    page.set_viewport_size({"width": 1366, "height": 900})
    page.goto(f"{live_server.url}/evaluations/{evaluation.pk}/steps/1/")

    page.fill("#id_workload_mix", "1, training, -4, 8, 1000")
    page.locator("#id_workload_mix").blur()

    errors = page.locator("[data-errors-for=workload_mix]")
    expect(errors).to_contain_text("tasks must be a whole number from 1 to 1000000")
    expect(page.locator("#id_workload_mix")).to_have_value("1, training, -4, 8, 1000")

    trace = tmp_path / "pods.csv"
    trace.write_text(TRACE)
    page.set_input_files("#id_trace", str(trace))
    page.click("button[form=trace-upload]")

    expect(page.locator(".messages, .message, [role=status]").first).to_contain_text(
        "Read 4 tasks from the trace"
    )
    mix = Evaluation.objects.get(pk=evaluation.pk).profile["workload_mix"]
    assert {(e["workload"], e["tasks"], e["gpu_milli"]) for e in mix} == {
        ("online_inference", 2, 250),
        ("training", 1, 1000),
    }
    expect(page.locator("#id_workload_mix")).to_have_value(
        "*, training, 1, 1, 1000\n*, online_inference, 2, 1, 250"
    )
    shoot(screenshot, page, "capacity-step1-mix")
    # The autosave of the bad line answered 400 with the field marked: that is the design.
    assert [error for error in console_errors if "status of 400" not in error] == []
