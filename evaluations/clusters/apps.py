"""The clusters app (issue 44): its models moved out of the evaluations app with their tables."""

from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class ClustersConfig(AppConfig):
    name = "evaluations.clusters"
    label = "clusters"
    verbose_name = _("Clusters")
    default_auto_field = "django.db.models.BigAutoField"
