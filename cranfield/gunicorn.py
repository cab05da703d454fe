"""gunicorn's settings for Cranfield's web process: ``gunicorn cranfield.wsgi -c python:cranfield.gunicorn``
(``docker/entrypoint.sh``; ``tests/integration/test_slow_upload.py`` runs it with a short timeout).

Sync workers: threaded ones (gthread) cost the judging load up to a third of its throughput and raised
its p99 past 100 ms (the GIL, and kept-alive connections tied to one worker; BENCHMARKS.md, issue 27).
Their ``timeout`` kills a worker that has not reported in; a worker receiving a body reports in as the
body arrives (``cranfield.heartbeat``), so a slow upload finishes and a hung request is still cut.
A slow sender holds one worker while it sends: where many slow uploads are expected, put a buffering
proxy in front (nginx buffers request bodies by default).
"""

import os

bind = "0.0.0.0:8000"
workers = int(os.environ.get("WEB_CONCURRENCY", "3"))
worker_class = "sync"
timeout = 60
accesslog = "-"


def post_worker_init(worker) -> None:
    """Each worker, once started: bodies being received report in to the arbiter."""
    from cranfield import heartbeat

    heartbeat.report = worker.notify
