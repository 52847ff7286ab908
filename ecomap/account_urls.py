"""Account URLs: the API token page and its two actions."""

from django.urls import path

from ecomap import account_views

app_name = "account"

urlpatterns = [
    path("token/", account_views.token_view, name="token"),
    path("token/create/", account_views.token_create_view, name="token-create"),
    path("token/revoke/", account_views.token_revoke_view, name="token-revoke"),
]
