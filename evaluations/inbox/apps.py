"""The inbox app (issue 44): each person's home page, inbox and search. It has no tables of its
own: it reads the notifications app's and the evaluations' through their selectors."""

from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class InboxConfig(AppConfig):
    name = "evaluations.inbox"
    label = "inbox"
    verbose_name = _("Inbox")
