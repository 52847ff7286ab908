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
from evaluations.audit.models import AuditEntry
from evaluations.errors import NotAllowed
from evaluations.models import Evaluation, State
from evaluations.review.services import evaluation_review
from evaluations.teams.choices import Role
from evaluations.teams.models import Membership
from evaluations.teams.services import (
    invitation_accept,
    invitation_create,
    membership_set,
    team_create,
)
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


# ---- linking by address (issue 41): no e-mail claim takes over a local account ------------------
#
# The rule: a first sign-in links an existing account only when the provider sends
# `email_verified` as the JSON boolean true and an ASCII address that is, character for
# character, the address of exactly one active account (no other account has it in any case),
# which is not staff or superuser and has no single sign-on identity yet (at this provider or
# another). Otherwise a new account is made, and it carries the claimed address only when that
# address is verified, ASCII and nobody's yet, so it cannot accept invitations sent to another
# account's address either.

BOB_ADDRESS = "ana@example.com"


def _bob(**fields):
    return make_user("bob", email=BOB_ADDRESS, **fields)


def _not_linked(bob) -> None:
    """bob's account untouched; whoever signed in got an account of their own, without an
    address anyone else has."""
    bob.refresh_from_db()
    assert bob.email == BOB_ADDRESS
    assert not ExternalIdentity.objects.filter(user=bob).exists()
    (identity,) = ExternalIdentity.objects.exclude(user=bob)
    assert identity.user.email == ""


def _missing_verified(claims):
    return {key: value for key, value in claims.items() if key != "email_verified"}


@pytest.mark.parametrize(
    "claims",
    [
        pytest.param(_missing_verified(ANA), id="email_verified-missing"),
        pytest.param({**ANA, "email_verified": False}, id="email_verified-false"),
        pytest.param({**ANA, "email_verified": "false"}, id="email_verified-string-false"),
        pytest.param({**ANA, "email_verified": "true"}, id="email_verified-string-true"),
        pytest.param({**ANA, "email_verified": 1}, id="email_verified-1"),
        pytest.param({**ANA, "email": "ANA@example.com"}, id="upper-case"),
        pytest.param({**ANA, "email": "Ana@Example.COM"}, id="mixed-case"),
        pytest.param({**ANA, "email": " ana@example.com"}, id="leading-space"),
        pytest.param({**ANA, "email": "\u0430na@example.com"}, id="cyrillic-a"),
        pytest.param({**ANA, "email": "ana@ex\u0430mple.com"}, id="cyrillic-a-in-domain"),
        pytest.param({**ANA, "email": "\uff41na@example.com"}, id="fullwidth-a"),
        pytest.param({**ANA, "email": "an\u0430@example.com"}, id="cyrillic-a-last"),
    ],
)
def test_no_email_claim_but_the_verified_exact_address_links_the_account(configure, claims):
    bob = _bob()
    with oidc_issuer(claims) as issuer:
        configure(issuer)
        assert sign_in(Client(), issuer)["Location"] == "/"

    _not_linked(bob)


@pytest.mark.parametrize(
    ("address", "claimed"),
    [
        ("sam@example.com", "\u017fam@example.com"),  # long s: PostgreSQL's UPPER makes it S
        ("admin@example.com", "adm\u0131n@example.com"),  # dotless i: UPPER makes it I
        ("kim@example.com", "\u212aim@example.com"),  # Kelvin sign: lower() makes it k
    ],
    ids=["long-s", "dotless-i", "kelvin-sign"],
)
def test_a_look_alike_that_case_folds_to_an_accounts_address_does_not_link_it(
    configure, address, claimed
):
    owner = make_user("owner-of-address", email=address)
    with oidc_issuer({**ANA, "email": claimed}) as issuer:
        configure(issuer)
        sign_in(Client(), issuer)

    assert not ExternalIdentity.objects.filter(user=owner).exists()
    assert ExternalIdentity.objects.get(subject="ana-0001").user.email == ""


def test_the_address_of_an_account_linked_to_another_subject_does_not_link_it_again(configure):
    bob = _bob()
    with oidc_issuer(ANA) as issuer:
        configure(issuer)
        sign_in(Client(), issuer)  # ana-0001 is bob (the verified exact address)
        issuer.user = {**ANA, "sub": "mallory-0002", "preferred_username": "mallory"}
        sign_in(Client(), issuer)

    assert ExternalIdentity.objects.get(subject="ana-0001").user == bob
    mallory = ExternalIdentity.objects.get(subject="mallory-0002").user
    assert mallory != bob
    assert mallory.email == ""


def test_a_second_provider_claiming_the_same_address_does_not_take_the_account(configure):
    """Even with the same subject: a subject is unique per issuer only."""
    bob = _bob()
    with oidc_issuer(ANA) as first:
        configure(first)
        sign_in(Client(), first)
    with oidc_issuer(ANA) as second:
        configure(second)
        client = Client()
        sign_in(client, second)

    assert ExternalIdentity.objects.get(user=bob).issuer == first.url
    other = ExternalIdentity.objects.get(issuer=second.url).user
    assert other != bob and other.email == ""
    assert client.session["_auth_user_id"] == str(other.pk)


@pytest.mark.parametrize("power", ["is_staff", "is_superuser"])
def test_a_staff_or_superuser_account_is_never_linked_by_address(configure, power):
    bob = _bob(**{power: True})
    with oidc_issuer(ANA) as issuer:
        configure(issuer)
        client = Client()
        sign_in(client, issuer)

    _not_linked(bob)
    assert client.session["_auth_user_id"] != str(bob.pk)


def test_an_address_two_accounts_share_in_different_cases_links_neither(configure):
    bob = _bob()
    other = make_user("bob-too", email="Ana@example.com")
    with oidc_issuer(ANA) as issuer:
        configure(issuer)
        sign_in(Client(), issuer)

    assert not ExternalIdentity.objects.filter(user__in=[bob, other]).exists()


def test_a_new_account_keeps_a_verified_address_nobody_has(configure):
    with oidc_issuer({**ANA, "email": "new@example.com"}) as issuer:
        configure(issuer)
        sign_in(Client(), issuer)

    assert ExternalIdentity.objects.get(subject="ana-0001").user.email == "new@example.com"


def test_a_new_account_does_not_keep_an_unverified_address(configure):
    with oidc_issuer({**ANA, "email": "new@example.com", "email_verified": "true"}) as issuer:
        configure(issuer)
        sign_in(Client(), issuer)

    assert ExternalIdentity.objects.get(subject="ana-0001").user.email == ""


def test_an_unverified_claim_cannot_accept_an_invitation_sent_to_that_address(configure, platform):
    """Why a new account keeps only a verified address: invitations join the account whose
    address they were sent to."""
    owner = get_user_model().objects.get(username="owner")
    invited = invitation_create(team=platform, actor=owner, email=BOB_ADDRESS, role=Role.EDITOR)
    with oidc_issuer({**ANA, "email_verified": False, "groups": []}) as issuer:
        configure(issuer)
        sign_in(Client(), issuer)
    claimant = ExternalIdentity.objects.get(subject="ana-0001").user

    with pytest.raises(NotAllowed):
        invitation_accept(key=invited.key, user=claimant)
    assert not Membership.objects.filter(team=platform, user=claimant).exists()
