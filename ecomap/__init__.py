"""EcoMap: place GPU-on-Kubernetes projects on the three-layer map and check how they compose."""

from .celery import app as celery_app

__all__ = ("celery_app",)
