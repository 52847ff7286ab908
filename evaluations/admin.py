"""Evaluations admin: evaluations are read-only, with their reviews and audit log (the teams
app's admin has teams and invitations).

Evaluation content changes only through the services (the pages and the API), so every change
has its audit entry and passes the workflow; the admin shows it for support and audit.
"""

from __future__ import annotations

from django.contrib import admin

from evaluations.audit.admin import AuditInline
from evaluations.models import Evaluation
from evaluations.review.admin import ReviewInline


@admin.register(Evaluation)
class EvaluationAdmin(admin.ModelAdmin):
    list_display = ("title", "team", "state", "revision", "created_by", "updated_at")
    list_filter = ("state", "team")
    search_fields = ("title",)
    list_select_related = ("team", "created_by")
    inlines = [ReviewInline, AuditInline]

    def has_add_permission(self, request) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        # Viewing is allowed through has_view_permission; changes go through the services.
        return False
