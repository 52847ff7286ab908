"""Team writes: creating a team, members and their roles, invitations, the team's webhook.

Pages and commands change teams only through here; every function takes keyword arguments.
"""

from __future__ import annotations

from django.db import transaction
from django.utils.translation import gettext as _

from evaluations.errors import InvalidInput
from evaluations.models import Membership, Role, Team


@transaction.atomic
def team_create(*, name: str, slug: str, admin) -> Team:
    team = Team.objects.create(name=name, slug=slug)
    Membership.objects.create(team=team, user=admin, role=Role.ADMIN)
    return team


def membership_set(*, team: Team, user, role: str) -> Membership:
    """Make `user` a member with `role` (no actor check: for setup commands and tests)."""
    if role not in Role.values:
        raise InvalidInput(_("Unknown role."), errors={"role": [", ".join(Role.values)]})
    membership, _created = Membership.objects.update_or_create(
        team=team, user=user, defaults={"role": role}
    )
    return membership
