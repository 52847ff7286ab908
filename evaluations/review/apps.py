"""The review app (issue 44): its models moved out of the evaluations app with their tables."""

from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class ReviewConfig(AppConfig):
    name = "evaluations.review"
    label = "review"
    verbose_name = _("Review")
    default_auto_field = "django.db.models.BigAutoField"
