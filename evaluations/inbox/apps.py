"""The inbox app (issue 44): each person's home page, inbox and search. It has no tables of its
own: it reads the notifications app's and the evaluations'."""

from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class InboxConfig(AppConfig):
    name = "evaluations.inbox"
    label = "inbox"
    verbose_name = _("Inbox")

    def ready(self) -> None:
        from django.db.models.signals import post_delete, post_save

        from evaluations.inbox.selectors import forget_unread_of
        from evaluations.notifications.models import Notification

        # The services forget the cached unread counts they change (bulk writes send no
        # signals); a notification saved or deleted one by one (the admin, a cascade) too.
        post_save.connect(forget_unread_of, sender=Notification, dispatch_uid="inbox-unread")
        post_delete.connect(forget_unread_of, sender=Notification, dispatch_uid="inbox-unread")
