"""Does a set of approvals meet an approval policy? Plain Python, no Django: the services adapt
the team's policy and the approvals of the current revision in, and the answer out."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field


@dataclass(frozen=True)
class Rule:
    """`min_approvals` of the approvers must be among `members` or hold `role` or stronger."""

    name: str
    min_approvals: int = 1
    members: frozenset[int] = frozenset()
    role: str = ""


@dataclass(frozen=True)
class Approval:
    """One person's approval of the revision in question, with their role in the team now."""

    user_id: int
    username: str
    role: str | None


@dataclass(frozen=True)
class RuleStatus:
    name: str
    needed: int
    by: tuple[str, ...]

    @property
    def met(self) -> bool:
        return len(self.by) >= self.needed


@dataclass(frozen=True)
class PolicyStatus:
    required: int
    approvers: tuple[str, ...]
    rules: tuple[RuleStatus, ...] = field(default_factory=tuple)

    @property
    def count_met(self) -> bool:
        return len(self.approvers) >= self.required

    @property
    def met(self) -> bool:
        return self.count_met and all(rule.met for rule in self.rules)


def _qualifies(rule: Rule, approval: Approval, role_rank: Mapping[str, int]) -> bool:
    if approval.user_id in rule.members:
        return True
    if rule.role and approval.role is not None:
        return role_rank.get(approval.role, -1) >= role_rank.get(rule.role, len(role_rank))
    return False


def policy_status(
    *,
    required: int,
    rules: Sequence[Rule],
    approvals: Sequence[Approval],
    role_rank: Mapping[str, int],
) -> PolicyStatus:
    """Who approved (each person once) and which rules their approvals meet; an approver counts
    toward the total and toward every rule they qualify for."""
    distinct: dict[int, Approval] = {}
    for approval in approvals:
        distinct.setdefault(approval.user_id, approval)
    people = list(distinct.values())
    return PolicyStatus(
        required=max(required, 1),
        approvers=tuple(approval.username for approval in people),
        rules=tuple(
            RuleStatus(
                name=rule.name,
                needed=max(rule.min_approvals, 1),
                by=tuple(a.username for a in people if _qualifies(rule, a, role_rank)),
            )
            for rule in rules
        ),
    )
