"""The accounts app (API tokens, the password-reset e-mail job); users themselves are Django's."""

from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class AccountsConfig(AppConfig):
    name = "ecomap.accounts"
    label = "accounts"
    verbose_name = _("Accounts")
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        # Register the reset e-mail job in every process (web and worker) by name.
        import ecomap.accounts.tasks  # noqa: F401
