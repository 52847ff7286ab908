"""Team reads: the access helper, a user's teams, a team's members and open invitations."""

from __future__ import annotations

from dataclasses import dataclass

from django.contrib.auth import get_user_model
from django.db.models import BooleanField, Count, ExpressionWrapper, F, Q, QuerySet
from django.http import Http404
from django.utils import timezone
from django.utils.translation import gettext as _

from ecomap.accounts.models import key_hash
from evaluations.teams.models import Invitation, Membership, Team


def team_get_for_user(*, user, slug: str) -> Team:
    """The team if the user is a member, with `user_role` set; else Http404 (like a missing one)."""
    if not getattr(user, "is_authenticated", False):
        raise Http404("No such team")
    team = (
        Team.objects.filter(slug=slug, memberships__user=user)
        .annotate(user_role=F("memberships__role"))
        .first()
    )
    if team is None:
        raise Http404("No such team")
    return team


def memberships_for_user(*, user) -> QuerySet[Membership]:
    """The user's memberships with their team and its member count, by team name."""
    return (
        Membership.objects.filter(user=user)
        .select_related("team")
        .annotate(member_count=Count("team__memberships"))
        .order_by("team__name", "team__pk")
    )


def team_members(team: Team) -> QuerySet[Membership]:
    return team.memberships.select_related("user").order_by("user__username")


def invitations_open(team: Team) -> QuerySet[Invitation]:
    """Invitations neither accepted nor withdrawn, newest first, each marked `expired`."""
    return (
        team.invitations.filter(accepted_at__isnull=True, revoked_at__isnull=True)
        .select_related("invited_by")
        .annotate(
            expired=ExpressionWrapper(
                Q(expires_at__lte=timezone.now()), output_field=BooleanField()
            )
        )
    )


def account_exists_for(*, email: str) -> bool:
    return get_user_model().objects.filter(email__iexact=email).exists()


def invitation_for_account(invitation: Invitation, user) -> bool:
    """Whether `user`'s account has the address the invitation was sent to (in any case).
    Account addresses are set by a site admin or by accepting an invitation sent to them
    (there is no self-service change of address), so the address stands for its owner."""
    email = (getattr(user, "email", "") or "").strip()
    return bool(email) and email.casefold() == invitation.email.strip().casefold()


def invitation_for_key(key: str) -> Invitation | None:
    return Invitation.objects.select_related("team").filter(key_hash=key_hash(key or "")).first()


@dataclass(frozen=True)
class InvitationProblem:
    """Why an invitation link cannot be used: a code for pages and tests, a sentence for people."""

    code: str
    message: str


def invitation_problem(invitation: Invitation | None) -> InvitationProblem | None:
    if invitation is None:
        return InvitationProblem(
            "unknown", _("This invitation link is not valid. Check that you copied all of it.")
        )
    if invitation.accepted_at is not None:
        return InvitationProblem("used", _("This invitation has already been used."))
    if invitation.revoked_at is not None:
        return InvitationProblem("withdrawn", _("This invitation was withdrawn by a team admin."))
    if invitation.expires_at <= timezone.now():
        return InvitationProblem("expired", _("This invitation has expired."))
    return None
