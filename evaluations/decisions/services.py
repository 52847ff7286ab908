"""The decision's writes: the chosen stack with its node pools, rationale, risks and acceptance
checks, checked against the catalog and the stack check's input rules."""

from __future__ import annotations

from typing import Any

from django.db import transaction
from django.utils.translation import gettext as _

from catalog.engine.fit import TENANT_SHARING
from catalog.engine.stack import check_stack
from catalog.models import PlacementRow
from catalog.selectors import engine_rows
from evaluations.decisions.models import Decision
from evaluations.errors import InvalidInput
from evaluations.models import Evaluation, State, Step
from evaluations.review.editing import (
    edit_begin,
    edit_commit,
    evaluation_lock,
    revision_check,
    role_require,
)
from evaluations.selectors import placement_rows_by_ref
from evaluations.teams.choices import Role

# A stack splits into a handful of node pools (METHOD shape C has two); bounds keep a decision's
# JSON, its audit entry and its stack check small.
MAX_POOLS = 20
MAX_POOL_NAME = 40


@transaction.atomic
def evaluation_decide(
    *,
    evaluation: Evaluation,
    actor,
    rows: list[str],
    pools: dict[str, list[str]] | None = None,
    rationale: str = "",
    risks: str = "",
    acceptance_checks: str = "",
    revision: int | None = None,
    pool_tenant_sharing: dict[str, str] | None = None,
    pool_node_groups: dict[str, str] | None = None,
) -> Decision:
    """Record the chosen stack; it must exist in the catalog and pass the stack check's input
    rules (each row once, pools naming only rows of the stack)."""
    role_require(evaluation=evaluation, team=evaluation.team, actor=actor, role=Role.EDITOR)
    evaluation = evaluation_lock(evaluation)
    if evaluation.state in (State.IN_REVIEW, State.ARCHIVED):
        edit_begin(evaluation)
    revision_check(evaluation, revision, actor)
    rows = list(dict.fromkeys(ref.strip() for ref in rows if ref.strip()))
    if not rows:
        message = _("Choose at least one row for the stack.")
        raise InvalidInput(message, errors={"rows": [message]})
    known = placement_rows_by_ref(rows)
    unknown = [ref for ref in rows if ref not in known]
    if unknown:
        message = _("Not in the catalog: {rows}").format(rows=", ".join(unknown))
        raise InvalidInput(message, errors={"rows": [message]})
    pools = {
        name.strip(): list(dict.fromkeys(refs))
        for name, refs in (pools or {}).items()
        if name.strip() and refs
    }
    if len(pools) > MAX_POOLS or any(len(name) > MAX_POOL_NAME for name in pools):
        message = _("At most {count} node pools, each named in {length} characters.").format(
            count=MAX_POOLS, length=MAX_POOL_NAME
        )
        raise InvalidInput(message, errors={"pools": [message]})
    sharing = _tenant_sharing(pool_tenant_sharing or {}, pools)
    groups = _node_groups(pool_node_groups or {}, pools, evaluation)
    try:
        check_stack(engine_rows(rows=_rows_queryset(known)), pools or None)
    except ValueError as exc:
        raise InvalidInput(str(exc), errors={"pools": [str(exc)]}) from exc
    values = {
        "rows": rows,
        "pools": pools,
        "pool_tenant_sharing": sharing,
        "pool_node_groups": groups,
        "rationale": rationale.strip(),
        "risks": risks.strip(),
        "acceptance_checks": acceptance_checks.strip(),
    }
    decision = Decision.objects.filter(evaluation=evaluation).first()
    old = {name: getattr(decision, name) for name in values} if decision else {}
    changes = {
        name: {"old": old.get(name), "new": value}
        for name, value in values.items()
        if old.get(name) != value
    }
    if decision is None:
        decision = Decision(evaluation=evaluation)
    if not changes:
        return decision
    for name, value in values.items():
        setattr(decision, name, value)
    decision.decided_by = actor
    decision.save()
    edit_commit(evaluation, actor, step=Step.DECISION, changes=changes, fields=[])
    return decision


def _tenant_sharing(given: dict[str, str], pools: dict[str, list[str]]) -> dict[str, str]:
    """How tenants share each named pool, as the team says; only pools of the stack."""
    if not isinstance(given, dict):
        raise InvalidInput(
            _("Tenant sharing is an object of pool name → one of: {allowed}.").format(
                allowed=", ".join(TENANT_SHARING)
            ),
            errors={"pool_tenant_sharing": [_("Expected an object.")]},
        )
    unknown_pools = sorted(set(given) - set(pools))
    bad = sorted(name for name, value in given.items() if value not in TENANT_SHARING)
    if unknown_pools or bad:
        message = _(
            "Tenant sharing names pools of the stack ({pools}) with one of: {allowed}."
        ).format(pools=", ".join(pools) or "—", allowed=", ".join(TENANT_SHARING))
        raise InvalidInput(message, errors={"pool_tenant_sharing": [message]})
    return {name: given[name] for name in pools if name in given}


def _node_groups(
    given: dict[str, str], pools: dict[str, list[str]], evaluation: Evaluation
) -> dict[str, str]:
    """Where each named pool runs: a node group of step 1, only for pools of the stack."""
    if not isinstance(given, dict):
        message = _("Node groups per pool are an object of pool name → node group.")
        raise InvalidInput(message, errors={"pool_node_groups": [message]})
    try:
        named = [group.name for group in evaluation.engine_profile().node_groups]
    except ValueError:
        named = []
    unknown_pools = sorted(set(given) - set(pools))
    bad = sorted(name for name, group in given.items() if group not in named)
    if unknown_pools or bad:
        message = _(
            "Node groups per pool name pools of the stack ({pools}) with a node group of step 1 "
            "({groups})."
        ).format(pools=", ".join(pools) or "—", groups=", ".join(named) or "—")
        raise InvalidInput(message, errors={"pool_node_groups": [message]})
    return {name: given[name] for name in pools if name in given}


def _rows_queryset(known: dict[str, Any]):
    return PlacementRow.objects.filter(pk__in=[row.pk for row in known.values()])
