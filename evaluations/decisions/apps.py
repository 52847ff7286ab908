"""The decisions app (issue 44): its models moved out of the evaluations app with their tables."""

from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class DecisionsConfig(AppConfig):
    name = "evaluations.decisions"
    label = "decisions"
    verbose_name = _("Decisions")
    default_auto_field = "django.db.models.BigAutoField"
