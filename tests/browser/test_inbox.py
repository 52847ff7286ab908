"""The inbox in a real browser: the nav badge counts unread notifications, opening one goes to
its evaluation and marks it read, "mark all read" clears the badge; the home page lists the
evaluation and searches from its box."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from evaluations import services
from evaluations.notifications.choices import Event
from evaluations.notifications.models import Notification
from evaluations.teams.choices import Role
from evaluations.teams.services import membership_set, team_create
from tests.factories import make_user

pytestmark = [
    pytest.mark.browser,
    pytest.mark.django_db(transaction=True, serialized_rollback=True),
]


@pytest.fixture
def notified(bob):
    admin = make_user("alice-admin")
    team = team_create(name="Platform team", slug="platform-team", admin=admin)
    membership_set(team=team, user=bob, role=Role.REVIEWER)
    evaluation = services.evaluation_create(actor=admin, team=team, title="Inference pool")
    for event in (Event.SUBMITTED, Event.COMMENTED):
        Notification.objects.create(
            recipient=bob, evaluation=evaluation, event=event, actor=admin, revision=1
        )
    return evaluation


def test_reading_notifications_from_the_inbox(
    signed_in_page, live_server, notified, console_errors
):
    page = signed_in_page
    page.goto(f"{live_server.url}/")
    badge = page.locator(".mainnav .count-badge")
    expect(badge).to_have_text("2")

    page.click(".mainnav a.nav-inbox")
    expect(page.locator("h1")).to_have_text("Inbox")
    expect(page.locator(".notification.is-unread")).to_have_count(2)

    page.locator(".notification.is-unread a").first.click()
    page.wait_for_url(re.compile(rf"/evaluations/{notified.pk}/"))
    expect(badge).to_have_text("1")

    page.goto(f"{live_server.url}/inbox/")
    expect(page.locator(".notification.is-unread")).to_have_count(1)
    page.click("text=Mark all read")
    expect(page.locator(".notification.is-unread")).to_have_count(0)
    expect(badge).to_have_count(0)
    assert console_errors == []


def test_searching_from_the_home_page(signed_in_page, live_server, notified, console_errors):
    page = signed_in_page
    page.goto(f"{live_server.url}/")
    page.fill("#home-q", "inference")
    page.press("#home-q", "Enter")
    page.wait_for_url(re.compile(r"/inbox/search/\?q=inference"))
    expect(page.locator("#evaluations a", has_text="Inference pool")).to_be_visible()
    assert console_errors == []
