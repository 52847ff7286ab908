"""Inbox writes: a person marks their own notifications read (the notifications service makes
them)."""

from __future__ import annotations

from django.utils import timezone

from evaluations.inbox.selectors import unread_count_forget
from evaluations.notifications.models import Notification


def notification_open(*, user, pk: int) -> Notification | None:
    """The user's notification, marked read if it was not; None when it is not theirs."""
    notification = (
        Notification.objects.filter(pk=pk, recipient=user).select_related("evaluation").first()
    )
    if notification is not None and notification.read_at is None:
        notification.read_at = timezone.now()
        notification.save(update_fields=["read_at"])
        unread_count_forget([user.pk])
    return notification


def notifications_mark_all_read(*, user) -> int:
    """Mark every unread notification of the user read; returns how many were unread."""
    marked = Notification.objects.filter(recipient=user, read_at__isnull=True).update(
        read_at=timezone.now()
    )
    unread_count_forget([user.pk])
    return marked
