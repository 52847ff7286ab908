"""Audit writes: one entry per change to an evaluation, at its current revision; never edited."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from evaluations.audit.models import AuditEntry

if TYPE_CHECKING:
    from evaluations.models import Evaluation


def audit_write(
    evaluation: Evaluation,
    actor,
    action: str,
    *,
    step: str = "",
    changes: dict[str, Any] | None = None,
    transition: tuple[str, str] | None = None,
) -> AuditEntry:
    state_from, state_to = transition or ("", "")
    return AuditEntry.objects.create(
        evaluation=evaluation,
        actor=actor,
        action=action,
        step=step,
        changes=changes or {},
        state_from=state_from,
        state_to=state_to,
        revision=evaluation.revision,
    )
