"""The notifications app (issue 44): who is told about a review event, in the inbox, by e-mail
and by the team's webhook."""

from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class NotificationsConfig(AppConfig):
    name = "evaluations.notifications"
    label = "notifications"
    verbose_name = _("Notifications")
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from django.db.models.signals import post_delete, post_save

        from evaluations.notifications.models import Notification
        from evaluations.notifications.selectors import forget_unread_of

        # The services forget the cached unread counts they change (bulk writes send no
        # signals); a notification saved or deleted one by one (the admin, a cascade) too.
        post_save.connect(forget_unread_of, sender=Notification, dispatch_uid="inbox-unread")
        post_delete.connect(forget_unread_of, sender=Notification, dispatch_uid="inbox-unread")
