"""Keyboard focus after step 3's dynamic changes (issue 42 item 5): "+ Add" by keyboard puts
focus on the added candidate, a removal on the next candidate, never on <body>."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.browser.test_step_candidates import evaluation, signed_in  # noqa: F401 (fixture)

pytestmark = [
    pytest.mark.browser,
    pytest.mark.django_db(transaction=True, serialized_rollback=True),
]

FOCUSED_CANDIDATE = (
    "() => { const row = document.activeElement.closest('tr[data-candidate]');"
    " return row ? row.dataset.candidate : document.activeElement.tagName; }"
)


def test_an_added_candidate_takes_the_keyboard_focus(
    page,
    live_server,
    evaluation,  # noqa: F811
    console_errors,
):
    evaluation, cast = evaluation
    page = signed_in(page, live_server, cast.bob)
    page.goto(f"{live_server.url}/evaluations/{evaluation.pk}/steps/3/")
    expect(page.locator("[data-candidates-page][data-ready]")).to_have_count(1)

    page.locator("#candidate-q").press_sequentially("volc", delay=30)
    button = page.locator("li[data-result='volcano/scheduler'] button[name=add]")
    button.focus()
    page.keyboard.press("Enter")
    expect(page.locator("tr[data-candidate='volcano/scheduler']")).to_be_visible()
    page.wait_for_function(f"() => ({FOCUSED_CANDIDATE})() === 'volcano/scheduler'")

    suggestion = page.locator("[data-suggestion='hami/device-plugin'] button[name=add]")
    suggestion.focus()
    page.keyboard.press("Enter")
    page.wait_for_function(f"() => ({FOCUSED_CANDIDATE})() === 'hami/device-plugin'")

    remove = page.locator("tr[data-candidate='hami/device-plugin'] button[name=remove]")
    remove.focus()
    page.keyboard.press("Enter")
    expect(page.locator("tr[data-candidate='hami/device-plugin']")).to_have_count(0)
    page.wait_for_function(f"() => ({FOCUSED_CANDIDATE})() === 'volcano/scheduler'")
    assert console_errors == []
