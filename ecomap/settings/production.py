"""Production: secrets and hosts must come from the environment; HTTPS everywhere."""

from django.core.exceptions import ImproperlyConfigured

from .base import *  # noqa: F403
from .base import FAIL_OPEN_REDIS_CACHE, env

DEBUG = False
SECRET_KEY = env.str("SECRET_KEY", default="")
if len(SECRET_KEY) < 50 or SECRET_KEY.startswith("insecure"):
    raise ImproperlyConfigured("Set SECRET_KEY to a random string of at least 50 characters.")
ALLOWED_HOSTS = env.list("ALLOWED_HOSTS")

STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "whitenoise.storage.CompressedManifestStaticFilesStorage"},
}

# Trust X-Forwarded-Proto only when a TLS-terminating proxy in front says so (BEHIND_PROXY=1):
# with gunicorn exposed directly, any client could send the header and pass as HTTPS.
if env.bool("BEHIND_PROXY", default=False):
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
SECURE_SSL_REDIRECT = env.bool("SECURE_SSL_REDIRECT", default=True)
SECURE_HSTS_SECONDS = env.int("SECURE_HSTS_SECONDS", default=60 * 60 * 24 * 365)
SECURE_HSTS_INCLUDE_SUBDOMAINS = True
SECURE_HSTS_PRELOAD = True
SECURE_CONTENT_TYPE_NOSNIFF = True
SESSION_COOKIE_SECURE = True
CSRF_COOKIE_SECURE = True
X_FRAME_OPTIONS = "DENY"
# The map's embed view sets its own framing policy per response.
SECURE_REFERRER_POLICY = "same-origin"
# Throttles, import progress and locks must be one cache for every process: without CACHE_URL,
# production uses the broker's Redis (Django's keys carry their own prefix).
_BROKER = env.str("BROKER_URL", default="")
if not env.str("CACHE_URL", default="") and _BROKER.startswith(("redis://", "rediss://")):
    CACHES = {"default": {"BACKEND": FAIL_OPEN_REDIS_CACHE, "LOCATION": _BROKER}}
CONN_MAX_AGE = env.int("CONN_MAX_AGE", default=60)
DATABASES["default"]["CONN_MAX_AGE"] = CONN_MAX_AGE  # noqa: F405
# Container health checks call /healthz and /readyz on the loopback address.
ALLOWED_HOSTS = [*ALLOWED_HOSTS, "127.0.0.1", "localhost"]
# Single sign-on: the provider is reached over HTTPS only, and a client must be registered.
_OIDC_ISSUER = env.str("OIDC_ISSUER", default="")
if _OIDC_ISSUER and not _OIDC_ISSUER.startswith("https://"):
    raise ImproperlyConfigured("OIDC_ISSUER must be an https:// URL.")
if _OIDC_ISSUER and not (
    env.str("OIDC_CLIENT_ID", default="") and env.str("OIDC_CLIENT_SECRET", default="")
):
    raise ImproperlyConfigured("Set OIDC_CLIENT_ID and OIDC_CLIENT_SECRET with OIDC_ISSUER.")
