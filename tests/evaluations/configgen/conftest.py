"""The demo's team (seed_demo_team), whose evaluations the configuration tests read."""

from __future__ import annotations

import pytest
from django.core.management import call_command

from evaluations.management.commands.seed_demo_team import INFERENCE
from evaluations.models import Evaluation
from tests.factories import make_user


@pytest.fixture
def demo_member(builtin_catalog):
    """The demo team's admin: its approved inference decision and a draft without a decision."""
    user = make_user("demo")
    call_command("seed_demo_team", "demo", verbosity=0)
    return user


@pytest.fixture
def approved(demo_member):
    return Evaluation.objects.get(
        state="approved", team__slug="platform-team", title=INFERENCE["title"]
    )


@pytest.fixture
def undecided(demo_member):
    return Evaluation.objects.get(state="draft", team__slug="platform-team")
