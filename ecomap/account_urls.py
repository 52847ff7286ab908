"""Account URLs: the API token page and its two actions, and password reset by e-mail."""

from django.urls import path

from ecomap import account_views

app_name = "account"

urlpatterns = [
    path("token/", account_views.token_view, name="token"),
    path("token/create/", account_views.token_create_view, name="token-create"),
    path("token/revoke/", account_views.token_revoke_view, name="token-revoke"),
    path("password-reset/", account_views.PasswordResetView.as_view(), name="password-reset"),
    path(
        "password-reset/sent/",
        account_views.PasswordResetDoneView.as_view(),
        name="password-reset-done",
    ),
    path(
        "password-reset/<uidb64>/<token>/",
        account_views.PasswordResetConfirmView.as_view(),
        name="password-reset-confirm",
    ),
    path(
        "password-reset/done/",
        account_views.PasswordResetCompleteView.as_view(),
        name="password-reset-complete",
    ),
]
