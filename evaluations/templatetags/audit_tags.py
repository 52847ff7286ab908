"""The audit log as people read it: actions, steps, states and changed fields named."""

from __future__ import annotations

from django import template

from evaluations.audit.labels import audit_action_label, audit_field_label
from evaluations.models import State, Step

register = template.Library()


@register.filter
def audit_action(action: str) -> str:
    return audit_action_label(action)


@register.filter
def audit_fields(changes) -> str:
    """The names of the fields an entry changed, joined with commas."""
    return ", ".join(audit_field_label(key) for key in (changes or {}))


@register.filter
def step_label(step: str) -> str:
    return str(Step(step).label) if step in Step.values else step


@register.filter
def state_label(state: str) -> str:
    return str(State(state).label) if state in State.values else state
