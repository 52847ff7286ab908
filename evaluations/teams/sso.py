"""Team memberships from the single sign-on provider's groups (OIDC_GROUP_TEAMS,
"group=team-slug:role, …"). A team named there is managed by it: each sign-in joins the person
with the strongest role their groups grant, or removes them when no group grants one any more
(an approval of theirs under review is voided then, as when a team admin removes them).
Teams not named are left alone."""

from __future__ import annotations

import logging
from dataclasses import dataclass

from django.conf import settings
from django.core.exceptions import ImproperlyConfigured
from django.db import transaction

from evaluations.approvals.services import (
    VOID_REMOVED_BY_SSO,
    approvals_void_for_member,
    approvals_void_for_role,
)
from evaluations.teams.choices import ROLE_RANK, Role
from evaluations.teams.models import Membership, Team

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class TeamGrant:
    team: str
    role: str


def group_mapping(text: str) -> dict[str, list[TeamGrant]]:
    """OIDC_GROUP_TEAMS parsed: "gpu-admins=platform:admin, gpu-devs=platform:editor"; a
    missing role means viewer."""
    mapping: dict[str, list[TeamGrant]] = {}
    for item in filter(None, (part.strip() for part in text.split(","))):
        group, _, target = item.rpartition("=")
        team, _, role = target.partition(":")
        role = role.strip() or Role.VIEWER
        if not group.strip() or not team.strip() or role not in Role.values:
            raise ImproperlyConfigured(f"OIDC_GROUP_TEAMS: cannot read {item!r}")
        mapping.setdefault(group.strip(), []).append(TeamGrant(team.strip(), role))
    return mapping


def granted_roles(groups: list[str], mapping: dict[str, list[TeamGrant]]) -> dict[str, str]:
    """Team slug → the strongest role the person's groups grant in it."""
    roles: dict[str, str] = {}
    for group in groups:
        for grant in mapping.get(group, ()):
            current = roles.get(grant.team)
            if current is None or ROLE_RANK[grant.role] > ROLE_RANK[current]:
                roles[grant.team] = grant.role
    return roles


@transaction.atomic
def teams_sync(*, user, groups: list[str]) -> dict[str, str | None]:
    """Make the memberships of the managed teams match `groups`; returns what changed (team
    slug → new role, or None where the person left)."""
    mapping = group_mapping(settings.OIDC_GROUP_TEAMS)
    managed = {grant.team for grants in mapping.values() for grant in grants}
    if not managed:
        return {}
    wanted = granted_roles(groups, mapping)
    teams = {team.slug: team for team in Team.objects.filter(slug__in=managed)}
    for missing in sorted(managed - set(teams)):
        logger.warning("OIDC_GROUP_TEAMS names the team %r, which does not exist", missing)
    current = dict(
        Membership.objects.filter(user=user, team__slug__in=managed).values_list(
            "team__slug", "role"
        )
    )
    changes: dict[str, str | None] = {}
    for slug, team in teams.items():
        role = wanted.get(slug)
        if role is None and slug in current:
            Membership.objects.filter(user=user, team=team).delete()
            approvals_void_for_member(team=team, user=user, actor=None, reason=VOID_REMOVED_BY_SSO)
            changes[slug] = None
        elif role is not None and current.get(slug) != role:
            Membership.objects.update_or_create(team=team, user=user, defaults={"role": role})
            approvals_void_for_role(team=team, user=user, actor=None, role=role)
            changes[slug] = role
    if changes:
        logger.info("single sign-on: user %s team memberships %s", user.pk, changes)
    return changes


def on_sso_signed_in(sender, *, user, groups: list[str], **kwargs) -> None:
    teams_sync(user=user, groups=groups)
