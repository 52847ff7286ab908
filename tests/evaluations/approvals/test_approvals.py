"""Approval policies in the review (issue 32 item 2): a two-approval policy blocks a single
approval; rules such as "one from security"; approvals count for the revision approved; the
audit names who approved which revision; asking a person for a review; API and pages."""

from __future__ import annotations

import pytest
from django.core import mail
from django.test import Client
from django.urls import reverse
from rest_framework.test import APIClient

from evaluations.approvals.services import RuleInput, approval_policy_set, review_request_create
from evaluations.audit.models import AuditEntry
from evaluations.errors import InvalidInput, NotAllowed
from evaluations.models import Evaluation, State
from evaluations.notifications.models import Notification
from evaluations.review.services import evaluation_review, evaluation_submit
from evaluations.steps.services import evaluation_step_save
from evaluations.teams.choices import Role
from evaluations.teams.services import membership_set
from tests.evaluations.factories import make_cast, small_catalog, submitted
from tests.factories import make_user

pytestmark = pytest.mark.django_db


@pytest.fixture
def cast():
    small_catalog()
    cast = make_cast()
    cast.eve = make_user("eve-reviewer", email="eve@example.org")
    cast.sam = make_user("sam-security", email="sam@example.org")
    membership_set(team=cast.team, user=cast.eve, role=Role.REVIEWER)
    membership_set(team=cast.team, user=cast.sam, role=Role.REVIEWER)
    return cast


def _policy(cast, required: int, *rules: RuleInput) -> None:
    approval_policy_set(
        team=cast.team, actor=cast.alice, required_approvals=required, rules=list(rules)
    )


def _approve(evaluation, user) -> Evaluation:
    evaluation_review(evaluation=evaluation, actor=user, verdict="approve")
    return Evaluation.objects.get(pk=evaluation.pk)


def test_without_a_policy_one_approval_approves(cast):
    assert _approve(submitted(cast), cast.carol).state == State.APPROVED


def test_a_two_approval_policy_blocks_a_single_approval(cast):
    _policy(cast, 2)
    evaluation = submitted(cast)

    evaluation = _approve(evaluation, cast.carol)

    assert evaluation.state == State.IN_REVIEW
    entry = AuditEntry.objects.filter(evaluation=evaluation).first()
    assert (entry.action, entry.actor, entry.revision) == (
        "approval_recorded",
        cast.carol,
        evaluation.revision,
    )
    assert entry.changes["approvals"] == "1/2"
    assert evaluation.decision.approved_at is None  # nothing pinned before the policy is met


def test_a_second_reviewer_completes_a_two_approval_policy(cast):
    _policy(cast, 2)
    evaluation = _approve(submitted(cast), cast.carol)

    evaluation = _approve(evaluation, cast.eve)

    assert evaluation.state == State.APPROVED
    approvals = AuditEntry.objects.filter(
        evaluation=evaluation, action__in=["approval_recorded", "approved"]
    ).order_by("id")
    assert [(e.actor.username, e.revision) for e in approvals] == [
        ("carol-reviewer", evaluation.revision),
        ("eve-reviewer", evaluation.revision),
    ]
    assert evaluation.decision.approved_at is not None  # pinned once, at the approval


def test_the_same_reviewer_cannot_approve_twice(cast):
    _policy(cast, 2)
    evaluation = _approve(submitted(cast), cast.carol)

    with pytest.raises(InvalidInput, match="already approved"):
        _approve(evaluation, cast.carol)


def test_one_from_security_is_required_on_top_of_the_count(cast):
    _policy(cast, 2, RuleInput(name="security", reviewers=["sam-security"]))
    evaluation = _approve(_approve(submitted(cast), cast.carol), cast.eve)

    assert evaluation.state == State.IN_REVIEW  # two approvals, none from security

    assert _approve(evaluation, cast.sam).state == State.APPROVED


def test_an_approval_counts_only_for_the_revision_it_approved(cast):
    _policy(cast, 2)
    evaluation = _approve(submitted(cast), cast.carol)
    approved_revision = evaluation.revision
    evaluation_review(
        evaluation=evaluation, actor=cast.eve, verdict="request_changes", comment="P99 target?"
    )
    evaluation = Evaluation.objects.get(pk=evaluation.pk)
    profile = {**evaluation.profile, "p99_target_ms": 150}
    evaluation_step_save(evaluation=evaluation, actor=cast.bob, step="profile", data=profile)
    evaluation = evaluation_submit(
        evaluation=Evaluation.objects.get(pk=evaluation.pk), actor=cast.bob
    )
    assert evaluation.revision > approved_revision

    evaluation = _approve(evaluation, cast.eve)

    assert evaluation.state == State.IN_REVIEW  # carol's approval was of the older revision
    assert _approve(evaluation, cast.carol).state == State.APPROVED


def test_named_reviewers_must_be_able_to_approve(cast):
    with pytest.raises(InvalidInput, match="dave-viewer"):
        _policy(cast, 1, RuleInput(name="ops", reviewers=["dave-viewer"]))


def test_only_a_team_admin_sets_the_policy(cast):
    with pytest.raises(NotAllowed):
        approval_policy_set(team=cast.team, actor=cast.carol, required_approvals=2, rules=[])


def test_asking_a_person_for_a_review_gives_them_an_inbox_item_and_an_email(
    cast, django_capture_on_commit_callbacks
):
    evaluation = submitted(cast)
    mail.outbox.clear()
    Notification.objects.all().delete()

    with django_capture_on_commit_callbacks(execute=True):
        review_request_create(evaluation=evaluation, actor=cast.bob, reviewer=cast.sam)

    (item,) = Notification.objects.all()
    assert (item.recipient, item.event, item.actor) == (cast.sam, "review_requested", cast.bob)
    (message,) = mail.outbox
    assert message.to == ["sam@example.org"]
    assert "bob-editor asks for your review" in message.body
    entry = AuditEntry.objects.filter(evaluation=evaluation, action="review_requested").get()
    assert entry.changes == {"reviewer": "sam-security"}


def test_an_author_cannot_be_asked_to_review(cast):
    evaluation = submitted(cast)
    membership_set(team=cast.team, user=cast.bob, role=Role.REVIEWER)

    with pytest.raises(NotAllowed):
        review_request_create(evaluation=evaluation, actor=cast.carol, reviewer=cast.bob)


def test_a_viewer_cannot_be_asked_to_review(cast):
    with pytest.raises(InvalidInput):
        review_request_create(evaluation=submitted(cast), actor=cast.bob, reviewer=cast.dave)


# ---- API ----------------------------------------------------------------------------------------


def _api(user) -> APIClient:
    client = APIClient()
    client.force_authenticate(user)
    return client


def test_an_admin_sets_the_policy_through_the_api_and_members_read_it(cast):
    body = {
        "required_approvals": 2,
        "rules": [{"name": "security", "min_approvals": 1, "reviewers": ["sam-security"]}],
    }

    put = _api(cast.alice).put("/api/v1/teams/platform/approval-policy/", body, format="json")
    read = _api(cast.dave).get("/api/v1/teams/platform/approval-policy/")

    assert put.status_code == 200, put.content
    assert read.json() == {
        "required_approvals": 2,
        "rules": [
            {"name": "security", "min_approvals": 1, "role": "", "reviewers": ["sam-security"]}
        ],
    }


def test_an_editor_cannot_change_the_policy_and_an_outsider_cannot_see_it(cast):
    body = {"required_approvals": 1}

    assert _api(cast.bob).put("/api/v1/teams/platform/approval-policy/", body).status_code == 403
    assert _api(cast.charlie).get("/api/v1/teams/platform/approval-policy/").status_code == 404


def test_the_api_tells_whether_the_revision_has_its_approvals(cast):
    _policy(cast, 2, RuleInput(name="security", reviewers=["sam-security"]))
    evaluation = _approve(submitted(cast), cast.sam)

    body = _api(cast.bob).get(f"/api/v1/evaluations/{evaluation.pk}/approval/").json()

    assert body == {
        "revision": evaluation.revision,
        "required": 2,
        "approvals": 1,
        "approved_by": ["sam-security"],
        "rules": [{"name": "security", "needed": 1, "approved_by": ["sam-security"], "met": True}],
        "met": False,
    }


def test_a_review_is_requested_through_the_api(cast):
    evaluation = submitted(cast)

    response = _api(cast.bob).post(
        f"/api/v1/evaluations/{evaluation.pk}/review-requests/", {"reviewer": "sam-security"}
    )

    assert response.status_code == 201, response.content
    assert response.json()["reviewer"] == "sam-security"
    assert Notification.objects.filter(recipient=cast.sam, event="review_requested").exists()


# ---- pages --------------------------------------------------------------------------------------


def test_the_review_panel_shows_the_approvals_still_missing(cast):
    _policy(cast, 2, RuleInput(name="security", reviewers=["sam-security"]))
    evaluation = _approve(submitted(cast), cast.carol)
    client = Client()
    client.force_login(cast.bob)

    text = client.get(reverse("evaluations:detail", args=[evaluation.pk])).content.decode()

    assert f"Approvals of revision {evaluation.revision}: 1 of 2" in text
    assert "security: 0 of 1" in text
    assert "Ask for a review from" in text


def test_an_admin_saves_the_policy_on_the_team_page(cast):
    client = Client()
    client.force_login(cast.alice)
    url = reverse("teams:approval-policy", args=["platform"])

    response = client.post(
        url,
        {
            "required_approvals": "2",
            "rules-TOTAL_FORMS": "1",
            "rules-INITIAL_FORMS": "0",
            "rules-0-name": "security",
            "rules-0-min_approvals": "1",
            "rules-0-role": "",
            "rules-0-reviewers": ["sam-security"],
        },
    )

    assert response.status_code == 302
    text = client.get(url).content.decode()
    assert "2 approvals of the same revision are required." in text
    assert "sam-security" in text


def test_a_member_reads_the_policy_but_cannot_post_it(cast):
    client = Client()
    client.force_login(cast.carol)
    url = reverse("teams:approval-policy", args=["platform"])

    assert client.get(url).status_code == 200
    assert client.post(url, {"required_approvals": "5"}).status_code == 403


def test_an_editor_asks_a_reviewer_from_the_review_panel(cast):
    evaluation = submitted(cast)
    client = Client()
    client.force_login(cast.bob)

    response = client.post(
        reverse("evaluations:review-request", args=[evaluation.pk]), {"reviewer": cast.sam.pk}
    )
    outsider = client.post(
        reverse("evaluations:review-request", args=[evaluation.pk]), {"reviewer": cast.charlie.pk}
    )

    assert response.status_code == 302
    assert Notification.objects.filter(recipient=cast.sam, event="review_requested").exists()
    assert outsider.status_code == 404  # not a member of the team
