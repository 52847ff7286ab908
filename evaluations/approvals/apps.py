"""The approvals app (issue 44): its models moved out of the evaluations app with their tables."""

from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class ApprovalsConfig(AppConfig):
    name = "evaluations.approvals"
    label = "approvals"
    verbose_name = _("Approvals")
    default_auto_field = "django.db.models.BigAutoField"
