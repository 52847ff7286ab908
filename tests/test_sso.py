"""Single sign-on (issue 32 item 1) against a real OpenID Connect provider on a local port
(tests/oidc_issuer.py): the code flow with PKCE, accounts found by issuer and subject, groups
mapped to teams, the ID token's issuer and audience checked, local accounts switchable off."""

from __future__ import annotations

from urllib.parse import parse_qs, urlsplit

import pytest
import requests
from django.contrib.auth import get_user_model
from django.test import Client

from ecomap.accounts.models import ExternalIdentity
from ecomap.accounts.oidc import discovery_forget
from evaluations.approvals.services import approval_policy_set
from evaluations.models import AuditEntry, Evaluation, Membership, Role, State
from evaluations.review.services import evaluation_review
from evaluations.teams.services import membership_set, team_create
from tests.evaluations.factories import make_cast, small_catalog, submitted
from tests.factories import make_user
from tests.oidc_issuer import CLIENT_ID, CLIENT_SECRET, oidc_issuer

pytestmark = pytest.mark.django_db

ANA = {
    "sub": "ana-0001",
    "email": "ana@example.com",
    "email_verified": True,
    "preferred_username": "ana",
    "given_name": "Ana",
    "family_name": "Lima",
    "groups": ["gpu-platform-reviewers", "everyone"],
}


@pytest.fixture
def platform(db):
    owner = make_user("owner")
    return team_create(name="Platform", slug="platform", admin=owner)


@pytest.fixture
def configure(settings):
    def configure(issuer) -> None:
        settings.OIDC_ISSUER = issuer.url
        settings.OIDC_RP_CLIENT_ID = CLIENT_ID
        settings.OIDC_RP_CLIENT_SECRET = CLIENT_SECRET
        settings.OIDC_PROVIDER_NAME = "Test IdP"
        settings.OIDC_GROUP_TEAMS = (
            "gpu-platform-reviewers=platform:reviewer, gpu-platform-admins=platform:admin"
        )
        discovery_forget()

    yield configure
    discovery_forget()


def sign_in(client: Client, issuer) -> object:
    """Go through the provider like a browser: EcoMap → /authorize → "Sign in" → callback."""
    start = client.get("/oidc/authenticate/")
    assert start.status_code == 302, start.content
    authorize = start["Location"]
    assert authorize.startswith(f"{issuer.url}/authorize?")
    query = {name: values[0] for name, values in parse_qs(urlsplit(authorize).query).items()}
    assert query["code_challenge_method"] == "S256"  # PKCE
    granted = requests.post(f"{issuer.url}/authorize", data=query, allow_redirects=False, timeout=5)
    callback = urlsplit(granted.headers["Location"])
    return client.get(callback.path + "?" + callback.query)


def test_a_person_signs_in_through_the_provider_and_lands_in_the_mapped_team(configure, platform):
    client = Client()
    with oidc_issuer(ANA) as issuer:
        configure(issuer)
        done = sign_in(client, issuer)

    assert done.status_code == 302
    assert done["Location"] == "/"
    user = get_user_model().objects.get(username="ana")
    assert (user.email, user.first_name, user.has_usable_password()) == (
        "ana@example.com",
        "Ana",
        False,
    )
    assert Membership.objects.get(team=platform, user=user).role == Role.REVIEWER
    assert ExternalIdentity.objects.get(user=user).subject == "ana-0001"
    assert client.get("/teams/").status_code == 200
    assert "Platform" in client.get("/teams/").content.decode()
    assert "POST /token" in issuer.requests and "GET /userinfo" in issuer.requests


def test_the_strongest_role_the_groups_grant_wins(configure, platform):
    with oidc_issuer({**ANA, "groups": ["gpu-platform-reviewers", "gpu-platform-admins"]}) as idp:
        configure(idp)
        sign_in(Client(), idp)

    assert Membership.objects.get(team=platform, user__username="ana").role == Role.ADMIN


def test_leaving_the_group_at_the_provider_leaves_the_team_at_the_next_sign_in(configure, platform):
    with oidc_issuer(ANA) as issuer:
        configure(issuer)
        sign_in(Client(), issuer)
        issuer.user = {**ANA, "groups": ["everyone"]}
        sign_in(Client(), issuer)

    assert not Membership.objects.filter(team=platform, user__username="ana").exists()
    assert get_user_model().objects.filter(username="ana").count() == 1  # the same account


def test_a_reviewer_out_of_the_group_at_the_next_sign_in_loses_their_approval(configure):
    """Issue 41 M1: the sign-in that removes a reviewer from the team voids their approval of an
    evaluation under review, so it cannot complete a two-approval policy."""
    small_catalog()
    cast = make_cast()  # the Platform team the mapping names
    approval_policy_set(team=cast.team, actor=cast.alice, required_approvals=2, rules=[])
    evaluation = submitted(cast)
    with oidc_issuer(ANA) as issuer:
        configure(issuer)
        sign_in(Client(), issuer)
        ana = get_user_model().objects.get(username="ana")
        evaluation_review(evaluation=evaluation, actor=ana, verdict="approve")
        issuer.user = {**ANA, "groups": ["everyone"]}
        sign_in(Client(), issuer)

    evaluation_review(evaluation=evaluation, actor=cast.carol, verdict="approve")

    assert Evaluation.objects.get(pk=evaluation.pk).state == State.IN_REVIEW
    entry = AuditEntry.objects.get(evaluation=evaluation, action="approval_voided")
    assert entry.changes["reviewer"] == "ana"
    assert entry.changes["reason"] == "removed from the team (single sign-on groups)"


def test_teams_the_mapping_does_not_name_are_left_alone(configure, platform):
    other = team_create(name="Research", slug="research", admin=make_user("boss"))
    with oidc_issuer(ANA) as issuer:
        configure(issuer)
        sign_in(Client(), issuer)
        ana = get_user_model().objects.get(username="ana")
        membership_set(team=other, user=ana, role=Role.EDITOR)
        sign_in(Client(), issuer)

    assert Membership.objects.get(team=other, user=ana).role == Role.EDITOR


def test_an_existing_account_is_linked_by_a_verified_address_only(configure, platform):
    bob = make_user("bob", email="ana@example.com")
    with oidc_issuer({**ANA, "email_verified": False}) as issuer:
        configure(issuer)
        sign_in(Client(), issuer)
    assert not ExternalIdentity.objects.filter(user=bob).exists()  # a new account instead

    ExternalIdentity.objects.all().delete()
    get_user_model().objects.filter(username="ana").delete()
    with oidc_issuer(ANA) as issuer:
        configure(issuer)
        sign_in(Client(), issuer)
    assert ExternalIdentity.objects.get(subject="ana-0001").user == bob


def test_a_deactivated_account_cannot_sign_in_nor_come_back_as_a_new_one(configure, platform):
    with oidc_issuer(ANA) as issuer:
        configure(issuer)
        sign_in(Client(), issuer)
        get_user_model().objects.filter(username="ana").update(is_active=False)
        client = Client()
        done = sign_in(client, issuer)

    assert done["Location"] == "/accounts/login/?sso=failed"
    assert "_auth_user_id" not in client.session
    assert get_user_model().objects.count() == 2  # the team's owner and ana, nobody new


@pytest.mark.parametrize("wrong", ["issuer", "audience"])
def test_an_id_token_for_another_issuer_or_client_signs_nobody_in(configure, platform, wrong):
    client = Client()
    with oidc_issuer(ANA) as issuer:
        configure(issuer)
        if wrong == "issuer":
            issuer.id_token_issuer = "https://evil.example.com"
        else:
            issuer.id_token_audience = "another-client"
        done = sign_in(client, issuer)

    assert done["Location"] == "/accounts/login/?sso=failed"
    assert not get_user_model().objects.filter(username="ana").exists()
    assert "_auth_user_id" not in client.session


def test_with_local_accounts_off_a_password_signs_nobody_in(configure, platform, settings):
    make_user("carol")
    settings.LOCAL_LOGIN = False
    client = Client()

    page = client.post("/accounts/login/", {"username": "carol", "password": "carol-password"})
    admin = client.post(
        "/admin/login/", {"username": "carol", "password": "carol-password", "next": "/admin/"}
    )

    assert page.status_code == 403
    assert "switched off" in page.content.decode()
    assert "_auth_user_id" not in client.session
    assert admin.status_code == 200  # the admin's form again, not a session
    with oidc_issuer(ANA) as issuer:
        configure(issuer)
        assert "Sign in with Test IdP" in client.get("/accounts/login/").content.decode()
        assert sign_in(client, issuer)["Location"] == "/"
    assert client.session["_auth_user_id"] == str(get_user_model().objects.get(username="ana").pk)


def test_without_an_issuer_there_is_no_sso(client):
    assert client.get("/oidc/authenticate/").status_code == 404
    assert "Sign in with" not in client.get("/accounts/login/").content.decode()
