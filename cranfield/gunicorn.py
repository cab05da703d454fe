"""gunicorn's settings for Cranfield's web process: ``gunicorn cranfield.wsgi -c python:cranfield.gunicorn``
(``docker/entrypoint.sh``; ``tests/integration/test_slow_upload.py`` runs it with a short timeout).

Threaded workers (gthread), not sync ones: gunicorn's ``timeout`` then watches that a worker is alive,
not how long one request takes, so an upload from a slow client (a 30 MB import job at 0.4 MB/s takes
75 s) finishes instead of being cut at the timeout with an HTML 500. A worker's threads each serve one
request; a slow sender holds one thread, not the whole worker.
"""

import os

bind = os.environ.get("BIND", "0.0.0.0:8000")
workers = int(os.environ.get("WEB_CONCURRENCY", "3"))
worker_class = "gthread"
threads = int(os.environ.get("WEB_THREADS", "4"))
timeout = 60
accesslog = "-"
