"""Twenty editors save one step at the same moment, each on the revision they loaded: one save
lands, the others are told of the conflict, and nothing that answered "saved" is lost."""

from __future__ import annotations

import threading

import pytest
from django.db import connection

from evaluations import services
from evaluations.audit.models import AuditEntry
from evaluations.errors import EditConflict
from evaluations.models import Evaluation
from evaluations.steps.services import evaluation_step_save
from evaluations.teams.choices import Role
from evaluations.teams.services import membership_set, team_create
from tests.factories import make_user

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.mark.skipif(connection.vendor != "postgresql", reason="needs concurrent transactions")
def test_twenty_simultaneous_step_saves_lose_nothing():
    owner = make_user("owner")
    team = team_create(name="Race", slug="race", admin=owner)
    editors = [make_user(f"editor-{n}") for n in range(20)]
    for editor in editors:
        membership_set(team=team, user=editor, role=Role.EDITOR)
    evaluation = services.evaluation_create(actor=owner, team=team, title="Raced")
    loaded = Evaluation.objects.get(pk=evaluation.pk).revision
    barrier = threading.Barrier(20)
    outcomes: list[str] = []

    def save(n: int) -> None:
        try:
            barrier.wait()
            evaluation_step_save(
                evaluation=Evaluation.objects.get(pk=evaluation.pk),
                actor=editors[n],
                step="profile",
                data={"p99_target_ms": 100 + n},
                revision=loaded,
            )
            outcomes.append(f"saved {100 + n}")
        except EditConflict:
            outcomes.append("conflict")
        except Exception as exc:  # anything else would be a 500 for its user
            outcomes.append(f"error {exc!r}")
        finally:
            connection.close()

    threads = [threading.Thread(target=save, args=(n,)) for n in range(20)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)

    saved = [o for o in outcomes if o.startswith("saved")]
    assert len(outcomes) == 20 and not [o for o in outcomes if o.startswith("error")]
    assert len(saved) == 1 and outcomes.count("conflict") == 19
    stored = Evaluation.objects.get(pk=evaluation.pk).profile["p99_target_ms"]
    assert saved == [f"saved {stored:g}"]
    assert AuditEntry.objects.filter(evaluation=evaluation, action="step_saved").count() == 1
