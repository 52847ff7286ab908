"""Team pages (/teams/): the list, a team's page and its admin actions, the invitation link."""

from django.urls import path, re_path

from evaluations.approvals import views as approval_views
from evaluations.notifications import views as webhook_views
from evaluations.teams import views

app_name = "teams"

urlpatterns = [
    path("", views.team_list_view, name="list"),
    # Before the team routes: a key is longer than any of their second segments.
    re_path(
        r"^invitations/(?P<key>[A-Za-z0-9_-]{20,100})/$",
        views.invitation_accept_view,
        name="accept",
    ),
    path("<slug:slug>/", views.team_detail_view, name="detail"),
    path("<slug:slug>/members/<int:user_id>/role/", views.member_role_view, name="member-role"),
    path(
        "<slug:slug>/members/<int:user_id>/remove/", views.member_remove_view, name="member-remove"
    ),
    path("<slug:slug>/invitations/", views.invitation_create_view, name="invite"),
    path(
        "<slug:slug>/invitations/<int:pk>/withdraw/",
        views.invitation_withdraw_view,
        name="invitation-withdraw",
    ),
    path("<slug:slug>/webhook/", views.webhook_view, name="webhook"),
    path("<slug:slug>/webhook/log/", webhook_views.webhook_log_view, name="webhook-log"),
    path("<slug:slug>/webhook/test/", webhook_views.webhook_test_view, name="webhook-test"),
    path(
        "<slug:slug>/webhook/log/<int:delivery_id>/resend/",
        webhook_views.webhook_resend_view,
        name="webhook-resend",
    ),
    path(
        "<slug:slug>/approval-policy/",
        approval_views.approval_policy_view,
        name="approval-policy",
    ),
]
