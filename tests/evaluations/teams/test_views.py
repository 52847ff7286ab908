"""Team pages: who sees what (404 outside the team, read-only inside, 403 for changes by
non-admins), forms that keep the input with their errors, and the invitation link end to end."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.contrib.auth import get_user_model
from django.core import mail
from django.urls import reverse
from django.utils import timezone

from evaluations.teams import services
from evaluations.teams.choices import Role
from evaluations.teams.models import Invitation, Membership
from tests.factories import make_user

pytestmark = pytest.mark.django_db

FORBIDDEN_PAGE = "You are not allowed to see this"


def detail(cast) -> str:
    return reverse("teams:detail", args=[cast.team.slug])


def post_routes(cast):
    """Every change a team page can post, with data that would succeed for an admin."""
    slug, bob = cast.team.slug, cast.bob.pk
    invitation = services.invitation_create(
        team=cast.team, actor=cast.alice, email="x@example.org", role=Role.VIEWER
    ).invitation
    return [
        (reverse("teams:member-role", args=[slug, bob]), {"role": "viewer"}),
        (reverse("teams:member-remove", args=[slug, bob]), {}),
        (reverse("teams:invite", args=[slug]), {"email": "y@example.org", "role": "viewer"}),
        (reverse("teams:invitation-withdraw", args=[slug, invitation.pk]), {}),
        (reverse("teams:webhook", args=[slug]), {"url": "https://h.example/", "secret": "s" * 20}),
    ]


def test_the_list_shows_the_users_teams_with_their_role(client, cast):
    services.membership_set(team=cast.other, user=cast.bob, role=Role.VIEWER)
    client.force_login(cast.bob)

    page = client.get(reverse("teams:list")).content.decode()

    assert "Platform" in page and "Research" in page
    assert "editor" in page and "viewer" in page


def test_the_list_does_not_show_other_teams(client, cast):
    client.force_login(cast.charlie)

    page = client.get(reverse("teams:list")).content.decode()

    assert "Research" in page and "Platform" not in page


def test_a_non_member_gets_404_for_the_team_page_and_every_change(client, cast):
    routes = post_routes(cast)
    client.force_login(cast.charlie)

    assert client.get(detail(cast)).status_code == 404
    for url, data in routes:
        assert client.post(url, data).status_code == 404, url
    assert role_of(cast, cast.bob) == Role.EDITOR


def test_an_anonymous_visitor_is_sent_to_sign_in(client, cast):
    response = client.get(detail(cast))

    assert response.status_code == 302 and "/accounts/login/" in response["Location"]


@pytest.mark.parametrize("persona", ["bob", "carol", "dave"])
def test_members_who_are_not_admins_see_the_members_read_only(client, cast, persona):
    client.force_login(getattr(cast, persona))

    page = client.get(detail(cast)).content.decode()

    for username in ("alice", "bob", "carol", "dave"):
        assert f'data-member="{username}"' in page
    assert "carol@example.org".lower() in page.lower()
    assert reverse("teams:invite", args=[cast.team.slug]) not in page
    assert 'name="role"' not in page


@pytest.mark.parametrize("persona", ["bob", "carol", "dave"])
def test_a_change_by_a_non_admin_gets_the_403_page(client, cast, persona):
    routes = post_routes(cast)
    client.force_login(getattr(cast, persona))

    for url, data in routes:
        response = client.post(url, data)
        assert response.status_code == 403, url
        assert FORBIDDEN_PAGE in response.content.decode()
    assert role_of(cast, cast.bob) == Role.EDITOR
    assert cast.team.invitations.count() == 1


def test_an_admin_sees_the_forms(client, cast):
    client.force_login(cast.alice)

    page = client.get(detail(cast)).content.decode()

    assert reverse("teams:invite", args=[cast.team.slug]) in page
    assert reverse("teams:webhook", args=[cast.team.slug]) in page


def test_the_team_page_takes_the_same_queries_for_3_or_13_members(
    client, cast, django_assert_max_num_queries
):
    client.force_login(cast.alice)
    client.get(detail(cast))  # warm the session and the content types
    with django_assert_max_num_queries(12) as few:
        client.get(detail(cast))
    for i in range(10):
        services.membership_set(team=cast.team, user=make_user(f"member{i}"), role="viewer")
        services.invitation_create(
            team=cast.team, actor=cast.alice, email=f"p{i}@example.org", role="viewer"
        )
    with django_assert_max_num_queries(len(few.captured_queries)):
        client.get(detail(cast))


def role_of(cast, user) -> str | None:
    return (
        Membership.objects.filter(team=cast.team, user=user).values_list("role", flat=True).first()
    )


def add_member(client, cast, email: str, role: str = "reviewer"):
    return client.post(
        reverse("teams:invite", args=[cast.team.slug]), {"email": email, "role": role}, follow=True
    )


def same_page(response, address: str) -> str:
    """The page without what differs on every view: the address, link, ids, CSRF token."""
    page = response.content.decode().replace(address, "ADDRESS")
    page = re.sub(r"/teams/invitations/[A-Za-z0-9_-]+/", "LINK", page)
    page = re.sub(r"/invitations/\d+/", "/invitations/N/", page)
    return re.sub(r'name="csrfmiddlewaretoken" value="[^"]+"', "CSRF", page)


def test_adding_a_member_reads_the_same_whether_an_account_exists_or_not(client, cast):
    # Issue 28, L6: the admin learns nothing about accounts, and nobody joins without consent.
    erin = make_user("erin", email="erin@example.org")
    client.force_login(cast.alice)

    known = add_member(client, cast, "erin@example.org")
    Invitation.objects.all().delete()  # each page then lists its one invitation
    unknown = add_member(client, cast, "nobody@example.org")

    said = [[str(m) for m in response.context["messages"]] for response in (known, unknown)]
    assert said == [
        ["An invitation was sent to erin@example.org. They join when they accept it."],
        ["An invitation was sent to nobody@example.org. They join when they accept it."],
    ]
    assert known.status_code == unknown.status_code == 200
    assert same_page(known, "erin@example.org") == same_page(unknown, "nobody@example.org")
    assert [m.to for m in mail.outbox] == [["erin@example.org"], ["nobody@example.org"]]
    assert role_of(cast, erin) is None


def test_a_member_cannot_be_added_by_username(client, cast):
    make_user("erin", email="erin@example.org")
    client.force_login(cast.alice)

    response = client.post(
        reverse("teams:invite", args=[cast.team.slug]), {"email": "erin", "role": "viewer"}
    )

    assert response.status_code == 400
    assert not Invitation.objects.exists()
    assert (
        client.post(f"/teams/{cast.team.slug}/members/", {"identifier": "erin"}).status_code == 404
    )


def test_an_admin_changes_a_role(client, cast):
    client.force_login(cast.alice)

    response = client.post(
        reverse("teams:member-role", args=[cast.team.slug, cast.dave.pk]), {"role": "editor"}
    )

    assert response.status_code == 302
    assert role_of(cast, cast.dave) == Role.EDITOR


def test_removing_the_last_admin_shows_a_clear_error(client, cast):
    client.force_login(cast.alice)

    response = client.post(reverse("teams:member-remove", args=[cast.team.slug, cast.alice.pk]))

    assert response.status_code == 400
    assert "only admin" in response.content.decode()
    assert role_of(cast, cast.alice) == Role.ADMIN


def test_demoting_the_last_admin_shows_a_clear_error(client, cast):
    client.force_login(cast.alice)

    response = client.post(
        reverse("teams:member-role", args=[cast.team.slug, cast.alice.pk]), {"role": "viewer"}
    )

    assert response.status_code == 400
    assert "make someone else admin first" in response.content.decode()


def test_removing_someone_outside_the_team_answers_404(client, cast):
    client.force_login(cast.alice)

    response = client.post(reverse("teams:member-remove", args=[cast.team.slug, cast.charlie.pk]))

    assert response.status_code == 404


def test_an_invitation_is_emailed_and_its_link_shown_once(client, cast):
    client.force_login(cast.alice)

    response = client.post(
        reverse("teams:invite", args=[cast.team.slug]),
        {"email": "erin@example.org", "role": "reviewer"},
    )

    assert response.status_code == 302
    assert len(mail.outbox) == 1
    link = next(line for line in mail.outbox[0].body.splitlines() if "/teams/invitations/" in line)
    first = client.get(detail(cast)).content.decode()
    again = client.get(detail(cast)).content.decode()
    assert link in first
    assert link not in again
    assert 'data-invitation="erin@example.org"' in again


def test_a_bad_invitation_address_keeps_the_form(client, cast):
    client.force_login(cast.alice)

    response = client.post(
        reverse("teams:invite", args=[cast.team.slug]),
        {"email": "not-an-address", "role": "viewer"},
    )

    assert response.status_code == 400
    assert 'value="not-an-address"' in response.content.decode()
    assert not Invitation.objects.exists()


def test_a_withdrawn_invitation_leaves_the_list(client, cast):
    new = services.invitation_create(
        team=cast.team, actor=cast.alice, email="erin@example.org", role="viewer"
    )
    client.force_login(cast.alice)

    client.post(reverse("teams:invitation-withdraw", args=[cast.team.slug, new.invitation.pk]))

    assert 'data-invitation="erin@example.org"' not in client.get(detail(cast)).content.decode()


def test_an_http_webhook_is_refused_with_the_url_kept(client, cast):
    client.force_login(cast.alice)

    response = client.post(
        reverse("teams:webhook", args=[cast.team.slug]),
        {"url": "http://hooks.example.com/x", "secret": "s" * 20},
    )

    page = response.content.decode()
    assert response.status_code == 400
    assert 'value="http://hooks.example.com/x"' in page
    assert "Use https" in page


def test_the_webhook_secret_is_shown_masked(client, cast):
    services.team_webhook_set(
        team=cast.team, actor=cast.alice, url="https://h.example/", secret="topsecretvalue-WXYZ"
    )
    client.force_login(cast.alice)

    page = client.get(detail(cast)).content.decode()

    assert "topsecretvalue" not in page
    assert "WXYZ" in page


# The invitation link


def accept_url(key: str) -> str:
    return reverse("teams:accept", args=[key])


@pytest.fixture
def invitation(cast):
    return services.invitation_create(
        team=cast.team, actor=cast.alice, email="erin@example.org", role=Role.REVIEWER
    )


def test_a_new_person_sets_a_password_and_is_signed_in_as_a_member(client, cast, invitation):
    response = client.post(
        accept_url(invitation.key),
        {
            "username": "erin",
            "password1": "a long passphrase 42",
            "password2": "a long passphrase 42",
        },
    )

    assert response.status_code == 302 and response["Location"] == detail(cast)
    page = client.get(detail(cast))
    assert page.status_code == 200
    assert page.context["user"].get_username() == "erin"


def test_a_weak_password_keeps_the_username_and_says_why(client, cast, invitation):
    response = client.post(
        accept_url(invitation.key), {"username": "erin", "password1": "erin", "password2": "erin"}
    )

    page = response.content.decode()
    assert response.status_code == 400
    assert 'value="erin"' in page
    assert "too short" in page
    assert not get_user_model().objects.filter(username="erin").exists()


def test_someone_with_an_account_is_told_to_sign_in_first(client, cast, invitation):
    make_user("erin", email="erin@example.org")

    page = client.get(accept_url(invitation.key)).content.decode()

    assert "Sign in first" in page or "exists already" in page
    assert f"next=%2Fteams%2Finvitations%2F{invitation.key}%2F" in page


def test_once_signed_in_the_link_joins_the_team(client, cast, invitation):
    erin = make_user("erin", email="erin@example.org")
    client.force_login(erin)

    assert "Join the team" in client.get(accept_url(invitation.key)).content.decode()
    response = client.post(accept_url(invitation.key))

    assert response.status_code == 302
    assert role_of(cast, erin) == Role.REVIEWER


@pytest.mark.parametrize("role", [Role.REVIEWER, Role.ADMIN])
def test_signed_in_as_another_account_the_link_is_refused_with_a_way_out(client, cast, role):
    # Issue 28, M4: charlie (admin of another team) opens erin's link, admin invitations too.
    new = services.invitation_create(
        team=cast.team, actor=cast.alice, email="erin@example.org", role=role
    )
    client.force_login(cast.charlie)

    shown = client.get(accept_url(new.key))
    posted = client.post(accept_url(new.key))

    assert shown.status_code == posted.status_code == 403
    page = shown.content.decode()
    assert "cannot accept the invitation" in page and "erin@example.org" in page
    assert f'action="{reverse("logout")}"' in page
    assert f'name="next" value="{accept_url(new.key)}"' in page
    assert "Join the team" not in page
    assert role_of(cast, cast.charlie) is None
    assert Invitation.objects.get(pk=new.invitation.pk).accepted_at is None


def test_after_signing_out_the_invited_account_signs_in_and_joins(client, cast, invitation):
    erin = make_user("erin", email="erin@example.org")
    client.force_login(cast.charlie)

    signed_out = client.post(reverse("logout"), {"next": accept_url(invitation.key)})
    assert signed_out["Location"] == accept_url(invitation.key)
    page = client.get(accept_url(invitation.key)).content.decode()
    assert "exists already" in page  # sign in, not a second account for the address
    client.force_login(erin)
    joined = client.post(accept_url(invitation.key))

    assert joined.status_code == 302
    assert role_of(cast, erin) == Role.REVIEWER


@pytest.mark.parametrize(
    ("spoil", "status", "words"),
    [
        (lambda i: i.update(expires_at=timezone.now() - timedelta(minutes=1)), 410, "expired"),
        (lambda i: i.update(revoked_at=timezone.now()), 410, "withdrawn"),
        (lambda i: i.update(accepted_at=timezone.now()), 410, "already been used"),
    ],
)
def test_an_unusable_link_gets_a_clear_page(client, cast, invitation, spoil, status, words):
    spoil(Invitation.objects.filter(pk=invitation.invitation.pk))

    response = client.get(accept_url(invitation.key))

    assert response.status_code == status
    assert words in response.content.decode()
    post = client.post(
        accept_url(invitation.key),
        {
            "username": "erin",
            "password1": "a long passphrase 42",
            "password2": "a long passphrase 42",
        },
    )
    assert post.status_code == status
    assert not get_user_model().objects.filter(username="erin").exists()


def test_an_unknown_link_gets_a_clear_404(client, cast):
    response = client.get(accept_url("x" * 43))

    assert response.status_code == 404
    assert "not valid" in response.content.decode()


def test_the_admin_lists_invitations_without_their_key_hash(client, cast, invitation):
    root = get_user_model().objects.create_superuser("root", "root@example.org", "pw-root-123")
    client.force_login(root)
    stored = Invitation.objects.get(pk=invitation.invitation.pk)

    listing = client.get(reverse("admin:teams_invitation_changelist"))
    change = client.get(reverse("admin:teams_invitation_change", args=[stored.pk]))

    assert "erin@example.org" in listing.content.decode()
    assert change.status_code == 200
    assert stored.key_hash not in change.content.decode()
    assert invitation.key not in change.content.decode()


def test_the_team_list_takes_the_same_queries_for_1_or_6_teams(
    client, cast, django_assert_max_num_queries
):
    client.force_login(cast.bob)
    client.get(reverse("teams:list"))
    with django_assert_max_num_queries(10) as few:
        client.get(reverse("teams:list"))
    for i in range(5):
        team = services.team_create(name=f"Team {i}", slug=f"team-{i}", admin=cast.alice)
        services.membership_set(team=team, user=cast.bob, role=Role.VIEWER)

    with django_assert_max_num_queries(len(few.captured_queries)):
        page = client.get(reverse("teams:list")).content.decode()
    assert "Team 4" in page


def test_with_password_sign_in_off_an_invitation_asks_to_sign_in_first(client, cast, settings):
    # Issue 32: LOCAL_LOGIN=false means accounts come from the company's provider only.
    settings.LOCAL_LOGIN = False
    key = services.invitation_create(
        team=cast.team, actor=cast.alice, email="new@example.org", role=Role.VIEWER
    ).key
    url = reverse("teams:accept", args=[key])

    page = client.get(url)
    posted = client.post(url, {"username": "newbie", "password1": "x" * 14, "password2": "x" * 14})

    assert 'name="password1"' not in page.content.decode()
    assert not get_user_model().objects.filter(username="newbie").exists()
    assert posted.status_code == 200
