"""The sharing app (issue 44): its models moved out of the evaluations app with their tables."""

from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class SharingConfig(AppConfig):
    name = "evaluations.sharing"
    label = "sharing"
    verbose_name = _("Sharing")
    default_auto_field = "django.db.models.BigAutoField"
