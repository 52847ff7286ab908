"""Two admins demote each other at the same moment: one change lands, the team keeps an admin."""

from __future__ import annotations

import threading

import pytest
from django.db import connection

from evaluations.errors import EvaluationError
from evaluations.teams import services
from evaluations.teams.choices import Role
from evaluations.teams.models import Membership
from tests.factories import make_user

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.mark.skipif(connection.vendor != "postgresql", reason="needs concurrent transactions")
@pytest.mark.parametrize("change", ["demote", "remove"])
def test_two_admins_stepping_each_other_down_leave_one_admin(change):
    alice, bob = make_user("alice"), make_user("bob")
    team = services.team_create(name="Race", slug="race", admin=alice)
    services.membership_set(team=team, user=bob, role=Role.ADMIN)
    barrier = threading.Barrier(2)
    outcomes: list[str] = []

    def step_down(actor, other) -> None:
        try:
            barrier.wait()
            if change == "demote":
                services.member_role_change(team=team, actor=actor, user=other, role=Role.VIEWER)
            else:
                services.member_remove(team=team, actor=actor, user=other)
            outcomes.append("done")
        except EvaluationError:
            outcomes.append("refused")
        except Exception as exc:  # anything else would be a 500 for its user
            outcomes.append(f"error {exc!r}")
        finally:
            connection.close()

    threads = [
        threading.Thread(target=step_down, args=(alice, bob)),
        threading.Thread(target=step_down, args=(bob, alice)),
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)

    assert sorted(outcomes) == ["done", "refused"]
    assert Membership.objects.filter(team=team, role=Role.ADMIN).count() == 1
