"""OIDC_GROUP_TEAMS: how the provider's groups become team roles (evaluations/teams/sso.py)."""

from __future__ import annotations

import pytest
from django.core.exceptions import ImproperlyConfigured

from evaluations.teams.sso import TeamGrant, granted_roles, group_mapping


def test_the_mapping_reads_group_team_and_role():
    assert group_mapping("gpu-admins=platform:admin, gpu-devs=platform:editor,ml=research") == {
        "gpu-admins": [TeamGrant("platform", "admin")],
        "gpu-devs": [TeamGrant("platform", "editor")],
        "ml": [TeamGrant("research", "viewer")],  # no role: viewer
    }


def test_a_group_name_may_contain_an_equals_sign_and_slashes():
    # Entra ID and Keycloak group names can be paths; the last "=" separates the team.
    assert group_mapping("/org/gpu=ops=platform:reviewer") == {
        "/org/gpu=ops": [TeamGrant("platform", "reviewer")]
    }


@pytest.mark.parametrize("text", ["gpu-admins=platform:owner", "=platform:admin", "gpu="])
def test_an_unreadable_mapping_is_a_configuration_error(text):
    with pytest.raises(ImproperlyConfigured):
        group_mapping(text)


def test_the_strongest_granted_role_per_team_wins():
    mapping = group_mapping("a=platform:viewer, b=platform:reviewer, c=research:editor")

    assert granted_roles(["a", "b", "c", "unmapped"], mapping) == {
        "platform": "reviewer",
        "research": "editor",
    }
