"""Approvals follow the team (issue 41, M1): an approval counts only while its reviewer holds an
approving role (reviewer or admin) when the count is taken. Removing or demoting a reviewer voids
their approval with an audit entry naming it, the person and why; being added back does not bring
it back (they approve again). Every way of changing a membership does this: the team page's
services, the setup helper, single sign-on's group sync and the site admin."""

from __future__ import annotations

import pytest
from django.test import Client
from django.urls import reverse
from rest_framework.test import APIClient

from evaluations.approvals.services import approval_policy_set
from evaluations.audit.models import AuditEntry
from evaluations.errors import InvalidInput
from evaluations.models import Evaluation, State
from evaluations.review.models import Review
from evaluations.review.services import evaluation_review
from evaluations.teams.choices import Role
from evaluations.teams.models import Membership
from evaluations.teams.services import member_remove, member_role_change, membership_set
from evaluations.teams.sso import teams_sync
from tests.evaluations.factories import make_cast, small_catalog, submitted
from tests.factories import make_user

pytestmark = pytest.mark.django_db


@pytest.fixture
def cast():
    small_catalog()
    cast = make_cast()
    cast.eve = make_user("eve-reviewer", email="eve@example.org")
    membership_set(team=cast.team, user=cast.eve, role=Role.REVIEWER)
    approval_policy_set(team=cast.team, actor=cast.alice, required_approvals=2, rules=[])
    return cast


def _approve(evaluation, user) -> Evaluation:
    evaluation_review(evaluation=evaluation, actor=user, verdict="approve")
    return Evaluation.objects.get(pk=evaluation.pk)


def _voided(evaluation) -> AuditEntry:
    return AuditEntry.objects.get(evaluation=evaluation, action="approval_voided")


def test_an_approval_of_a_reviewer_removed_from_the_team_no_longer_counts(cast):
    evaluation = _approve(submitted(cast), cast.carol)
    approval = Review.objects.get(evaluation=evaluation, reviewer=cast.carol)

    member_remove(team=cast.team, actor=cast.alice, user=cast.carol)
    evaluation = _approve(evaluation, cast.eve)

    assert evaluation.state == State.IN_REVIEW  # one approval that counts out of two
    entry = _voided(evaluation)
    assert entry.actor == cast.alice
    assert entry.changes == {
        "reviewer": "carol-reviewer",
        "approval": {"id": approval.pk, "revision": evaluation.revision},
        "reason": "removed from the team",
        "approvals": "0/2",
    }
    approval.refresh_from_db()
    assert approval.voided_at is not None
    assert approval.void_reason == "removed from the team"


@pytest.mark.parametrize("role", [Role.VIEWER, Role.EDITOR])
def test_an_approval_of_a_reviewer_demoted_below_reviewer_no_longer_counts(cast, role):
    evaluation = _approve(submitted(cast), cast.carol)

    member_role_change(team=cast.team, actor=cast.alice, user=cast.carol, role=role)
    evaluation = _approve(evaluation, cast.eve)

    assert evaluation.state == State.IN_REVIEW
    assert _voided(evaluation).changes["reason"] == f"role changed to {role}"


def test_a_reviewer_made_admin_keeps_their_approval(cast):
    evaluation = _approve(submitted(cast), cast.carol)

    member_role_change(team=cast.team, actor=cast.alice, user=cast.carol, role=Role.ADMIN)

    assert _approve(evaluation, cast.eve).state == State.APPROVED
    assert not AuditEntry.objects.filter(action="approval_voided").exists()


@pytest.mark.parametrize("how", ["removed", "demoted"])
def test_a_reviewer_added_back_approves_again(cast, how):
    """Decided: a voided approval stays voided; back in the team, the reviewer approves again
    (the revision they approved is the one under review, so nothing else changed)."""
    evaluation = _approve(submitted(cast), cast.carol)
    if how == "removed":
        member_remove(team=cast.team, actor=cast.alice, user=cast.carol)
    else:
        member_role_change(team=cast.team, actor=cast.alice, user=cast.carol, role=Role.VIEWER)
    membership_set(team=cast.team, user=cast.carol, role=Role.REVIEWER)

    evaluation = _approve(evaluation, cast.eve)
    assert evaluation.state == State.IN_REVIEW  # carol's old approval did not come back

    assert _approve(evaluation, cast.carol).state == State.APPROVED


def test_the_setup_helper_voids_like_the_team_page(cast):
    evaluation = _approve(submitted(cast), cast.carol)

    membership_set(team=cast.team, user=cast.carol, role=Role.VIEWER)
    membership_set(team=cast.team, user=cast.carol, role=Role.REVIEWER)

    assert _approve(evaluation, cast.eve).state == State.IN_REVIEW
    assert _voided(evaluation).actor is None  # no admin did it


def test_a_membership_deleted_behind_the_services_back_stops_counting_at_once(cast):
    """The count itself asks for the role now: a row deleted outside the services (a database
    console) cannot leave an approval counting."""
    evaluation = _approve(submitted(cast), cast.carol)

    Membership.objects.filter(team=cast.team, user=cast.carol).delete()

    assert _approve(evaluation, cast.eve).state == State.IN_REVIEW


def test_leaving_the_group_at_single_sign_on_voids_the_approval(cast, settings):
    settings.OIDC_GROUP_TEAMS = "gpu-reviewers=platform:reviewer"
    teams_sync(user=cast.carol, groups=["gpu-reviewers"])  # the team is managed by the groups
    evaluation = _approve(submitted(cast), cast.carol)

    teams_sync(user=cast.carol, groups=["everyone"])  # the next sign-in, out of the group

    assert _approve(evaluation, cast.eve).state == State.IN_REVIEW
    entry = _voided(evaluation)
    assert entry.changes["reason"] == "removed from the team (single sign-on groups)"
    assert entry.actor is None


def test_a_site_admin_removing_the_member_in_the_admin_voids_the_approval(cast):
    evaluation = _approve(submitted(cast), cast.carol)
    root = make_user("root", is_staff=True, is_superuser=True)
    client = Client()
    client.force_login(root)
    memberships = list(Membership.objects.filter(team=cast.team).order_by("pk"))
    form = {"name": "Platform", "slug": "platform"}
    form.update(
        {
            "memberships-TOTAL_FORMS": str(len(memberships)),
            "memberships-INITIAL_FORMS": str(len(memberships)),
            "memberships-MIN_NUM_FORMS": "0",
            "memberships-MAX_NUM_FORMS": "1000",
        }
    )
    for index, membership in enumerate(memberships):
        form[f"memberships-{index}-id"] = str(membership.pk)
        form[f"memberships-{index}-team"] = str(cast.team.pk)
        form[f"memberships-{index}-user"] = str(membership.user_id)
        form[f"memberships-{index}-role"] = membership.role
        if membership.user_id == cast.carol.pk:
            form[f"memberships-{index}-DELETE"] = "on"

    response = client.post(reverse("admin:teams_team_change", args=[cast.team.pk]), form)

    assert response.status_code == 302, response.content.decode()[:2000]
    assert not Membership.objects.filter(team=cast.team, user=cast.carol).exists()
    assert _voided(evaluation).actor == root
    membership_set(team=cast.team, user=cast.carol, role=Role.REVIEWER)
    assert _approve(evaluation, cast.eve).state == State.IN_REVIEW


def test_the_voided_reviewer_back_in_the_team_is_not_told_they_approved_already(cast):
    evaluation = _approve(submitted(cast), cast.carol)
    member_role_change(team=cast.team, actor=cast.alice, user=cast.carol, role=Role.VIEWER)
    member_role_change(team=cast.team, actor=cast.alice, user=cast.carol, role=Role.REVIEWER)

    _approve(evaluation, cast.carol)  # no "already approved"

    with pytest.raises(InvalidInput, match="already approved"):
        _approve(evaluation, cast.carol)


def test_the_api_and_the_page_show_only_the_approvals_that_count(cast):
    evaluation = _approve(submitted(cast), cast.carol)
    member_remove(team=cast.team, actor=cast.alice, user=cast.carol)
    api = APIClient()
    api.force_authenticate(cast.bob)
    page = Client()
    page.force_login(cast.bob)

    status = api.get(f"/api/v1/evaluations/{evaluation.pk}/approval/").json()
    detail = api.get(f"/api/v1/evaluations/{evaluation.pk}/").json()
    text = page.get(reverse("evaluations:detail", args=[evaluation.pk])).content.decode()
    adr = api.get(f"/api/v1/evaluations/{evaluation.pk}/adr.md").content.decode()

    assert (status["approvals"], status["approved_by"], status["met"]) == (0, [], False)
    (review,) = detail["reviews"]
    assert review["voided_at"] is not None
    assert review["void_reason"] == "removed from the team"
    assert f"Approvals of revision {evaluation.revision}: 0 of 2" in text
    assert "No longer counts: removed from the team" in text
    assert "carol-reviewer (approve (no longer counts: removed from the team)" in adr
