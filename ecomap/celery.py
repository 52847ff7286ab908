"""The Celery app, configured once from Django settings (CELERY_* names)."""

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "ecomap.settings.local")

app = Celery("ecomap")
app.config_from_object("django.conf:settings", namespace="CELERY")
# Jobs live in the rooms they serve (docs/architecture.md), each in a `tasks.py` that the app's
# AppConfig.ready() imports, so web and worker processes both know every task by name.
