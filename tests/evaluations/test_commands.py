"""`recommend PROFILE.json --json` and `seed_demo_team`."""

from __future__ import annotations

import json

import pytest
from django.contrib.auth import get_user_model
from django.core.management import CommandError, call_command

from evaluations.models import Evaluation
from evaluations.notifications.models import Notification
from evaluations.teams.choices import Role
from evaluations.teams.models import Membership
from tests.evaluations.factories import MIXED_PROFILE
from tests.factories import make_user

pytestmark = pytest.mark.django_db


@pytest.fixture
def profile_file(tmp_path):
    def write(data) -> str:
        path = tmp_path / "profile.json"
        path.write_text(json.dumps(data) if not isinstance(data, str) else data)
        return str(path)

    return write


def test_recommend_prints_ranked_stacks_as_json(builtin_catalog, profile_file, capsys):
    call_command("recommend", profile_file(MIXED_PROFILE), "--json", limit=3)

    stacks = json.loads(capsys.readouterr().out)["stacks"]
    assert [stack["rank"] for stack in stacks] == [1, 2, 3]
    assert all(stack["report"]["ok"] for stack in stacks)
    assert stacks[0]["shape"] == "C"


def test_recommend_refuses_an_invalid_profile_with_a_clear_message(db, profile_file):
    with pytest.raises(CommandError, match="invalid profile: tenancy: 'many' is not allowed"):
        call_command("recommend", profile_file({"tenancy": "many"}), "--json")


def test_recommend_refuses_a_file_that_is_not_json(db, profile_file):
    with pytest.raises(CommandError, match="is not JSON"):
        call_command("recommend", profile_file("{nope"), "--json")


def test_recommend_refuses_a_missing_file(db):
    with pytest.raises(CommandError, match="cannot read"):
        call_command("recommend", "/no/such/profile.json", "--json")


def test_seed_demo_team_makes_the_user_admin_with_a_sample_evaluation(builtin_catalog):
    user = make_user("demo")

    call_command("seed_demo_team", "demo", verbosity=0)
    call_command("seed_demo_team", "demo", verbosity=0)

    membership = Membership.objects.get(user=user)
    assert membership.team.name == "Platform team"
    assert membership.role == Role.ADMIN
    evaluation = Evaluation.objects.get(team=membership.team, state="draft")
    assert evaluation.profile["workload_types"] == ["training", "online_inference", "interactive"]
    assert evaluation.profile_done and evaluation.units_done and evaluation.candidates_done
    assert evaluation.candidates.count() == 4
    # Teammates wrote and reviewed three more, so the home page and the inbox have something:
    # an approved decision of METHOD's shape B (inference) and one of shape A (training).
    approved = Evaluation.objects.filter(team=membership.team, state="approved")
    assert {e.title for e in approved} == {
        "Inference pool for the search team",
        "Training cluster for the research teams",
    }
    inference = approved.get(title="Inference pool for the search team")
    assert inference.decision.rows == [
        "nvidia-gpu-operator/clusterpolicy",
        "hami/device-plugin",
        "hami/scheduler-extender",
        "kueue/controller",
    ]
    assert {e.reviews.get().reviewer.username for e in approved} == {"li.wei"}
    waiting = Evaluation.objects.get(team=membership.team, state="in_review")
    assert Notification.objects.filter(recipient=user, evaluation=waiting).exists()
    assert not get_user_model().objects.get(username="maria").has_usable_password()


def test_seed_demo_team_needs_an_existing_user(db):
    with pytest.raises(CommandError, match="no user"):
        call_command("seed_demo_team", "ghost")
