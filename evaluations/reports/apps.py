"""The reports app (issue 44): its models moved out of the evaluations app with their tables."""

from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class ReportsConfig(AppConfig):
    name = "evaluations.reports"
    label = "reports"
    verbose_name = _("Reports")
    default_auto_field = "django.db.models.BigAutoField"
