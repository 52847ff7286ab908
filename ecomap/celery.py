"""The Celery app, configured once from Django settings (CELERY_* names)."""

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "ecomap.settings.local")

app = Celery("ecomap")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
# Report jobs live in evaluations/report_tasks.py, next to the rest of the report code.
app.autodiscover_tasks(related_name="report_tasks")
