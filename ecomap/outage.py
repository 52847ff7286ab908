"""What the site does while the cache or the broker (Redis) is unreachable.

Requests fail open: a rate limit or a live-progress read that cannot reach the cache lets the
request through and logs a warning, so an outage of a helper store never turns a save into a 500.
Jobs do the opposite of giving up: the errors in JOB_OUTAGE_ERRORS are retried (DURABLE_TASK).
"""

from __future__ import annotations

import logging
from typing import Any

from django.core.cache import cache
from django.core.cache.backends.base import DEFAULT_TIMEOUT
from django.core.cache.backends.redis import RedisCache, RedisCacheClient
from kombu.exceptions import OperationalError as BrokerUnreachable
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import RedisError
from redis.exceptions import TimeoutError as RedisTimeoutError
from rest_framework.settings import api_settings
from rest_framework.throttling import ScopedRateThrottle, SimpleRateThrottle

logger = logging.getLogger(__name__)

# The cache answered with an error or not at all (refused, reset, timed out, loading, read-only).
CACHE_ERRORS: tuple[type[BaseException], ...] = (RedisError, OSError)
# Errors that mean "try again later", not "this job is broken": Redis as cache or broker gone.
JOB_OUTAGE_ERRORS: tuple[type[BaseException], ...] = (
    RedisConnectionError,
    RedisTimeoutError,
    BrokerUnreachable,
)


class FailOpenScopedRateThrottle(ScopedRateThrottle):
    """DRF's scoped rate limit that lets the request through (with a warning) when the cache
    is down; rates are read at request time, so a changed setting applies without a restart."""

    @property
    def THROTTLE_RATES(self) -> dict[str, str | None]:  # noqa: N802 (DRF's attribute name)
        return api_settings.DEFAULT_THROTTLE_RATES

    def get_ident(self, request) -> str:
        # DRF believes X-Forwarded-For unless NUM_PROXIES is set, so a client could name its
        # own address and dodge a per-address limit; like django-axes, take the peer's address.
        if api_settings.NUM_PROXIES is None:
            return request.META.get("REMOTE_ADDR", "")
        return super().get_ident(request)

    def allow_request(self, request, view) -> bool:
        try:
            return super().allow_request(request, view)
        except CACHE_ERRORS as exc:
            logger.warning(
                "rate limit %r not checked, the cache is unreachable: %r",
                getattr(view, "throttle_scope", None),
                exc,
            )
            return True


class _Scope:
    """The bit of a DRF view a scoped throttle reads: its scope name."""

    def __init__(self, scope: str):
        self.throttle_scope = scope


def page_rate_limit_wait(request, *, scope: str) -> float | None:
    """Count one request of a page against the rate of `scope` (a DEFAULT_THROTTLE_RATES key,
    the same budget and cache entry as the API views of that scope). None when allowed,
    otherwise the seconds to wait. Signed-in users are counted per account, others per address."""
    throttle = FailOpenScopedRateThrottle()
    if throttle.allow_request(request, _Scope(scope)):
        return None
    return throttle.wait() or 1.0


class KeyedRateThrottle(SimpleRateThrottle):
    """DRF's rate limit (the same cache entries and sliding window) counted on a key the caller
    names, e.g. a client address or a share link; a scope without a rate is not limited."""

    cache_format = "throttle_%(scope)s_%(ident)s"

    def __init__(self, *, scope: str, ident: str):
        self.scope = scope
        self.ident = ident
        super().__init__()

    def get_rate(self) -> str | None:
        return api_settings.DEFAULT_THROTTLE_RATES.get(self.scope)

    def get_cache_key(self, request, view) -> str:
        return self.cache_format % {"scope": self.scope, "ident": self.ident}


def rate_limit_wait(*, scope: str, ident: str) -> float | None:
    """Count one request against the rate of `scope` (a DEFAULT_THROTTLE_RATES key) for `ident`.
    None when allowed, otherwise the seconds to wait; allowed, with a warning, when the cache
    is down. A refused request is not counted."""
    throttle = KeyedRateThrottle(scope=scope, ident=ident)
    try:
        if throttle.allow_request(None, None):
            return None
    except CACHE_ERRORS as exc:
        logger.warning("rate limit %r not checked, the cache is unreachable: %r", scope, exc)
        return None
    return throttle.wait() or 1.0


def cache_get_or(key: str, default: Any = None) -> Any:
    """cache.get for values a page can do without (live progress): the default when the cache
    is down."""
    try:
        return cache.get(key, default)
    except CACHE_ERRORS as exc:
        logger.warning("cache read of %s skipped, the cache is unreachable: %r", key, exc)
        return default


def cache_set_quietly(key: str, value: Any, timeout: int) -> None:
    """cache.set for values nobody depends on (live progress): skipped when the cache is down."""
    try:
        cache.set(key, value, timeout=timeout)
    except CACHE_ERRORS as exc:
        logger.warning("cache write of %s skipped, the cache is unreachable: %r", key, exc)


def cache_add_quietly(key: str, value: Any, timeout: int) -> None:
    """cache.add for values a page can recompute: skipped when the cache is down."""
    try:
        cache.add(key, value, timeout=timeout)
    except CACHE_ERRORS as exc:
        logger.warning("cache write of %s skipped, the cache is unreachable: %r", key, exc)


def cache_delete_quietly(*keys: str) -> None:
    try:
        cache.delete_many(keys)
    except CACHE_ERRORS as exc:
        logger.warning("cache delete of %s skipped, the cache is unreachable: %r", keys, exc)


class ReusedRedisClient(RedisCacheClient):
    """Django's Redis cache client, except that it builds one `redis.Redis` per connection pool
    instead of one per operation: building one fills its table of about 170 response callbacks,
    7 % of the web workers' Python time under bench/load. A `redis.Redis` is safe to share; each
    thread has its own cache object anyway (django.core.cache.caches)."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._clients: dict[int, Any] = {}

    def get_client(self, key=None, *, write=False):
        pool = self._get_connection_pool(write)
        client = self._clients.get(id(pool))
        if client is None:
            client = self._clients[id(pool)] = self._client(connection_pool=pool)
        return client


class FailOpenRedisCache(RedisCache):
    """Django's Redis cache for what pages keep only to be fast (the map figure, page fragments,
    API lists, rankings, vocabulary): while Redis is unreachable a read misses and a write is
    skipped, with a warning, so a page is computed instead of answering 500. Counters (`incr`)
    still raise: nothing here uses them, and a count that silently stops would be wrong."""

    def __init__(self, server, params):
        super().__init__(server, params)
        self._class = ReusedRedisClient

    def _quietly(self, operation: str, key: object, default: Any, call, *args, **kwargs) -> Any:
        try:
            return call(*args, **kwargs)
        except CACHE_ERRORS as exc:
            logger.warning(
                "cache %s of %s skipped, the cache is unreachable: %r", operation, key, exc
            )
            return default

    def get(self, key, default=None, version=None):
        return self._quietly("read", key, default, super().get, key, default, version)

    def get_many(self, keys, version=None):
        return self._quietly("read", keys, {}, super().get_many, keys, version)

    def has_key(self, key, version=None):
        return self._quietly("read", key, False, super().has_key, key, version)

    def set(self, key, value, timeout=DEFAULT_TIMEOUT, version=None):
        self._quietly("write", key, None, super().set, key, value, timeout, version)

    def set_many(self, data, timeout=DEFAULT_TIMEOUT, version=None):
        return self._quietly(
            "write", list(data), list(data), super().set_many, data, timeout, version
        )

    def add(self, key, value, timeout=DEFAULT_TIMEOUT, version=None):
        return self._quietly("write", key, False, super().add, key, value, timeout, version)

    def touch(self, key, timeout=DEFAULT_TIMEOUT, version=None):
        return self._quietly("write", key, False, super().touch, key, timeout, version)

    def delete(self, key, version=None):
        return self._quietly("delete", key, False, super().delete, key, version)

    def delete_many(self, keys, version=None):
        self._quietly("delete", keys, None, super().delete_many, keys, version)
