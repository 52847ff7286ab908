"""The approval policy engine (plain Python): who approved, which rules their approvals meet."""

from __future__ import annotations

from evaluations.approvals.policy import Approval, Rule, policy_status

RANK = {"viewer": 0, "editor": 1, "reviewer": 2, "admin": 3}
CAROL = Approval(1, "carol", "reviewer")
EVE = Approval(2, "eve", "reviewer")
SAM = Approval(3, "sam", "reviewer")
ALICE = Approval(4, "alice", "admin")


def test_two_required_approvals_are_not_met_by_one():
    status = policy_status(required=2, rules=[], approvals=[CAROL], role_rank=RANK)

    assert not status.met
    assert status.approvers == ("carol",)


def test_the_same_person_approving_twice_counts_once():
    status = policy_status(required=2, rules=[], approvals=[CAROL, CAROL], role_rank=RANK)

    assert not status.met


def test_two_people_meet_a_two_approval_policy():
    assert policy_status(required=2, rules=[], approvals=[CAROL, EVE], role_rank=RANK).met


def test_a_named_reviewer_rule_needs_one_of_the_named_people():
    security = Rule("security", 1, frozenset({SAM.user_id}))

    without = policy_status(required=2, rules=[security], approvals=[CAROL, EVE], role_rank=RANK)
    with_sam = policy_status(required=2, rules=[security], approvals=[CAROL, SAM], role_rank=RANK)

    assert not without.met and without.count_met
    assert without.rules[0].by == ()
    assert with_sam.met
    assert with_sam.rules[0].by == ("sam",)


def test_a_role_rule_is_met_by_that_role_or_a_stronger_one():
    admins = Rule("an admin", 1, role="admin")
    reviewers = Rule("reviewers", 2, role="reviewer")

    status = policy_status(required=1, rules=[admins, reviewers], approvals=[ALICE, CAROL],
                           role_rank=RANK)  # fmt: skip

    assert status.met
    assert status.rules[0].by == ("alice",)
    assert status.rules[1].by == ("alice", "carol")


def test_an_approver_who_left_the_team_meets_no_role_rule():
    gone = Approval(9, "gone", None)

    status = policy_status(required=1, rules=[Rule("admins", 1, role="reviewer")],
                           approvals=[gone], role_rank=RANK)  # fmt: skip

    assert not status.met
