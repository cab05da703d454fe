"""The Django project package: settings, URLs, the Celery app and the CLI. Nothing domain-specific."""

# Importing the Celery app here makes @shared_task bind to it in web processes too.
from .celery import app as celery_app

__all__ = ["celery_app"]
