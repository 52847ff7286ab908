"""Admin inlines shared by the apps: a read-only list of an object's related rows."""

from __future__ import annotations

from django.contrib import admin


class ReadOnlyInline(admin.TabularInline):
    """Shows the rows, adds and changes none: they are written by the services only."""

    extra = 0
    can_delete = False

    def has_add_permission(self, request, obj=None) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False
