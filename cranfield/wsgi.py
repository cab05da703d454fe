"""WSGI entry point (gunicorn cranfield.wsgi)."""

import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "cranfield.settings")
application = get_wsgi_application()
