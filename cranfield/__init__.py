"""The Django project package: settings, URLs, the Celery app and the CLI. Nothing domain-specific.

It imports nothing itself: ``cranfield.cli`` lives here and must start without Django or Celery. The
Celery app is bound for ``@shared_task`` by the settings module, which every Django process loads.
"""
