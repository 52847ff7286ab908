"""The Celery app, configured once from Django settings (CELERY_* names)."""

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "ecomap.settings.local")

app = Celery("ecomap")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
