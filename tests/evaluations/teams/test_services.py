"""Team services: members join by accepting an invitation to their address, roles, the last
admin, invitations, webhook."""

from __future__ import annotations

import hashlib
from datetime import timedelta

import pytest
from django.contrib.auth import get_user_model
from django.core import mail
from django.utils import timezone

from evaluations.errors import InvalidInput, NotAllowed
from evaluations.teams import services
from evaluations.teams.choices import Role
from evaluations.teams.models import Invitation, Membership
from tests.factories import make_user

pytestmark = pytest.mark.django_db


def role_of(team, user) -> str | None:
    return Membership.objects.filter(team=team, user=user).values_list("role", flat=True).first()


def invite(cast, email="erin@example.org", role=Role.REVIEWER):
    return services.invitation_create(team=cast.team, actor=cast.alice, email=email, role=role)


# Members


def test_there_is_no_way_to_add_an_account_without_its_consent(cast):
    # Issue 28, L6: adding a member is an invitation the person accepts (member_add is gone).
    assert not hasattr(services, "member_add")


def test_an_invitation_joins_nobody_until_it_is_accepted(cast):
    erin = make_user("erin", email="erin@example.org")

    invite(cast)

    assert role_of(cast.team, erin) is None


@pytest.mark.parametrize("persona", ["bob", "carol", "dave", "charlie"])
def test_only_an_admin_of_the_team_invites_members(cast, persona):
    with pytest.raises(NotAllowed):
        services.invitation_create(
            team=cast.team, actor=getattr(cast, persona), email="e@example.org", role=Role.VIEWER
        )


@pytest.mark.parametrize("role", [Role.VIEWER, Role.ADMIN])
def test_another_account_cannot_accept_an_invitation_to_someone_else(cast, role):
    # Issue 28, M4: charlie holds erin's link (forwarded, or seen over a shoulder).
    new = invite(cast, role=role)

    with pytest.raises(NotAllowed) as refused:
        services.invitation_accept(key=new.key, user=cast.charlie)

    assert "erin@example.org" in refused.value.message
    assert role_of(cast.team, cast.charlie) is None
    assert Invitation.objects.get(pk=new.invitation.pk).accepted_at is None


def test_an_account_without_an_address_cannot_accept(cast):
    new = invite(cast)

    with pytest.raises(NotAllowed):
        services.invitation_accept(key=new.key, user=make_user("nomail", email=""))

    assert Invitation.objects.get(pk=new.invitation.pk).accepted_at is None


def test_the_account_of_the_address_accepts_in_any_case(cast):
    erin = make_user("erin", email="Erin@Example.ORG")
    new = invite(cast, role=Role.ADMIN)

    services.invitation_accept(key=new.key, user=erin)

    assert role_of(cast.team, erin) == Role.ADMIN


def test_an_admin_changes_a_members_role(cast):
    services.member_role_change(team=cast.team, actor=cast.alice, user=cast.dave, role="reviewer")

    assert role_of(cast.team, cast.dave) == Role.REVIEWER


def test_the_last_admin_cannot_step_down(cast):
    with pytest.raises(InvalidInput) as refused:
        services.member_role_change(
            team=cast.team, actor=cast.alice, user=cast.alice, role=Role.EDITOR
        )

    assert "only admin" in refused.value.message
    assert role_of(cast.team, cast.alice) == Role.ADMIN


def test_an_admin_steps_down_once_another_admin_exists(cast):
    services.member_role_change(team=cast.team, actor=cast.alice, user=cast.bob, role=Role.ADMIN)

    services.member_role_change(team=cast.team, actor=cast.alice, user=cast.alice, role="viewer")

    assert role_of(cast.team, cast.alice) == Role.VIEWER


def test_the_last_admin_cannot_be_removed(cast):
    with pytest.raises(InvalidInput) as refused:
        services.member_remove(team=cast.team, actor=cast.alice, user=cast.alice)

    assert "only admin" in refused.value.message
    assert role_of(cast.team, cast.alice) == Role.ADMIN


def test_an_admin_removes_a_member(cast):
    services.member_remove(team=cast.team, actor=cast.alice, user=cast.bob)

    assert role_of(cast.team, cast.bob) is None


def test_a_non_member_cannot_be_changed_or_removed(cast):
    with pytest.raises(InvalidInput):
        services.member_remove(team=cast.team, actor=cast.alice, user=cast.charlie)


def test_an_unknown_role_is_refused(cast):
    with pytest.raises(InvalidInput):
        services.member_role_change(team=cast.team, actor=cast.alice, user=cast.bob, role="owner")


# Invitations


def test_an_invitation_stores_only_the_hash_of_its_key_and_expires_in_two_weeks(cast):
    new = invite(cast)

    stored = Invitation.objects.get(pk=new.invitation.pk)
    assert stored.key_hash == hashlib.sha256(new.key.encode()).hexdigest()
    assert new.key not in str(Invitation.objects.filter(pk=stored.pk).values().get())
    assert timedelta(days=13) < stored.expires_at - timezone.now() <= timedelta(days=14)
    assert stored.invited_by == cast.alice


def test_inviting_the_same_address_again_withdraws_the_first_link(cast):
    first = invite(cast)
    second = invite(cast, email="Erin@example.org")

    with pytest.raises(InvalidInput):
        services.invitation_accept(key=first.key, user=make_user("erin", email="erin@example.org"))
    assert services.invitation_accept(
        key=second.key, user=get_user_model().objects.get(username="erin")
    )


def test_inviting_a_member_is_refused(cast):
    with pytest.raises(InvalidInput) as refused:
        invite(cast, email="bob@example.org")

    assert "email" in refused.value.errors


def test_only_an_admin_invites(cast):
    with pytest.raises(NotAllowed):
        services.invitation_create(
            team=cast.team, actor=cast.carol, email="erin@example.org", role=Role.VIEWER
        )


def test_the_invitation_email_carries_the_link(cast):
    new = invite(cast)

    sent = services.invitation_email_send(
        invitation=new.invitation, accept_url=f"https://ecomap.example/teams/invitations/{new.key}/"
    )

    assert sent
    assert mail.outbox[-1].to == ["erin@example.org"]
    assert "Platform" in mail.outbox[-1].subject
    assert f"/teams/invitations/{new.key}/" in mail.outbox[-1].body


def test_a_signed_in_user_accepts_and_joins_with_the_invited_role(cast):
    erin = make_user("erin", email="erin@example.org")
    new = invite(cast)

    services.invitation_accept(key=new.key, user=erin)

    assert role_of(cast.team, erin) == Role.REVIEWER
    stored = Invitation.objects.get(pk=new.invitation.pk)
    assert stored.accepted_by == erin and stored.accepted_at is not None


def test_accepting_never_takes_a_stronger_role_away(cast):
    erin = make_user("erin", email="erin@example.org")
    new = invite(cast, role=Role.VIEWER)
    services.membership_set(team=cast.team, user=erin, role=Role.REVIEWER)  # joined meanwhile

    services.invitation_accept(key=new.key, user=erin)

    assert role_of(cast.team, erin) == Role.REVIEWER


def test_a_new_person_sets_a_username_and_password_and_joins(cast):
    new = invite(cast)

    erin = services.invitation_accept_new_account(
        key=new.key, username="erin", password="a long passphrase 42"
    )

    assert erin.email == "erin@example.org"
    assert erin.check_password("a long passphrase 42")
    assert role_of(cast.team, erin) == Role.REVIEWER


def test_a_new_account_needs_a_password_the_validators_accept(cast):
    new = invite(cast)

    with pytest.raises(InvalidInput) as refused:
        services.invitation_accept_new_account(key=new.key, username="erin", password="12345678")

    assert refused.value.errors["password1"]
    assert not get_user_model().objects.filter(username="erin").exists()
    assert Invitation.objects.get(pk=new.invitation.pk).accepted_at is None


def test_a_new_account_needs_a_free_username(cast):
    new = invite(cast)

    with pytest.raises(InvalidInput) as refused:
        services.invitation_accept_new_account(
            key=new.key, username="BOB", password="a long passphrase 42"
        )

    assert "username" in refused.value.errors


def test_someone_with_an_account_cannot_make_a_second_one(cast):
    make_user("erin", email="erin@example.org")
    new = invite(cast)

    with pytest.raises(InvalidInput) as refused:
        services.invitation_accept_new_account(
            key=new.key, username="erin2", password="a long passphrase 42"
        )

    assert "sign in first" in refused.value.message


def test_an_expired_key_is_refused(cast):
    new = invite(cast)
    Invitation.objects.filter(pk=new.invitation.pk).update(expires_at=timezone.now())

    with pytest.raises(InvalidInput) as refused:
        services.invitation_accept(key=new.key, user=make_user("erin", email="erin@example.org"))

    assert "expired" in refused.value.message


def test_a_withdrawn_key_is_refused(cast):
    new = invite(cast)
    services.invitation_withdraw(invitation=new.invitation, actor=cast.alice)

    with pytest.raises(InvalidInput) as refused:
        services.invitation_accept_new_account(
            key=new.key, username="erin", password="a long passphrase 42"
        )

    assert "withdrawn" in refused.value.message


def test_a_key_works_once(cast):
    new = invite(cast)
    services.invitation_accept(key=new.key, user=make_user("erin", email="erin@example.org"))

    with pytest.raises(InvalidInput) as refused:
        services.invitation_accept(key=new.key, user=make_user("frank", email="erin@example.org"))

    assert "already been used" in refused.value.message
    assert role_of(cast.team, get_user_model().objects.get(username="frank")) is None


def test_an_unknown_key_is_refused(cast):
    with pytest.raises(InvalidInput):
        services.invitation_accept(key="not-a-key-at-all-0123456789", user=cast.charlie)


def test_only_an_admin_withdraws_an_invitation(cast):
    new = invite(cast)

    with pytest.raises(NotAllowed):
        services.invitation_withdraw(invitation=new.invitation, actor=cast.bob)


# Webhook


def set_webhook(cast, url, secret="s" * 24):
    return services.team_webhook_set(team=cast.team, actor=cast.alice, url=url, secret=secret)


def test_an_https_webhook_is_saved_with_its_secret(cast):
    team = set_webhook(cast, "https://hooks.example.com/ecomap")

    assert team.webhook_url == "https://hooks.example.com/ecomap"
    assert team.webhook_secret == "s" * 24


@pytest.mark.parametrize(
    "url",
    [
        "http://hooks.example.com/ecomap",
        "ftp://hooks.example.com/",
        "javascript:alert(1)",
        "hooks.example.com",
        "https://user:pass@hooks.example.com/",
    ],
)
def test_a_webhook_must_be_https(cast, url):
    with pytest.raises(InvalidInput) as refused:
        set_webhook(cast, url)

    assert "url" in refused.value.errors


@pytest.mark.parametrize("url", ["http://localhost:9000/hook", "http://127.0.0.1:9000/hook"])
def test_plain_http_to_this_machine_is_allowed_in_debug_only(cast, settings, url):
    settings.DEBUG = False
    with pytest.raises(InvalidInput):
        set_webhook(cast, url)

    settings.DEBUG = True
    assert set_webhook(cast, url).webhook_url == url


def test_a_webhook_needs_a_long_enough_secret(cast):
    with pytest.raises(InvalidInput) as no_secret:
        set_webhook(cast, "https://hooks.example.com/", secret="")
    with pytest.raises(InvalidInput) as short:
        set_webhook(cast, "https://hooks.example.com/", secret="short")

    assert "secret" in no_secret.value.errors and "secret" in short.value.errors


def test_an_empty_secret_keeps_the_stored_one_and_no_url_clears_both(cast):
    set_webhook(cast, "https://hooks.example.com/a")

    team = set_webhook(cast, "https://hooks.example.com/b", secret="")
    assert (team.webhook_url, team.webhook_secret) == ("https://hooks.example.com/b", "s" * 24)

    team = set_webhook(cast, "", secret="")
    assert (team.webhook_url, team.webhook_secret) == ("", "")


def test_only_an_admin_sets_the_webhook(cast):
    with pytest.raises(NotAllowed):
        services.team_webhook_set(
            team=cast.team, actor=cast.carol, url="https://hooks.example.com/", secret="s" * 20
        )


def test_a_line_break_in_the_team_name_does_not_break_the_email(cast):
    cast.team.name = "Platform\nBcc: everyone@example.org"
    cast.team.save()
    new = invite(cast)

    assert services.invitation_email_send(invitation=new.invitation, accept_url="https://x/")
    assert mail.outbox[-1].subject == "Join Platform Bcc: everyone@example.org on EcoMap"
    assert mail.outbox[-1].bcc == []
