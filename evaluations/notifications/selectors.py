"""Notification reads: a person's inbox, and their unread count (the nav's Inbox badge)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from django.db import transaction
from django.db.models import QuerySet

from ecomap.outage import cache_add_quietly, cache_delete_quietly, cache_get_or
from evaluations.notifications.models import Notification

# The nav's Inbox badge is on every page: the count is cached per person, and every write that
# changes it (a new notification, one or all marked read) forgets it (unread_count_forget).
UNREAD_SECONDS = 60


def _unread_key(user_id: int) -> str:
    return f"inbox:unread:v1:{user_id}"


def unread_count(*, user) -> int:
    key = _unread_key(user.pk)
    count = cache_get_or(key)
    if count is None:
        count = Notification.objects.filter(recipient=user, read_at__isnull=True).count()
        cache_add_quietly(key, count, UNREAD_SECONDS)
    return count


def unread_count_forget(user_ids: Iterable[int]) -> None:
    """Now, for the rest of the writer's transaction, and after commit, for readers that raced."""
    keys = [_unread_key(user_id) for user_id in user_ids]
    if keys:
        cache_delete_quietly(*keys)
        transaction.on_commit(lambda: cache_delete_quietly(*keys))


def forget_unread_of(sender, instance: Notification, **kwargs: Any) -> None:
    unread_count_forget([instance.recipient_id])


def notifications_for_user(*, user) -> QuerySet[Notification]:
    """The user's inbox, newest first, with what each line shows."""
    return Notification.objects.filter(recipient=user).select_related(
        "evaluation", "evaluation__team", "actor"
    )
