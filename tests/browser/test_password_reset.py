"""A forgotten password replaced in a real browser: sign-in page → e-mail → link → new password →
signed in, under the site's CSP (no console error)."""

from __future__ import annotations

import re

import pytest
from django.core import mail

from tests.factories import make_user

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_a_reader_resets_a_forgotten_password_and_signs_in(
    page, live_server, settings, console_errors
):
    settings.SITE_URL = live_server.url
    make_user("erin", email="erin@example.org")

    page.goto(f"{live_server.url}/accounts/login/")
    page.get_by_role("link", name="Forgot your password?").click()
    page.get_by_label("E-mail address").fill("erin@example.org")
    page.get_by_role("button", name="Send the reset link").click()
    page.get_by_role("heading", name="Check your e-mail").wait_for()

    link = re.search(r"https?://\S+", mail.outbox[0].body).group(0)
    page.goto(link)
    page.get_by_label("New password", exact=True).fill("violet-harbour-lantern-42")
    page.get_by_label("New password again").fill("violet-harbour-lantern-42")
    page.get_by_role("button", name="Set the new password").click()
    page.get_by_role("heading", name="Password changed").wait_for()

    page.get_by_role("link", name="Sign in").last.click()
    page.get_by_label("Username").fill("erin")
    page.get_by_label("Password").fill("violet-harbour-lantern-42")
    page.get_by_role("button", name="Sign in").click()
    page.wait_for_url(f"{live_server.url}/")

    assert console_errors == []
