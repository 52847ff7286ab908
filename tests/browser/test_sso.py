"""Single sign-on in a real browser (issue 32 item 1): the sign-in page's button → the local
OpenID Connect provider's page → "Sign in" → back in EcoMap, signed in, in the team the
provider's group maps to."""

from __future__ import annotations

import pytest

from ecomap.accounts.oidc import discovery_forget
from evaluations.teams.choices import Role
from evaluations.teams.models import Membership
from evaluations.teams.services import team_create
from tests.factories import make_user
from tests.oidc_issuer import CLIENT_ID, CLIENT_SECRET, oidc_issuer

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

ANA = {
    "sub": "ana-0001",
    "email": "ana@example.com",
    "email_verified": True,
    "preferred_username": "ana",
    "name": "Ana Lima",
    "groups": ["gpu-platform-reviewers"],
}


def test_a_person_signs_in_through_the_company_provider_and_lands_in_the_mapped_team(
    page, live_server, settings, console_errors, screenshot
):
    team_create(name="GPU Platform", slug="platform", admin=make_user("owner"))
    with oidc_issuer(ANA) as issuer:
        settings.OIDC_ISSUER = issuer.url
        settings.OIDC_RP_CLIENT_ID = CLIENT_ID
        settings.OIDC_RP_CLIENT_SECRET = CLIENT_SECRET
        settings.OIDC_PROVIDER_NAME = "Test IdP"
        settings.OIDC_GROUP_TEAMS = "gpu-platform-reviewers=platform:reviewer"
        discovery_forget()

        page.goto(f"{live_server.url}/accounts/login/")
        screenshot(page, "sso-sign-in")
        page.get_by_role("link", name="Sign in with Test IdP").click()
        page.get_by_role("heading", name="Test identity provider").wait_for()
        page.get_by_role("button", name="Sign in").click()
        page.wait_for_url(f"{live_server.url}/")
        page.goto(f"{live_server.url}/teams/")
        screenshot(page, "sso-teams")
        teams = page.locator("main").inner_text()
    discovery_forget()

    assert "GPU Platform" in teams
    assert page.locator(".whoami").inner_text() == "ana"
    assert Membership.objects.get(team__slug="platform", user__username="ana").role == Role.REVIEWER
    assert console_errors == []
