"""WSGI entry point (gunicorn ecomap.wsgi)."""

import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "ecomap.settings.local")
application = get_wsgi_application()
