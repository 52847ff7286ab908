"""Inviting someone in a real browser: the admin invites a new person by e-mail, the person opens
the link, chooses a username and password and lands signed in on the team page as a member."""

from __future__ import annotations

import re

import pytest
from django.conf import settings
from django.core import mail
from django.test import Client
from playwright.sync_api import expect

from evaluations.teams import services
from evaluations.teams.choices import Role
from evaluations.teams.models import Membership
from tests.factories import make_user

# serialized_rollback: a transactional test flushes the tables afterwards, which would take the
# vocabulary the migrations seed with them.
pytestmark = [
    pytest.mark.browser,
    pytest.mark.django_db(transaction=True, serialized_rollback=True),
]


def signed_in(context, live_server, user) -> None:
    client = Client()
    client.force_login(user)
    context.add_cookies(
        [
            {
                "name": settings.SESSION_COOKIE_NAME,
                "value": client.cookies[settings.SESSION_COOKIE_NAME].value,
                "url": live_server.url,
            }
        ]
    )


def test_an_invited_person_sets_a_password_and_lands_in_the_team(
    page, browser, live_server, console_errors, screenshot
):
    alice = make_user("alice", email="alice@example.org")
    team = services.team_create(name="Platform team", slug="platform-team", admin=alice)
    signed_in(page.context, live_server, alice)

    # The admin invites erin as a reviewer.
    page.goto(f"{live_server.url}/teams/")
    page.click("text=Platform team")
    page.fill("#invite input[name=email]", "erin@example.org")
    page.select_option("#invite select[name=role]", "reviewer")
    page.click("#invite button[type=submit]")
    link_box = page.locator(".team-invite-link input")
    expect(link_box).to_be_visible()
    link = link_box.input_value()
    assert link in mail.outbox[-1].body
    expect(page.locator('[data-invitation="erin@example.org"]')).to_be_visible()
    screenshot(page, "team-invited")

    # Erin, with no account, opens the link in her own browser.
    erin_page = browser.new_context(viewport={"width": 390, "height": 844}).new_page()
    erin_page.on("pageerror", lambda error: console_errors.append(str(error)))
    erin_page.goto(link)
    expect(erin_page.locator("h1")).to_have_text("Join Platform team")
    erin_page.fill("input[name=username]", "erin")
    erin_page.fill("input[name=password1]", "erin")
    erin_page.fill("input[name=password2]", "erin")
    erin_page.click("form.team-signup button[type=submit]")
    expect(erin_page.locator(".team-field.has-error")).to_have_count(1)
    expect(erin_page.locator("input[name=username]")).to_have_value("erin")

    erin_page.fill("input[name=password1]", "a long passphrase 42")
    erin_page.fill("input[name=password2]", "a long passphrase 42")
    erin_page.click("form.team-signup button[type=submit]")
    erin_page.wait_for_url(re.compile(r"/teams/platform-team/$"))
    expect(erin_page.locator(".whoami")).to_have_text("erin")
    expect(erin_page.locator('[data-member="erin"]')).to_contain_text("reviewer")
    screenshot(erin_page, "team-joined-390")

    membership = Membership.objects.get(team=team, user__username="erin")
    assert membership.role == Role.REVIEWER
    assert membership.user.email == "erin@example.org"

    # The link worked once.
    erin_page.goto(link)
    expect(erin_page).to_have_url(re.compile(r"/teams/platform-team/$"))
    assert console_errors == []
