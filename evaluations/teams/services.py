"""Team writes: creating a team, members and their roles, invitations, the team's webhook.

Pages and commands change teams only through here; every function takes keyword arguments.
Changes by a member check that the actor is a team admin (NotAllowed otherwise) and never leave
a team without an admin. An invitation's key is shown once and stored only as a SHA-256 hash.

Nobody is added to a team without their consent: an admin invites an e-mail address (whether an
account has it or not, the admin is told the same), and the invitation joins only the account of
that address — accepted while signed in as it, or by setting up the account for that address.
"""

from __future__ import annotations

import ipaddress
import logging
import secrets
from dataclasses import dataclass
from datetime import timedelta
from smtplib import SMTPException
from urllib.parse import urlsplit

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.password_validation import validate_password
from django.core.exceptions import ValidationError
from django.core.mail import send_mail
from django.core.validators import URLValidator
from django.db import IntegrityError, transaction
from django.template.loader import render_to_string
from django.utils import timezone
from django.utils.text import slugify
from django.utils.translation import gettext as _

from ecomap.accounts.models import key_hash
from evaluations.approvals.services import approvals_void_for_role
from evaluations.errors import InvalidInput, NotAllowed
from evaluations.notifications.formats import FORMATS
from evaluations.notifications.webhooks import internal_address
from evaluations.review.editing import role_require
from evaluations.teams.choices import Role
from evaluations.teams.models import Invitation, Membership, Team
from evaluations.teams.selectors import invitation_for_account, invitation_problem

logger = logging.getLogger(__name__)

# Long enough for someone to find the e-mail after a holiday, short enough that a forwarded
# link does not stay a way into the team for good.
INVITATION_DAYS = 14
# A webhook secret signs every delivery (HMAC-SHA256): shorter ones are guessable offline.
WEBHOOK_SECRET_MIN = 16
LOCAL_HOSTS = frozenset({"localhost", "127.0.0.1", "::1"})


@dataclass(frozen=True)
class NewInvitation:
    """An invitation just made: the key for its link (shown once) and its stored record."""

    key: str
    invitation: Invitation


def _role_check(role: str) -> None:
    if role not in Role.values:
        raise InvalidInput(_("Unknown role."), errors={"role": [", ".join(Role.values)]})


def _admin_require(*, team: Team, actor) -> None:
    role_require(evaluation=None, team=team, actor=actor, role=Role.ADMIN)


# ---------------------------------------------------------------------------------------------
# Teams and members


@transaction.atomic
def team_create(*, name: str, slug: str, admin) -> Team:
    """A new team with `admin` as its first admin; a taken name or slug is refused."""
    name = name.strip()
    slug = slugify(slug.strip() or name)[:80]
    if not name:
        message = _("Give the team a name.")
        raise InvalidInput(message, errors={"name": [message]})
    if not slug:
        message = _("Give the team a short name of letters, digits and hyphens.")
        raise InvalidInput(message, errors={"slug": [message]})
    if Team.objects.filter(slug=slug).exists():
        message = _("A team with the short name “%(slug)s” exists already.") % {"slug": slug}
        raise InvalidInput(message, errors={"slug": [message]})
    try:
        with transaction.atomic():
            team = Team.objects.create(name=name[:120], slug=slug)
            Membership.objects.create(team=team, user=admin, role=Role.ADMIN)
    except IntegrityError as exc:  # created by someone else between the check and the insert
        message = _("A team with the short name “%(slug)s” exists already.") % {"slug": slug}
        raise InvalidInput(message, errors={"slug": [message]}) from exc
    logger.info("team %s created by user %s", team.slug, admin.pk)
    return team


@transaction.atomic
def membership_set(*, team: Team, user, role: str) -> Membership:
    """Make `user` a member with `role` (no actor check: for setup commands and tests); a role
    that cannot approve voids their approvals under review, as on the team page."""
    _role_check(role)
    membership, _created = Membership.objects.update_or_create(
        team=team, user=user, defaults={"role": role}
    )
    approvals_void_for_role(team=team, user=user, actor=None, role=role)
    return membership


def _locked_membership(*, team: Team, user) -> Membership:
    """The member's row and the team's admin rows, locked so two admins never both step down."""
    admins = Membership.objects.select_for_update().filter(team=team, role=Role.ADMIN)
    list(admins.order_by("pk"))
    membership = Membership.objects.select_for_update().filter(team=team, user=user).first()
    if membership is None:
        raise InvalidInput(_("This person is not a member of the team."))
    return membership


def _last_admin_check(membership: Membership, message: str) -> None:
    if membership.role != Role.ADMIN:
        return
    others = Membership.objects.filter(team_id=membership.team_id, role=Role.ADMIN).exclude(
        pk=membership.pk
    )
    if not others.exists():
        raise InvalidInput(message, errors={"role": [message]})


@transaction.atomic
def member_role_change(*, team: Team, actor, user, role: str) -> Membership:
    _role_check(role)
    membership = _locked_membership(team=team, user=user)
    _admin_require(team=team, actor=actor)  # after the lock: the actor may just have stepped down
    if membership.role == role:
        return membership
    if role != Role.ADMIN:
        _last_admin_check(
            membership,
            _("%(user)s is the team's only admin: make someone else admin first.")
            % {"user": membership.user.get_username()},
        )
    membership.role = role
    membership.save(update_fields=["role"])
    approvals_void_for_role(team=team, user=user, actor=actor, role=role)
    logger.info("team %s: %s made user %s %s", team.slug, actor.pk, user.pk, role)
    return membership


@transaction.atomic
def member_remove(*, team: Team, actor, user) -> None:
    membership = _locked_membership(team=team, user=user)
    _admin_require(team=team, actor=actor)
    _last_admin_check(
        membership,
        _("%(user)s is the team's only admin and cannot be removed: make someone else admin first.")
        % {"user": membership.user.get_username()},
    )
    membership.delete()
    approvals_void_for_role(team=team, user=user, actor=actor, role=None)
    logger.info("team %s: %s removed user %s", team.slug, actor.pk, user.pk)


# ---------------------------------------------------------------------------------------------
# Invitations


@transaction.atomic
def invitation_create(*, team: Team, actor, email: str, role: str) -> NewInvitation:
    """A new invitation with its key; an open one to the same address is withdrawn (re-sent)."""
    _admin_require(team=team, actor=actor)
    _role_check(role)
    email = (email or "").strip()
    if not email or "@" not in email:
        raise InvalidInput(
            _("An invitation needs an e-mail address."),
            errors={"email": [_("Enter a valid e-mail address.")]},
        )
    if Membership.objects.filter(team=team, user__email__iexact=email).exists():
        raise InvalidInput(
            _("Someone with this e-mail address is already a member."),
            errors={"email": [_("Someone with this e-mail address is already a member.")]},
        )
    now = timezone.now()
    Invitation.objects.filter(
        team=team, email__iexact=email, accepted_at__isnull=True, revoked_at__isnull=True
    ).update(revoked_at=now)
    key = secrets.token_urlsafe(32)
    invitation = Invitation.objects.create(
        team=team,
        email=email,
        role=role,
        key_hash=key_hash(key),
        invited_by=actor,
        expires_at=now + timedelta(days=INVITATION_DAYS),
    )
    logger.info("team %s: %s invited %s as %s", team.slug, actor.pk, invitation.pk, role)
    return NewInvitation(key=key, invitation=invitation)


def invitation_email_send(*, invitation: Invitation, accept_url: str) -> bool:
    """E-mail the invitation link; False when the mail server refused (the page shows the link)."""
    context = {
        "team": invitation.team,
        "role": invitation.get_role_display(),
        "inviter": invitation.invited_by.get_username() if invitation.invited_by else "",
        "accept_url": accept_url,
        "expires_at": invitation.expires_at,
    }
    # A line break in a team name would make the subject an invalid header (BadHeaderError).
    subject = _("Join %(team)s on EcoMap") % {"team": " ".join(invitation.team.name.split())}
    body = render_to_string("teams/invitation_email.txt", context)
    try:
        send_mail(subject, body, None, [invitation.email])
    except (SMTPException, OSError):
        logger.warning("invitation %s: the e-mail could not be sent", invitation.pk, exc_info=True)
        return False
    return True


@transaction.atomic
def invitation_withdraw(*, invitation: Invitation, actor) -> Invitation:
    _admin_require(team=invitation.team, actor=actor)
    updated = Invitation.objects.filter(
        pk=invitation.pk, accepted_at__isnull=True, revoked_at__isnull=True
    ).update(revoked_at=timezone.now())
    if not updated:
        raise InvalidInput(_("This invitation was already accepted or withdrawn."))
    invitation.refresh_from_db()
    logger.info("team %s: %s withdrew invitation %s", invitation.team.slug, actor.pk, invitation.pk)
    return invitation


def _usable_invitation(key: str) -> Invitation:
    """The invitation of `key`, locked; InvalidInput saying why when it cannot be used."""
    invitation = (
        Invitation.objects.select_for_update()
        .select_related("team")
        .filter(key_hash=key_hash(key or ""))
        .first()
    )
    problem = invitation_problem(invitation)
    if problem is not None:
        raise InvalidInput(problem.message)
    return invitation


def _accept(invitation: Invitation, user) -> Membership:
    membership = Membership.objects.filter(team=invitation.team, user=user).first()
    if membership is None:
        membership = Membership.objects.create(
            team=invitation.team, user=user, role=invitation.role
        )
    elif not membership.can(invitation.role):
        # An invitation never takes a role away from someone who is already a member.
        membership.role = invitation.role
        membership.save(update_fields=["role"])
    invitation.accepted_at = timezone.now()
    invitation.accepted_by = user
    invitation.save(update_fields=["accepted_at", "accepted_by"])
    logger.info(
        "team %s: user %s accepted invitation %s", invitation.team.slug, user.pk, invitation.pk
    )
    return membership


@transaction.atomic
def invitation_accept(*, key: str, user) -> Membership:
    """The signed-in `user` joins the team with the invitation's role, if the invitation was
    sent to their account's e-mail address (whoever else holds the link cannot use it)."""
    invitation = _usable_invitation(key)
    if not invitation_for_account(invitation, user):
        raise NotAllowed(
            _(
                "This invitation was sent to %(email)s: sign in with the account of that "
                "address to accept it."
            )
            % {"email": invitation.email}
        )
    return _accept(invitation, user)


@transaction.atomic
def invitation_accept_new_account(*, key: str, username: str, password: str):
    """Create an account for the invited address, with the password's validators, and join."""
    invitation = _usable_invitation(key)
    users = get_user_model().objects
    if users.filter(email__iexact=invitation.email).exists():
        raise InvalidInput(
            _(
                "An account with this e-mail address exists already: "
                "sign in first, then open the link again."
            )
        )
    username = (username or "").strip()
    user = get_user_model()(username=username, email=invitation.email)
    try:
        user.clean_fields(exclude=["password"])
    except ValidationError as exc:
        raise InvalidInput(_("Choose another username."), errors=exc.message_dict) from exc
    if users.filter(username__iexact=username).exists():
        raise InvalidInput(
            _("This username is taken."), errors={"username": [_("This username is taken.")]}
        )
    try:
        validate_password(password, user=user)
    except ValidationError as exc:
        raise InvalidInput(
            _("Choose another password."), errors={"password1": exc.messages}
        ) from exc
    user.set_password(password)
    user.save()
    _accept(invitation, user)
    return user


# ---------------------------------------------------------------------------------------------
# Webhook


def _local_http_allowed() -> bool:
    # Plain http to this machine is for trying a webhook receiver out on a developer's laptop.
    return getattr(settings, "TEAM_WEBHOOK_ALLOW_LOCAL_HTTP", settings.DEBUG)


def webhook_url_problem(url: str) -> str | None:
    """Why `url` cannot be a team's webhook, or None: https only (http to localhost in DEBUG)."""
    try:
        URLValidator(schemes=["http", "https"])(url)
    except ValidationError:
        return _("Enter a full URL, e.g. https://hooks.example.com/ecomap.")
    parts = urlsplit(url)
    if parts.username or parts.password:
        return _("Put no user name or password in the URL; the secret signs each delivery.")
    host = (parts.hostname or "").lower()
    if _is_internal_literal(host) and not _private_allowed():
        return _(
            "Use the receiver's public address: deliveries never go to internal addresses "
            "(loopback, private, link-local)."
        )
    if parts.scheme == "https":
        return None
    if host in LOCAL_HOSTS or _is_loopback(host):
        if _local_http_allowed():
            return None
        return _("Use https: plain http to this machine is allowed only in development (DEBUG).")
    return _("Use https: deliveries carry review events and must not travel in clear text.")


def _private_allowed() -> bool:
    return getattr(settings, "TEAM_WEBHOOK_ALLOW_PRIVATE", settings.DEBUG)


def _is_internal_literal(host: str) -> bool:
    """An IP address written in the URL that is not public (names are checked when a delivery
    resolves them, and the POST goes to the checked address:
    evaluations.notifications.webhooks.destination_addresses)."""
    try:
        ipaddress.ip_address(host)
    except ValueError:
        return False
    return internal_address(host)


def _is_loopback(host: str) -> bool:
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


@transaction.atomic
def team_webhook_set(
    *, team: Team, actor, url: str, secret: str = "", format: str | None = None
) -> Team:
    """Set or clear the team's webhook. An empty secret keeps the stored one; no URL clears both.
    `format` is the body's shape (generic, slack, feishu); None keeps the stored one."""
    _admin_require(team=team, actor=actor)
    url = (url or "").strip()
    secret = (secret or "").strip()
    team = Team.objects.select_for_update().get(pk=team.pk)
    if not url:
        team.webhook_url = ""
        team.webhook_secret = ""
        team.save(update_fields=["webhook_url", "webhook_secret"])
        logger.info("team %s: %s removed the webhook", team.slug, actor.pk)
        return team
    errors: dict[str, list[str]] = {}
    problem = webhook_url_problem(url)
    if problem:
        errors["url"] = [problem]
    if len(url) > Team._meta.get_field("webhook_url").max_length:
        errors["url"] = [_("The URL is too long (500 characters at most).")]
    if secret and not WEBHOOK_SECRET_MIN <= len(secret) <= 128:
        errors["secret"] = [
            _("Use between %(min)d and 128 characters.") % {"min": WEBHOOK_SECRET_MIN}
        ]
    elif not secret and not team.webhook_secret:
        errors["secret"] = [_("A webhook needs a secret to sign its deliveries.")]
    if format is not None and format not in FORMATS:
        errors["format"] = [
            _("Unknown format; allowed: %(formats)s") % {"formats": ", ".join(FORMATS)}
        ]
    if errors:
        raise InvalidInput(_("The webhook was not saved."), errors=errors)
    team.webhook_url = url
    if secret:
        team.webhook_secret = secret
    if format is not None:
        team.webhook_format = format
    team.save(update_fields=["webhook_url", "webhook_secret", "webhook_format"])
    logger.info("team %s: %s set the webhook", team.slug, actor.pk)
    return team
