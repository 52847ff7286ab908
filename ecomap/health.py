"""/healthz: is the database reachable, and is the broker (or eager mode) usable? (The details
only for staff.)
/readyz: may this instance take traffic: database, broker and cache, each within a deadline."""

from __future__ import annotations

import re
from concurrent.futures import ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout

from django.conf import settings
from django.core.cache import caches
from django.core.cache.backends.redis import RedisCache
from django.db import connection
from django.http import JsonResponse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET

_CREDENTIALS = re.compile(r"//[^/@\s]*@")


def _error_text(exc: Exception) -> str:
    """The error for an operator, without a password a driver may echo from its URL."""
    return _CREDENTIALS.sub("//", str(exc))[:200]


def database_status() -> dict[str, str]:
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
            cursor.fetchone()
    except Exception as exc:  # any driver error means "down"; the message says why
        return {"status": "down", "error": _error_text(exc)}
    return {"status": "ok", "vendor": connection.vendor}


def broker_status() -> dict[str, str]:
    if settings.CELERY_TASK_ALWAYS_EAGER:
        return {"status": "ok", "mode": "eager"}
    from ecomap.celery import app

    try:
        with app.connection_for_write() as conn:
            conn.ensure_connection(max_retries=1, timeout=2)
    except Exception as exc:  # kombu raises transport-specific errors
        return {"status": "down", "error": _error_text(exc)}
    return {"status": "ok", "mode": "broker"}


@never_cache
@require_GET
def healthz(request):
    """200 {"status": "ok"} or 503 {"status": "down"} for anyone; staff (the site's operators,
    signed in) also get each check with its error text, which names hosts and ports: nobody
    else learns the deployment's layout from an outage."""
    checks = {"database": database_status(), "broker": broker_status()}
    healthy = all(check["status"] == "ok" for check in checks.values())
    body: dict[str, object] = {"status": "ok" if healthy else "down"}
    user = getattr(request, "user", None)
    if user is not None and user.is_active and user.is_staff:
        body.update(checks)
    return JsonResponse(body, status=200 if healthy else 503)


def _database_ready() -> None:
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
    finally:
        connection.close()  # this runs in a pool thread: leave no connection behind


def _broker_ready() -> None:
    if settings.CELERY_TASK_ALWAYS_EAGER:
        return  # the demo runs tasks in-process; there is no broker to reach
    from ecomap.celery import app

    with app.connection_for_write() as conn:
        conn.ensure_connection(max_retries=1, timeout=settings.READYZ_TIMEOUT)


def _cache_ready() -> None:
    backend = caches["default"]
    if isinstance(backend, RedisCache):
        # FailOpenRedisCache turns an outage into a miss; readiness asks Redis itself.
        backend._cache.get_client(write=True).ping()
    else:
        backend.set("readyz:probe", "1", timeout=10)
        backend.get("readyz:probe")


READINESS_CHECKS = {"database": _database_ready, "broker": _broker_ready, "cache": _cache_ready}


def readiness() -> dict[str, str]:
    """Each dependency's state, `ok`, `down` or `timeout`, all checked at once within
    READYZ_TIMEOUT seconds. Errors are not echoed: their text can carry hosts and passwords."""
    pool = ThreadPoolExecutor(max_workers=len(READINESS_CHECKS), thread_name_prefix="readyz")
    futures = {name: pool.submit(check) for name, check in READINESS_CHECKS.items()}
    states: dict[str, str] = {}
    for name, future in futures.items():
        try:
            future.result(timeout=settings.READYZ_TIMEOUT)
            states[name] = "ok"
        except FutureTimeout:
            states[name] = "timeout"
        except Exception:  # any driver, transport or cache error means "down"
            states[name] = "down"
    pool.shutdown(wait=False, cancel_futures=True)  # a hung check must not hold the answer
    return states


@never_cache
@require_GET
def readyz(request):
    states = readiness()
    down = [name for name, state in states.items() if state != "ok"]
    body = {"status": "ready" if not down else "not ready", "checks": states, "down": down}
    return JsonResponse(body, status=503 if down else 200)
