"""The accounts app (API tokens); users themselves are Django's."""

from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class AccountsConfig(AppConfig):
    name = "ecomap.accounts"
    label = "accounts"
    verbose_name = _("Accounts")
    default_auto_field = "django.db.models.BigAutoField"
