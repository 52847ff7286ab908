"""Audit admin: an evaluation's audit log, shown read-only on its admin page."""

from __future__ import annotations

from ecomap.admin_inlines import ReadOnlyInline
from evaluations.audit.models import AuditEntry


class AuditInline(ReadOnlyInline):
    model = AuditEntry
    fields = ("created_at", "actor", "action", "step", "state_from", "state_to", "changes")
    readonly_fields = fields
