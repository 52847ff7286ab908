"""/healthz: is the database reachable, and is the broker (or eager mode) usable?"""

from __future__ import annotations

from django.conf import settings
from django.db import connection
from django.http import JsonResponse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET


def database_status() -> dict[str, str]:
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
            cursor.fetchone()
    except Exception as exc:  # any driver error means "down"; the message says why
        return {"status": "down", "error": str(exc)[:200]}
    return {"status": "ok", "vendor": connection.vendor}


def broker_status() -> dict[str, str]:
    if settings.CELERY_TASK_ALWAYS_EAGER:
        return {"status": "ok", "mode": "eager"}
    from ecomap.celery import app

    try:
        with app.connection_for_write() as conn:
            conn.ensure_connection(max_retries=1, timeout=2)
    except Exception as exc:  # kombu raises transport-specific errors
        return {"status": "down", "error": str(exc)[:200]}
    return {"status": "ok", "mode": "broker"}


@never_cache
@require_GET
def healthz(request):
    checks = {"database": database_status(), "broker": broker_status()}
    healthy = all(check["status"] == "ok" for check in checks.values())
    return JsonResponse(
        {"status": "ok" if healthy else "down", **checks}, status=200 if healthy else 503
    )
