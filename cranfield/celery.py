"""The Celery application. Configuration comes from Django settings (``CELERY_*`` names)."""

from __future__ import annotations

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "cranfield.settings")

app = Celery("cranfield")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
# Each feature keeps its Celery tasks in its own tasks.py: thin shells around its jobs.
app.autodiscover_tasks(
    [
        "evaluation.ground_truth",
        "evaluation.scoring",
        "evaluation.texts",
        "evaluation.collection",
        "evaluation.sampling",
        "evaluation.jobs",
    ]
)

app.conf.beat_schedule = {
    # Every project's ground truth is recomputed hourly as a safety net for judgements whose job was
    # never requested; unchanged projects write nothing (evaluation.ground_truth.jobs).
    "recompute-ground-truths": {
        "task": "evaluation.ground_truth.tasks.recompute_all_ground_truths",
        "schedule": float(os.environ.get("GROUND_TRUTH_SCHEDULE_SECONDS", "3600")),
    },
    # Jobs lost with a worker, a Redis restart or a queue flushed, and jobs whose worker stopped
    # answering, are sent again or failed with the reason (evaluation.jobs.lifecycle).
    "recover-lost-jobs": {
        "task": "evaluation.jobs.tasks.recover_lost_jobs",
        "schedule": float(os.environ.get("JOB_RECOVER_SECONDS", "60")),
    },
}
