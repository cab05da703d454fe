"""WSGI entry point (gunicorn cranfield.wsgi): Django, with request bodies reporting to gunicorn's
arbiter as they arrive (``cranfield.heartbeat``)."""

import os

from django.core.wsgi import get_wsgi_application

from cranfield.heartbeat import reporting_body

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "cranfield.settings")
application = reporting_body(get_wsgi_application())
