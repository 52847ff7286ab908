"""Teams admin: teams are created here (members are managed on /teams/ too); invitations are
read-only."""

from __future__ import annotations

from django.contrib import admin
from django.contrib.auth import get_user_model

from evaluations.approvals.services import approvals_void_for_role
from evaluations.teams.models import Invitation, Membership, Team


class MembershipInline(admin.TabularInline):
    model = Membership
    extra = 1
    autocomplete_fields = ["user"]


@admin.register(Team)
class TeamAdmin(admin.ModelAdmin):
    list_display = ("name", "slug", "created_at")
    search_fields = ("name", "slug")
    prepopulated_fields = {"slug": ("name",)}
    inlines = [MembershipInline]

    def save_formset(self, request, form, formset, change):
        """Members removed or demoted here lose their approvals under review, as on /teams/."""
        if formset.model is not Membership or form.instance.pk is None:
            return super().save_formset(request, form, formset, change)
        team = form.instance
        before = dict(Membership.objects.filter(team=team).values_list("user_id", "role"))
        super().save_formset(request, form, formset, change)
        after = dict(Membership.objects.filter(team=team).values_list("user_id", "role"))
        users = get_user_model().objects.in_bulk(before)
        for user_id, role in before.items():
            if after.get(user_id) != role:
                approvals_void_for_role(
                    team=team, user=users[user_id], actor=request.user, role=after.get(user_id)
                )


@admin.register(Invitation)
class InvitationAdmin(admin.ModelAdmin):
    """Read-only: invitations are made on the team page, which shows the key once; the admin
    never sees the key's hash. Deleting one here works like withdrawing it."""

    list_display = (
        "email",
        "team",
        "role",
        "created_at",
        "expires_at",
        "accepted_at",
        "revoked_at",
    )
    list_filter = ("role", "team")
    search_fields = ("email", "team__name")
    list_select_related = ("team", "invited_by")
    fields = (
        "team",
        "email",
        "role",
        "invited_by",
        "created_at",
        "expires_at",
        "accepted_at",
        "accepted_by",
        "revoked_at",
    )
    readonly_fields = fields

    def has_add_permission(self, request) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False
