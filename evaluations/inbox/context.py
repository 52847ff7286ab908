"""Template context for every page: the signed-in user's unread notification count (the nav's
Inbox badge), counted at most once per request and only if a template asks for it."""

from __future__ import annotations

from django.utils.functional import SimpleLazyObject


def inbox(request) -> dict[str, object]:
    user = getattr(request, "user", None)
    if user is None or not user.is_authenticated:
        return {}

    def count() -> int:
        from evaluations.notifications.selectors import unread_count

        return unread_count(user=user)

    return {"inbox_unread": SimpleLazyObject(count)}
