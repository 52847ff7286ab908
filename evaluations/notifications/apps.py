"""The notifications app (issue 44): who is told about a review event, in the inbox, by e-mail
and by the team's webhook."""

from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class NotificationsConfig(AppConfig):
    name = "evaluations.notifications"
    label = "notifications"
    verbose_name = _("Notifications")
    default_auto_field = "django.db.models.BigAutoField"
