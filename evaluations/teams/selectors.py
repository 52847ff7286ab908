"""Team reads: the access helper, a user's teams, a team's members and open invitations, and the
roles and members other rooms ask about."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from django.contrib.auth import get_user_model
from django.db.models import BooleanField, Count, ExpressionWrapper, F, Q, QuerySet
from django.http import Http404
from django.utils import timezone
from django.utils.translation import gettext as _

from ecomap.accounts.models import key_hash
from evaluations.teams.choices import ROLE_RANK, Role
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


# ---------------------------------------------------------------------------------------------
# Roles and members, for the other rooms (they ask here rather than read the memberships)


def role_of(*, team_id: int, user) -> str | None:
    """The user's role in the team, None when not a member."""
    return (
        Membership.objects.filter(team_id=team_id, user=user).values_list("role", flat=True).first()
    )


def membership_lock(*, team_id: int, user) -> None:
    """Lock the user's membership row (SELECT … FOR UPDATE) for the rest of the transaction."""
    Membership.objects.select_for_update().filter(team_id=team_id, user=user).first()


def roles_in(*, team_id: int) -> dict[int, str]:
    """Every member's role in the team, by user id."""
    return dict(Membership.objects.filter(team_id=team_id).values_list("user_id", "role"))


def member_ids(
    *, team_id: int, roles: Iterable[str] = (), among: Iterable[int] | None = None
) -> set[int]:
    """The team's active members (with one of `roles`, if given; of `among`, if given)."""
    members = Membership.objects.filter(team_id=team_id, user__is_active=True)
    if roles:
        members = members.filter(role__in=roles)
    if among is not None:
        members = members.filter(user_id__in=among)
    return set(members.values_list("user_id", flat=True))


def usernames_with_role(*, team_id: int, roles: Iterable[str]) -> dict[str, int]:
    """The members with one of `roles`, user ids by username, in username order."""
    return dict(
        Membership.objects.filter(team_id=team_id, role__in=roles)
        .order_by("user__username")
        .values_list("user__username", "user_id")
    )


def team_ids_of(*, user, roles: Iterable[str] = ()) -> QuerySet:
    """The ids of the user's teams (where they have one of `roles`, if given), as a subquery."""
    memberships = Membership.objects.filter(user=user)
    if roles:
        memberships = memberships.filter(role__in=roles)
    return memberships.values("team_id")


def in_a_team(*, user) -> bool:
    return Membership.objects.filter(user=user).exists()


def teams_for_user(*, user, min_role: str = Role.VIEWER) -> list[Team]:
    roles = [role for role in Role.values if ROLE_RANK[role] >= ROLE_RANK[min_role]]
    return list(Team.objects.filter(memberships__user=user, memberships__role__in=roles))


def team_of_user(*, user, slug: str) -> Team | None:
    """The team with this slug if the user is in it (no role annotation), else None."""
    return Team.objects.filter(slug=slug, pk__in=team_ids_of(user=user)).first()


def teams_by_pk(pks: Iterable[int]) -> QuerySet[Team]:
    return Team.objects.filter(pk__in=list(pks))


def no_teams() -> QuerySet[Team]:
    return Team.objects.none()


def team_by_slug(slug: str) -> Team | None:
    return Team.objects.filter(slug=slug).first()


def teams_and_roles(*, user, slug: str = "", limit: int | None = None) -> list[tuple[Team, str]]:
    """The user's teams with their role in each (only the team `slug`, if given)."""
    memberships = Membership.objects.filter(user=user).select_related("team")
    if slug:
        memberships = memberships.filter(team__slug=slug)
    if limit is not None:
        memberships = memberships[:limit]
    return [(membership.team, membership.role) for membership in memberships]
