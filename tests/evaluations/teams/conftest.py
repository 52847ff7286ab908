"""Personas: the Platform team (alice admin, bob editor, carol reviewer, dave viewer) and
charlie, admin of another team, who sees nothing of Platform."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest

from evaluations.teams import services
from evaluations.teams.choices import Role
from evaluations.teams.models import Team
from tests.factories import make_user


@dataclass
class Cast:
    team: Team
    other: Team
    alice: Any
    bob: Any
    carol: Any
    dave: Any
    charlie: Any


@pytest.fixture
def cast(db) -> Cast:
    alice = make_user("alice", email="alice@example.org")
    team = services.team_create(name="Platform", slug="platform", admin=alice)
    bob = make_user("bob", email="bob@example.org")
    carol = make_user("carol", email="Carol@Example.org")
    dave = make_user("dave", email="dave@example.org")
    services.membership_set(team=team, user=bob, role=Role.EDITOR)
    services.membership_set(team=team, user=carol, role=Role.REVIEWER)
    services.membership_set(team=team, user=dave, role=Role.VIEWER)
    charlie = make_user("charlie", email="charlie@example.org")
    other = services.team_create(name="Research", slug="research", admin=charlie)
    return Cast(team, other, alice, bob, carol, dave, charlie)
