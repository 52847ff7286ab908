"""Review comments in a real browser: a reviewer comments on a step, the author resolves it."""

from __future__ import annotations

import pytest
from django.conf import settings
from django.test import Client
from playwright.sync_api import expect

from tests.evaluations.factories import make_cast, small_catalog, submitted

pytestmark = [
    pytest.mark.browser,
    pytest.mark.django_db(transaction=True, serialized_rollback=True),
]


def as_user(context, live_server, user) -> None:
    client = Client()
    client.force_login(user)
    context.clear_cookies()
    context.add_cookies(
        [
            {
                "name": settings.SESSION_COOKIE_NAME,
                "value": client.cookies[settings.SESSION_COOKIE_NAME].value,
                "url": live_server.url,
            }
        ]
    )


def test_a_reviewer_comments_on_a_step_and_the_author_resolves_it(
    page, live_server, console_errors, screenshot
):
    small_catalog()
    cast = make_cast()
    evaluation = submitted(cast)
    step_two = f"{live_server.url}/evaluations/{evaluation.pk}/steps/2/"

    as_user(page.context, live_server, cast.carol)
    page.goto(step_two)
    page.fill("#comment-body", "Why not MIG slices for the inference pool?")
    page.click(".comment-form button[type=submit]")

    panel = page.locator("#comments")
    expect(panel.locator(".comment")).to_contain_text("Why not MIG slices")
    expect(panel.locator("[data-open-count]")).to_have_attribute("data-open-count", "1")
    expect(page.locator(".notice-comments")).to_be_visible()

    as_user(page.context, live_server, cast.bob)
    page.goto(step_two)
    panel.locator(".comment-resolve button").click()

    expect(panel.locator("[data-open-count]")).to_have_attribute("data-open-count", "0")
    resolved = panel.locator("details.comments-resolved")
    expect(resolved.locator(".comment")).to_be_hidden()
    resolved.locator("summary").click()
    expect(resolved.locator(".comment")).to_contain_text("resolved by bob-editor")
    expect(page.locator(".notice-comments")).to_have_count(0)
    screenshot(page, "comments-resolved")
    assert console_errors == []
