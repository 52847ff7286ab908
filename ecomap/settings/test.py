"""Tests: the real PostgreSQL and Redis here unless DATABASE_URL / TEST_REDIS_URL say otherwise."""

import os

from .base import *  # noqa: F403
from .base import CELERY_BEAT_SCHEDULE, REST_FRAMEWORK, env

DATABASES = {"default": env.db("DATABASE_URL", default="postgres://postgres@127.0.0.1:5432/ecomap")}
DEBUG = False
PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
# Hashed asset names 404 under live_server; plain storage serves them as written.
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
}
TEST_REDIS_URL = env.str("TEST_REDIS_URL", default="redis://127.0.0.1:6379/14")
# Tests run tasks eagerly, except those that start a real worker: they point both the test
# process and the worker at Redis through TEST_WORKER_BROKER_URL (see tests/worker.py).
TEST_WORKER_BROKER_URL = env.str("TEST_WORKER_BROKER_URL", default="")
CELERY_BROKER_URL = TEST_WORKER_BROKER_URL or "memory://localhost/"
CELERY_RESULT_BACKEND = None
CELERY_TASK_ALWAYS_EAGER = not TEST_WORKER_BROKER_URL
# A killed worker's unacknowledged job comes back after this many seconds; the key prefix keeps
# test runs that share one Redis from taking each other's jobs.
# kombu sweeps for such jobs every interval × throttle seconds (10 × 10 by default): every
# second here, or a job killed shortly after a worker started waits 100 s to come back.
CELERY_BROKER_TRANSPORT_OPTIONS = {
    "visibility_timeout": env.int("TEST_WORKER_VISIBILITY_TIMEOUT", default=3600),
    "global_keyprefix": env.str("TEST_WORKER_KEYPREFIX", default=""),
    "unacked_restore_interval": 1,
    "unacked_restore_throttle": 1,
}
# The broker-restart test runs beat with a short interval, to see it publish again after an
# outage without waiting a minute (tests/test_broker_restart.py).
CELERY_BEAT_SCHEDULE = {
    name: {**entry, "schedule": env.float("TEST_BEAT_INTERVAL", default=entry["schedule"])}
    for name, entry in CELERY_BEAT_SCHEDULE.items()
}
REST_FRAMEWORK = {
    **REST_FRAMEWORK,
    "DEFAULT_THROTTLE_RATES": {
        "catalog_write": None,
        "import": None,
        "password_reset": None,
        "share_open": None,
        "share_link": None,
    },
}
WHITENOISE_USE_FINDERS = True
WHITENOISE_AUTOREFRESH = True

# One test database per pytest process, so parallel runs on one machine never collide.
DATABASES["default"]["TEST"] = {"NAME": f"test_ecomap_{os.getpid()}"}

# E-mails stay in django.core.mail.outbox (a worker subprocess keeps its own).
EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"

# Webhook tests deliver to a receiver on 127.0.0.1; the refusal of internal addresses is tested
# with this switched off (tests/evaluations/notifications/test_notifications.py).
TEAM_WEBHOOK_ALLOW_PRIVATE = True
