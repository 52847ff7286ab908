"""The approval policy's writes (set by a team admin), requests for a person's review, and the
reads that tell whether the evaluation in review has the approvals its team requires."""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from django.contrib.auth import get_user_model
from django.db import transaction
from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop

from evaluations.approvals.models import ApprovalPolicy, ApprovalRule, ReviewRequest
from evaluations.approvals.policy import Approval, PolicyStatus, Rule, policy_status
from evaluations.audit.selectors import evaluation_editors, review_round_started
from evaluations.audit.services import audit_write
from evaluations.errors import InvalidInput, InvalidTransition, NotAllowed
from evaluations.models import Evaluation, State
from evaluations.notifications.choices import Event
from evaluations.notifications.services import evaluation_announce
from evaluations.review.editing import role_require
from evaluations.review.selectors import approvals_of
from evaluations.review.voiding import approval_void
from evaluations.selectors import review_requests_this_round
from evaluations.teams.choices import ROLE_RANK, Role
from evaluations.teams.selectors import role_of, roles_in, usernames_with_role

if TYPE_CHECKING:
    from evaluations.teams.models import Team

logger = logging.getLogger(__name__)

MAX_RULES = 5
# Who may be named in a rule or asked for a review: those who can approve at all.
APPROVING_ROLES = (Role.REVIEWER, Role.ADMIN)


@dataclass(frozen=True)
class RuleInput:
    name: str
    min_approvals: int = 1
    role: str = ""
    reviewers: list[str] = field(default_factory=list)  # usernames


def policy_rules(team: Team) -> tuple[int, list[Rule], list[ApprovalRule]]:
    """The team's required count and rules (engine shape and rows); 1 and none without one."""
    policy = ApprovalPolicy.objects.filter(team=team).first()
    if policy is None:
        return 1, [], []
    rows = list(policy.rules.prefetch_related("members"))
    rules = [
        Rule(
            name=row.name,
            min_approvals=row.min_approvals,
            members=frozenset(member.pk for member in row.members.all()),
            role=row.role,
        )
        for row in rows
    ]
    return policy.required_approvals, rules, rows


@transaction.atomic
def approval_policy_set(
    *, team: Team, actor, required_approvals: int, rules: list[RuleInput]
) -> ApprovalPolicy:
    """Replace the team's policy (team admins). Named reviewers must be the team's reviewers or
    admins: nobody else can approve, so a rule naming them could never be met."""
    role_require(evaluation=None, team=team, actor=actor, role=Role.ADMIN)
    errors: dict[str, list[str]] = {}
    if not 1 <= required_approvals <= 10:
        errors["required_approvals"] = [_("Between 1 and 10 approvals.")]
    if len(rules) > MAX_RULES:
        errors["rules"] = [_("At most %(count)d rules.") % {"count": MAX_RULES}]
    approvers = usernames_with_role(team_id=team.pk, roles=APPROVING_ROLES)
    cleaned: list[tuple[RuleInput, list[int]]] = []
    for index, rule in enumerate(rules):
        key = f"rules[{index}]"
        name = " ".join(rule.name.split())[:60]
        if not name:
            errors.setdefault(key, []).append(_("Name the rule, e.g. “security”."))
        if rule.role and rule.role not in Role.values:
            errors.setdefault(key, []).append(
                _("Unknown role; allowed: %(roles)s") % {"roles": ", ".join(Role.values)}
            )
        unknown = [name for name in rule.reviewers if name not in approvers]
        if unknown:
            errors.setdefault(key, []).append(
                _("Not a reviewer or admin of the team: %(names)s") % {"names": ", ".join(unknown)}
            )
        if not rule.role and not rule.reviewers:
            errors.setdefault(key, []).append(_("Name reviewers or a role for the rule."))
        if not 1 <= rule.min_approvals <= 10:
            errors.setdefault(key, []).append(_("Between 1 and 10 approvals."))
        ids = [approvers[name] for name in rule.reviewers if name in approvers]
        cleaned.append((RuleInput(name, rule.min_approvals, rule.role, rule.reviewers), ids))
    if errors:
        raise InvalidInput(next(iter(errors.values()))[0], errors=errors)
    policy, _created = ApprovalPolicy.objects.update_or_create(
        team=team, defaults={"required_approvals": required_approvals}
    )
    policy.rules.all().delete()
    for rule, ids in cleaned:
        row = ApprovalRule.objects.create(
            policy=policy,
            name=" ".join(rule.name.split())[:60],
            min_approvals=rule.min_approvals,
            role=rule.role,
        )
        row.members.set(ids)
    logger.info(
        "team %s: %s set the approval policy to %s approval(s), %s rule(s)",
        team.slug,
        actor.pk,
        required_approvals,
        len(cleaned),
    )
    return policy


def approval_status(evaluation: Evaluation) -> PolicyStatus:
    """The approvals of the current revision in the current review round, measured against the
    team's policy."""
    required, rules, _rows = policy_rules(evaluation.team)
    roles = roles_in(team_id=evaluation.team_id)
    # Only approvals of people who can approve now: a reviewer removed or demoted since counts
    # no more (their approval is voided too, so it does not come back when they do).
    approvals = [
        Approval(user_id=review.reviewer_id, username=review.reviewer.get_username(),
                 role=roles[review.reviewer_id])
        for review in _counting_approvals(evaluation).select_related("reviewer")
        if roles.get(review.reviewer_id) in APPROVING_ROLES
    ]  # fmt: skip
    return policy_status(required=required, rules=rules, approvals=approvals, role_rank=ROLE_RANK)


def _counting_approvals(evaluation: Evaluation):
    """The approvals of the current revision in the current review round, not voided."""
    return approvals_of(evaluation, since=review_round_started(evaluation))


# Why an approval was voided, in words stored on the review and in the audit entry (translated
# where they are shown).
VOID_REMOVED = gettext_noop("removed from the team")
VOID_REMOVED_BY_SSO = gettext_noop("removed from the team (single sign-on groups)")
VOID_ROLE = {
    Role.VIEWER: gettext_noop("role changed to viewer"),
    Role.EDITOR: gettext_noop("role changed to editor"),
}


def approvals_void_for_member(*, team: Team, user, actor, reason: str) -> int:
    """Void `user`'s approvals that count now in `team`'s evaluations under review, because
    they left the team or lost an approving role (`reason`, one of the VOID_ phrases); each
    voiding is an audit entry naming the approval, the person and why. Called by every service
    that removes or demotes a member, after the change, in its transaction. Approvals of
    evaluations already approved stay: they counted when the count was taken."""
    voided = 0
    evaluations = Evaluation.objects.filter(
        team=team, state=State.IN_REVIEW, reviews__reviewer=user
    ).distinct()
    for evaluation in evaluations:
        for review in _counting_approvals(evaluation).filter(reviewer=user):
            if not approval_void(review.pk, reason=reason):
                continue
            voided += 1
            status = approval_status(evaluation)
            audit_write(
                evaluation,
                actor,
                "approval_voided",
                changes={
                    "reviewer": user.get_username(),
                    "approval": {"id": review.pk, "revision": review.revision},
                    "reason": reason,
                    "approvals": f"{len(status.approvers)}/{status.required}",
                },
            )
    if voided:
        logger.info(
            "team %s: %s approval(s) of user %s voided (%s)", team.slug, voided, user.pk, reason
        )
    return voided


def approvals_void_for_role(*, team: Team, user, actor, role: str | None) -> int:
    """approvals_void_for_member for a membership now at `role` (None: removed); nothing when
    the role still approves."""
    if role in APPROVING_ROLES:
        return 0
    reason = VOID_REMOVED if role is None else VOID_ROLE[role]
    return approvals_void_for_member(team=team, user=user, actor=actor, reason=reason)


def status_in_words(status: PolicyStatus) -> dict[str, Any]:
    """The status as the pages and the API show it."""
    return {
        "required": status.required,
        "approvals": len(status.approvers),
        "approved_by": list(status.approvers),
        "rules": [
            {"name": rule.name, "needed": rule.needed, "approved_by": list(rule.by),
             "met": rule.met}
            for rule in status.rules
        ],
        "met": status.met,
    }  # fmt: skip


@transaction.atomic
def review_request_create(*, evaluation: Evaluation, actor, reviewer) -> ReviewRequest:
    """Ask one person to review the evaluation in review: they get an inbox item and an
    e-mail. Team members may ask; the person must be able to approve it (a reviewer or admin of
    the team who did not write it)."""
    role_require(evaluation=evaluation, team=evaluation.team, actor=actor, role=Role.EDITOR)
    if evaluation.state != State.IN_REVIEW:
        raise InvalidTransition(
            _("A review can be requested only while the evaluation is in review.")
        )
    role = role_of(team_id=evaluation.team_id, user=reviewer)
    if role not in APPROVING_ROLES:
        raise InvalidInput(
            _("%(name)s is not a reviewer or admin of the team.")
            % {"name": reviewer.get_username()},
            errors={"reviewer": [_("Not a reviewer or admin of the team.")]},
        )
    if reviewer.pk in evaluation_editors(evaluation):
        raise NotAllowed(
            _("%(name)s wrote part of this evaluation and cannot review it.")
            % {"name": reviewer.get_username()}
        )
    request = ReviewRequest.objects.create(
        evaluation=evaluation, reviewer=reviewer, requested_by=actor, revision=evaluation.revision
    )
    audit_write(
        evaluation, actor, "review_requested", changes={"reviewer": reviewer.get_username()}
    )
    # The person asked, the authors and the other reviewers asked this round hear of it.
    evaluation_announce(
        evaluation=evaluation, actor=actor, event=Event.REVIEW_REQUESTED, about=reviewer
    )
    return request


def review_requests_for(evaluation: Evaluation) -> list[ReviewRequest]:
    """The review requests of the current round (an earlier round's are not carried over)."""
    return list(
        review_requests_this_round(evaluation)
        .select_related("reviewer", "requested_by")
        .order_by("-created_at", "-id")[:20]
    )


def possible_reviewers(evaluation: Evaluation) -> list:
    """Whom a review can be asked of: the team's reviewers and admins who did not write it."""
    editors = evaluation_editors(evaluation)
    return list(
        get_user_model()
        .objects.filter(
            memberships__team_id=evaluation.team_id,
            memberships__role__in=APPROVING_ROLES,
            is_active=True,
        )
        .exclude(pk__in=editors)
        .order_by("username")
    )
