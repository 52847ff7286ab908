"""Tests: the real PostgreSQL and Redis here unless DATABASE_URL / TEST_REDIS_URL say otherwise."""

from .base import *  # noqa: F403
from .base import REST_FRAMEWORK, env

DATABASES = {"default": env.db("DATABASE_URL", default="postgres://postgres@127.0.0.1:5432/ecomap")}
DEBUG = False
PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
# Hashed asset names 404 under live_server; plain storage serves them as written.
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
}
TEST_REDIS_URL = env.str("TEST_REDIS_URL", default="redis://127.0.0.1:6379/14")
# Tests that need a real broker start a worker themselves; everything else runs eagerly.
CELERY_BROKER_URL = "memory://"
CELERY_RESULT_BACKEND = None
CELERY_TASK_ALWAYS_EAGER = True
REST_FRAMEWORK = {
    **REST_FRAMEWORK,
    "DEFAULT_THROTTLE_RATES": {"catalog_write": None, "import": None},
}
WHITENOISE_USE_FINDERS = True
WHITENOISE_AUTOREFRESH = True
