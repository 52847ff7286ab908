"""Playwright on Debian's Chromium against pytest-django's live_server, with a signed-in page."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from django.conf import settings
from django.test import Client

# Playwright's sync API runs an event loop in this thread; the ORM calls the tests make between
# browser steps are still plain synchronous code, so Django's async-safety guard does not apply.
os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"

SCREENS = Path(settings.BASE_DIR) / "test-artifacts" / "screens"


@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args):
    # Never `playwright install`: the machines have Debian's Chromium (see ENVIRONMENT.md).
    return {
        **browser_type_launch_args,
        "executable_path": "/usr/bin/chromium",
        "args": [
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--no-first-run",
        ],
    }


@pytest.fixture(scope="session")
def browser_context_args(browser_context_args):
    return {**browser_context_args, "viewport": {"width": 1440, "height": 1000}}


@pytest.fixture
def console_errors(page):
    """Every console error and uncaught exception the page raises."""
    errors: list[str] = []
    page.on("console", lambda message: message.type == "error" and errors.append(message.text))
    page.on("pageerror", lambda error: errors.append(str(error)))
    return errors


@pytest.fixture
def signed_in_page(page, live_server, bob, console_errors):
    """bob's session cookie in the browser: signing in through the form is tested elsewhere."""
    client = Client()
    client.force_login(bob)
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


@pytest.fixture
def screenshot():
    """Save a screenshot to test-artifacts/screens/NAME.png (to be looked at, not diffed)."""
    SCREENS.mkdir(parents=True, exist_ok=True)

    def take(page, name: str, **options) -> Path:
        path = SCREENS / f"{name}.png"
        page.screenshot(path=str(path), **options)
        return path

    return take
