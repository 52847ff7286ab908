"""Step 3 in a real browser: search as you type, add from the results and from the suggestions,
pick alternatives groups, remove, all without leaving the page; a reload shows what was saved."""

from __future__ import annotations

import pytest
from django.conf import settings
from django.test import Client
from playwright.sync_api import expect

from evaluations.models import Evaluation
from evaluations.steps.services import evaluation_candidate_add, evaluation_step_save
from tests.evaluations.factories import MIXED_PROFILE, make_cast, make_evaluation, small_catalog

pytestmark = [
    pytest.mark.browser,
    pytest.mark.django_db(transaction=True, serialized_rollback=True),
]


@pytest.fixture
def evaluation(db):
    small_catalog()
    cast = make_cast()
    evaluation = make_evaluation(cast, title="Shared GPUs")
    evaluation_step_save(evaluation=evaluation, actor=cast.bob, step="profile", data=MIXED_PROFILE)
    evaluation_step_save(
        evaluation=evaluation,
        actor=cast.bob,
        step="units",
        data={"units": ["memory_compute_quota", "whole_gpu"]},
    )
    return Evaluation.objects.get(pk=evaluation.pk), cast


def signed_in(page, live_server, user):
    client = Client()
    client.force_login(user)
    page.context.add_cookies(
        [
            {
                "name": settings.SESSION_COOKIE_NAME,
                "value": client.cookies[settings.SESSION_COOKIE_NAME].value,
                "url": live_server.url,
            }
        ]
    )
    return page


def groups_saved(evaluation) -> dict[str, str]:
    return {c.row.ref: c.alternative_group for c in evaluation.candidates.all()}


def until_saved(page, evaluation, wanted: dict[str, str]) -> None:
    """Wait for the page's background saves to store `wanted` (autosave is debounced)."""
    for _ in range(50):
        if groups_saved(evaluation) == wanted:
            return
        page.wait_for_timeout(200)
    assert groups_saved(evaluation) == wanted


def test_candidates_are_added_grouped_and_removed_without_a_reload(
    page, live_server, evaluation, console_errors, screenshot
):
    evaluation, cast = evaluation
    page = signed_in(page, live_server, cast.bob)
    page.goto(f"{live_server.url}/evaluations/{evaluation.pk}/steps/3/")
    expect(page.locator("[data-candidates-page][data-ready]")).to_have_count(1)
    page.evaluate("() => { window.stillHere = 'yes'; }")  # gone if the page navigates

    # Typing searches: no Enter, no submit.
    page.locator("#candidate-q").press_sequentially("volc", delay=30)
    result = page.locator("li[data-result='volcano/scheduler']")
    expect(result).to_contain_text("Control plane")
    expect(result).to_contain_text("Gang scheduling")
    result.locator("button[name=add]").click()
    expect(page.locator("tr[data-candidate='volcano/scheduler']")).to_be_visible()
    expect(result.locator(".chip")).to_have_text("added")

    # A suggestion from steps 1 and 2 (multi-tenant, P99, chosen units) adds with one click.
    suggestion = page.locator("[data-suggestion='hami/device-plugin']")
    expect(suggestion).to_contain_text("memory isolation on Memory + compute quota")
    suggestion.locator("button[name=add]").click()
    expect(page.locator("tr[data-candidate='hami/device-plugin']")).to_be_visible()
    expect(page.locator("[data-suggestion='hami/device-plugin']")).to_have_count(0)
    assert page.evaluate("() => window.stillHere") == "yes"
    assert page.evaluate("() => performance.getEntriesByType('navigation').length") == 1
    evaluation.refresh_from_db()
    assert sorted(groups_saved(evaluation)) == ["hami/device-plugin", "volcano/scheduler"]
    assert page.locator("[data-revision]").input_value() == str(evaluation.revision)

    # Alternatives groups from the select: a new lettered group, then one named by the team.
    hami = page.locator("tr[data-candidate='hami/device-plugin']")
    volcano = page.locator("tr[data-candidate='volcano/scheduler']")
    hami.locator("select[data-group-select]").select_option("A")
    expect(volcano.locator("select[data-group-select] option[value='A']")).to_have_text("group A")
    volcano.locator("select[data-group-select]").select_option("__named__")
    volcano.locator("[data-group-name]").fill("admission")
    volcano.locator("[data-group-name]").press("Enter")
    expect(volcano.locator("select[data-group-select]")).to_have_value("admission")
    expect(hami.locator("select[data-group-select] option[value='admission']")).to_have_count(1)
    until_saved(page, evaluation, {"hami/device-plugin": "A", "volcano/scheduler": "admission"})
    screenshot(page, "step3-candidates", full_page=True)

    # Remove one, still on the same page; the other keeps its group.
    page.locator("tr[data-candidate='volcano/scheduler'] button[name=remove]").click()
    expect(page.locator("tr[data-candidate='volcano/scheduler']")).to_have_count(0)
    assert page.evaluate("() => window.stillHere") == "yes"
    until_saved(page, evaluation, {"hami/device-plugin": "A"})

    page.reload()
    expect(page.locator("tr[data-candidate]")).to_have_count(1)
    expect(hami.locator("select[data-group-select]")).to_have_value("A")
    assert console_errors == []


def test_a_named_group_is_kept_after_a_reload(page, live_server, evaluation, console_errors):
    evaluation, cast = evaluation
    evaluation_step_save(
        evaluation=evaluation,
        actor=cast.bob,
        step="candidates",
        data={"candidates": [{"row": "hami/device-plugin"}, {"row": "time-slicer/plugin"}]},
    )
    page = signed_in(page, live_server, cast.bob)
    page.goto(f"{live_server.url}/evaluations/{evaluation.pk}/steps/3/")
    expect(page.locator("[data-candidates-page][data-ready]")).to_have_count(1)

    for ref in ("hami/device-plugin", "time-slicer/plugin"):
        row = page.locator(f"tr[data-candidate='{ref}']")
        row.locator("select[data-group-select]").select_option("__named__")
        row.locator("[data-group-name]").fill("node sharing")
        row.locator("[data-group-name]").blur()
        expect(row.locator("select[data-group-select]")).to_have_value("node sharing")
    until_saved(
        page,
        evaluation,
        {"hami/device-plugin": "node sharing", "time-slicer/plugin": "node sharing"},
    )

    page.reload()
    for ref in ("hami/device-plugin", "time-slicer/plugin"):
        select = page.locator(f"tr[data-candidate='{ref}'] select[data-group-select]")
        expect(select).to_have_value("node sharing")
    assert console_errors == []


def test_a_phone_sees_cards_not_a_page_that_scrolls_sideways(
    page, live_server, evaluation, screenshot
):
    evaluation, cast = evaluation
    evaluation_candidate_add(evaluation=evaluation, actor=cast.bob, row="hami/device-plugin")
    page = signed_in(page, live_server, cast.bob)
    page.set_viewport_size({"width": 390, "height": 844})
    page.goto(f"{live_server.url}/evaluations/{evaluation.pk}/steps/3/?q=a")
    expect(page.locator("[data-candidates-page][data-ready]")).to_have_count(1)

    width = page.evaluate("() => document.documentElement.scrollWidth")
    screenshot(page, "step3-candidates-390", full_page=True)

    assert width <= 390
    assert page.locator("table.candidates thead").bounding_box()["height"] <= 1


def test_an_add_on_a_page_someone_else_saved_over_says_who_and_adds_nothing(
    page, live_server, evaluation, console_errors
):
    evaluation, cast = evaluation
    page = signed_in(page, live_server, cast.bob)
    page.goto(f"{live_server.url}/evaluations/{evaluation.pk}/steps/3/")
    expect(page.locator("[data-candidates-page][data-ready]")).to_have_count(1)
    evaluation_step_save(
        evaluation=evaluation, actor=cast.alice, step="profile", data={"isolation": "hard"}
    )

    suggestion = page.locator("[data-suggestion='hami/device-plugin']")
    suggestion.locator("button[name=add]").click()

    expect(suggestion.locator(".inline-error")).to_contain_text("alice-admin saved this evaluation")
    expect(page.locator("[data-candidates-status]")).to_contain_text("Reload the page")
    expect(page.locator("tr[data-candidate]")).to_have_count(0)
    assert Evaluation.objects.get(pk=evaluation.pk).candidates.count() == 0
    assert [e for e in console_errors if "409" not in e] == []
