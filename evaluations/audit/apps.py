"""The audit app (issue 44): its models moved out of the evaluations app with their tables."""

from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class AuditConfig(AppConfig):
    name = "evaluations.audit"
    label = "audit"
    verbose_name = _("Audit")
    default_auto_field = "django.db.models.BigAutoField"
