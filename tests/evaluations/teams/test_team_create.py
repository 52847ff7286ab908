"""Starting a team in the app: whoever starts it is its first admin; a taken or unusable short
name is refused on the form with the input kept, and nothing is created."""

from __future__ import annotations

import pytest
from django.urls import reverse

from evaluations.errors import InvalidInput
from evaluations.teams import services
from evaluations.teams.choices import Role
from evaluations.teams.models import Membership, Team
from tests.factories import make_user

pytestmark = pytest.mark.django_db


def test_whoever_starts_a_team_is_its_admin(client):
    erin = make_user("erin")
    client.force_login(erin)

    response = client.post(reverse("teams:list"), {"name": "Inference Platform", "slug": ""})

    team = Team.objects.get()
    assert (team.name, team.slug) == ("Inference Platform", "inference-platform")
    assert response.status_code == 302 and response["Location"] == f"/teams/{team.slug}/"
    assert Membership.objects.get(team=team, user=erin).role == Role.ADMIN


def test_a_taken_short_name_is_refused_with_the_input_kept(client):
    services.team_create(name="Platform", slug="platform", admin=make_user("alice"))
    client.force_login(make_user("erin"))

    response = client.post(reverse("teams:list"), {"name": "Platform two", "slug": "Platform"})

    assert response.status_code == 400
    page = response.content.decode()
    assert "exists already" in page
    assert 'value="Platform two"' in page
    assert Team.objects.count() == 1


def test_a_name_without_latin_letters_needs_a_short_name():
    with pytest.raises(InvalidInput) as refused:
        services.team_create(name="推理平台", slug="", admin=make_user("li"))

    assert "slug" in refused.value.errors
    assert not Team.objects.exists()

    team = services.team_create(name="推理平台", slug="inference", admin=make_user("wang"))
    assert team.name == "推理平台"


def test_anonymous_visitors_cannot_start_a_team(client):
    response = client.post(reverse("teams:list"), {"name": "Sneaky"})

    assert response.status_code == 302 and "/accounts/login/" in response["Location"]
    assert not Team.objects.exists()


def test_the_evaluations_page_sends_people_without_a_team_to_the_teams_page(client):
    client.force_login(make_user("newcomer"))

    page = client.get(reverse("evaluations:list")).content.decode()

    assert "in the admin" not in page
    assert "/teams/#new-team" in page
