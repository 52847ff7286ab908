"""The simulations app (issue 44): its models moved out of the evaluations app with their tables."""

from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class SimulationsConfig(AppConfig):
    name = "evaluations.simulations"
    label = "simulations"
    verbose_name = _("Simulations")
    default_auto_field = "django.db.models.BigAutoField"
